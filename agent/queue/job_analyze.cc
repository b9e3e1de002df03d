// Lays out the negotiator's analysis of a job the way condor_q -better-analyze does (see
// job_analyze.h).
#include "agent/queue/job_analyze.h"

#include <strings.h>

#include <cstdio>
#include <ctime>

#include "policy/classad/eval.h"
#include "policy/classad/unparse.h"
#include "policy/negotiator/analyze.h"

namespace kite::queue {
namespace {

using classad::ClassAd;
using classad::Expr;

constexpr size_t kWidth = 80;  // condor_q wraps the expression to this many columns

bool is_logical(const Expr* e) {
  return e && e->kind == classad::ExprKind::kOp &&
         (e->op == classad::Op::kAnd || e->op == classad::Op::kOr);
}

struct Token {
  std::string text;
  size_t indent;
};

// The operands of a chain of the same logical operator (left-associative), parentheses kept.
void chain_of(const Expr* e, classad::Op op, bool top, std::vector<const Expr*>& out) {
  if (is_logical(e) && e->op == op && (top || classad::paren_count(e) == 0)) {
    chain_of(classad::as_op(e)->a, op, false, out);
    chain_of(classad::as_op(e)->b, op, false, out);
  } else {
    out.push_back(e);
  }
}

// The tokens of the top-level && chain; an operand too long for a line of its own is cut at
// its own operator, its later operands two columns deeper.
void tokens_of(const Expr* req, std::vector<Token>& out) {
  std::vector<const Expr*> ops;
  chain_of(req, classad::Op::kAnd, true, ops);
  for (size_t i = 0; i < ops.size(); ++i) {
    std::string tail = i + 1 < ops.size() ? " &&" : "";
    std::string text = classad::to_string(ops[i]) + tail;
    if (4 + text.size() <= kWidth || !is_logical(ops[i]) || classad::paren_count(ops[i]) != 1) {
      out.push_back({text, 4});
      continue;
    }
    std::vector<const Expr*> inner;
    chain_of(ops[i], ops[i]->op, true, inner);
    const char* sep = ops[i]->op == classad::Op::kAnd ? " &&" : " ||";
    for (size_t j = 0; j < inner.size(); ++j) {
      std::string t = (j == 0 ? "(" : "") + classad::to_string(inner[j]) +
                      (j + 1 < inner.size() ? sep : ")" + tail);
      out.push_back({t, j == 0 ? size_t{4} : size_t{6}});
    }
  }
}

std::string wrapped(const Expr* req) {
  std::vector<Token> tokens;
  tokens_of(req, tokens);
  std::string out, line;
  for (const Token& t : tokens) {
    if (!line.empty() && line.size() + 1 + t.text.size() <= kWidth) {
      line += " " + t.text;
      continue;
    }
    if (!line.empty()) out += line + "\n";
    line = std::string(t.indent, ' ') + t.text;
  }
  if (!line.empty()) out += line + "\n";
  return out;
}

// "(kb)" and "(mb)": the units condor_q names for disk and memory amounts.
const char* unit_of(const std::string& name) {
  size_t n = name.size();
  if (n >= 4 && strcasecmp(name.c_str() + n - 4, "Disk") == 0) return " (kb)";
  if (n >= 6 && strcasecmp(name.c_str() + n - 6, "Memory") == 0) return " (mb)";
  return "";
}

std::string value_text(const ClassAd& ad, const std::string& name) {
  return classad::to_string(ad.evaluate_attr(name));
}

std::string ctime_text(int64_t t) {
  time_t tt = static_cast<time_t>(t);
  struct tm tm;
  localtime_r(&tt, &tm);
  char buf[64];
  strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  return buf;
}

}  // namespace

std::string format_better_analyze(ClassAd& job, const std::vector<classad::AdPtr>& slots) {
  negotiator::JobAnalysis a = negotiator::analyze_job(job, slots);
  int64_t cluster = 0, proc = 0;
  job.evaluate_int("ClusterId", cluster);
  job.evaluate_int("ProcId", proc);
  char id[64], id3[64];
  std::snprintf(id, sizeof id, "%lld.%03lld", static_cast<long long>(cluster),
                static_cast<long long>(proc));
  std::snprintf(id3, sizeof id3, "%03lld.%03lld", static_cast<long long>(cluster),
                static_cast<long long>(proc));
  std::string out;
  if (a.has_requirements) {
    out += std::string("The Requirements expression for job ") + id + " is\n\n";
    out += wrapped(a.steps[a.root].expr) + "\n";
    char buf[32];
    for (size_t i = 0; i < a.steps.size(); ++i) {
      std::snprintf(buf, sizeof buf, "[%zu]", i);
      std::string step = buf;
      step.resize(7, ' ');
      out += "    " + step + ": " + a.steps[i].text + "\n";
    }
    out += "\n";
    if (!a.job_attrs.empty()) {
      out += std::string("Job ") + id + " defines the following attributes:\n\n";
      for (const std::string& n : a.job_attrs)
        out += "    " + n + " = " + value_text(job, n) + unit_of(n) + "\n";
      out += "\n";
    }
    if (!a.slot_attrs.empty()) {
      std::string name;
      slots[0]->evaluate_string("Name", name);
      out += name + " has the following attributes:\n\n";
      for (const std::string& n : a.slot_attrs)
        out += "    TARGET." + n + " = " + value_text(*slots[0], n) + unit_of(n) + "\n";
      out += "\n";
    }
    out += std::string("The Requirements expression for job ") + id +
           " reduces to these conditions:\n\n";
    out += "        Slots\nStep   Matched  Condition\n----- --------- ---------\n";
    for (const negotiator::AnalyzeCondition& c : a.conditions) {
      std::snprintf(buf, sizeof buf, "[%d]", c.step);
      char line[64];
      std::snprintf(line, sizeof line, "%-5s %9lld  ", buf,
                    static_cast<long long>(c.slots_matched));
      out += line + a.steps[c.step].text + "\n";
    }
    out += "\n\n";
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "%s:  Run analysis summary ignoring user priority.  Of %lld slots on %lld "
                "machines,\n",
                id3, static_cast<long long>(a.slots), static_cast<long long>(a.machines));
  out += line;
  std::snprintf(line, sizeof line,
                "      %lld slots are rejected by your job's requirements\n"
                "      %lld slots reject your job because of their own requirements\n"
                "      %lld slots match and are willing to run your job\n\n",
                static_cast<long long>(a.rejected_by_job),
                static_cast<long long>(a.rejected_by_slot), static_cast<long long>(a.matched));
  out += line;
  if (a.matched == 0)
    out += "WARNING:  Be advised:\n   No machines matched the job's constraints\n\n";
  int64_t when = 0;
  std::string user, reason;
  job.evaluate_string("User", user);
  if (job.evaluate_int("LastMatchTime", when)) {
    out += "Last successful match: " + ctime_text(when) + "\n";
  } else {
    out += "No successful match recorded.\n";
    if (job.evaluate_int("LastRejMatchTime", when))
      out += "Last failed match: " + ctime_text(when) + " from " + user + "\n";
    if (job.evaluate_string("LastRejMatchReason", reason))
      out += "Reason for last match failure: " + reason + "\n";
  }
  return out;
}

}  // namespace kite::queue
