// The default Requirements condor_submit writes: the user's expression first, then the clauses
// for the machine attributes it does not already constrain (rules in
// ../shared/conformance/submit/README.md, "Default Requirements").
#include <strings.h>

#include <algorithm>
#include <cctype>

#include "policy/classad/expr.h"
#include "policy/classad/parser.h"
#include "policy/submit/job_ad.h"

namespace kite::submit {
namespace {

using classad::Expr;
using classad::ExprKind;

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

void walk(const Expr* e, std::vector<std::string>* out, int depth) {
  if (!e || depth > 200) return;
  switch (e->kind) {
    case ExprKind::kAttr: {
      const classad::AttrExpr* a = classad::as_attr(e);
      const Expr* base = a->base;
      bool target = base && base->kind == ExprKind::kAttr && !classad::as_attr(base)->base &&
                    lower(classad::as_attr(base)->name->view()) == "target";
      if (!base || target) {
        out->push_back(lower(a->name->view()));
      } else {
        walk(base, out, depth + 1);
      }
      break;
    }
    case ExprKind::kOp: {
      const classad::OpExpr* o = classad::as_op(e);
      walk(o->a, out, depth + 1);
      walk(o->b, out, depth + 1);
      walk(o->c, out, depth + 1);
      break;
    }
    case ExprKind::kCall: {
      const classad::CallExpr* c = classad::as_call(e);
      for (uint32_t i = 0; i < c->nargs; ++i) walk(c->args[i], out, depth + 1);
      break;
    }
    case ExprKind::kLiteral: break;
  }
}

bool refers(const RequirementsInput& in, const char* name) {
  return std::find(in.refs.begin(), in.refs.end(), name) != in.refs.end();
}

}  // namespace

void machine_refs(std::string_view expr_text, std::vector<std::string>* out) {
  classad::ExprPtr e = classad::parse_expr(expr_text);
  if (e) walk(e.get(), out, 0);
}

std::string build_requirements(const RequirementsInput& in) {
  std::string r;
  auto add = [&r](std::string_view clause) {
    if (!r.empty()) r += " && ";
    r += clause;
  };
  if (!in.user.empty()) add("(" + in.user + ")");
  if (!refers(in, "arch")) add("(TARGET.Arch == \"X86_64\")");
  static const char* const kOpSys[] = {"opsys",          "opsysandver", "opsyslongname",
                                       "opsysshortname", "opsysname",   "opsyslegacy"};
  bool opsys = false;
  for (const char* n : kOpSys) opsys = opsys || refers(in, n);
  if (!opsys) add("(TARGET.OpSys == \"LINUX\")");
  if (refers(in, "disk")) {
    add("(TARGET.Disk >= RequestDisk)");
  } else {
    add("(versionGE(split(TARGET.CondorVersion)[1],\"25.12.0\") || (TARGET.Disk >= RequestDisk))");
  }
  if (in.memory_clause) add("(TARGET.Memory >= RequestMemory)");
  if (in.cpus_clause) add("(TARGET.Cpus >= RequestCpus)");
  for (const std::string& tag : in.custom) {
    if (refers(in, lower(tag).c_str())) continue;
    if (std::find(in.string_tags.begin(), in.string_tags.end(), tag) != in.string_tags.end()) {
      add("regexp(Request" + tag + ", TARGET." + tag + ")");
    } else if (tag == "GPUs" && in.require_gpus) {
      add("(countMatches(MY.RequireGPUs,TARGET.AvailableGPUs) >= RequestGPUs)");
    } else {
      add("(TARGET." + tag + " >= Request" + tag + ")");
    }
  }
  // HTCONDOR: submit_utils.cpp SetRequirements: no transfer needs the same file system; a
  // reference to HasFileTransfer (or HasJobTransferPlugins) leaves the transfer clause out.
  bool fsdomain = refers(in, "filesystemdomain");
  if (in.transfer == ShouldTransfer::kNo) {
    if (!fsdomain) add("(TARGET.FileSystemDomain == MY.FileSystemDomain)");
  } else if (!refers(in, "hasfiletransfer") && !refers(in, "hasjobtransferplugins")) {
    if (in.transfer == ShouldTransfer::kIfNeeded && !fsdomain) {
      add("((TARGET.FileSystemDomain == MY.FileSystemDomain) || (TARGET.HasFileTransfer))");
    } else {
      add("(TARGET.HasFileTransfer)");
    }
  }
  if (in.deferral) {
    add("TARGET.HasJobDeferral && (((time() + ScheddInterval) >= (DeferralTime - "
        "DeferralPrepTime)) && (time() < (DeferralTime + DeferralWindow)))");
  }
  return r;
}

}  // namespace kite::submit
