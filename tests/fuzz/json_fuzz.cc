// libFuzzer target for the JSON reader: arbitrary text as one ad and as a
// list of ads; whatever parses is written back out, which must read back to
// the same JSON. Build and run: see tests/fuzz/README.md.
#include <strings.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"

using namespace kite::classad;

namespace {

// Unparse limits Kite shares with HTCondor's unparser (so the conformance
// vectors require them): a selected name is printed without quotes
// (`x.'y z'` prints as `x.y z`) and a number before `.name` runs into it
// (`1 .a` prints as `1.a`). Such text does not parse back; skip the round
// trip for them. NUL bytes in strings and empty attribute names are skipped
// too (the parser once accepted them; JSON cannot carry them).
bool plain_name(std::string_view n) {
  if (n.empty() || !((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= 'A' && n[0] <= 'Z') || n[0] == '_')) {
    return false;
  }
  for (char c : n) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
      return false;
    }
  }
  for (const char* k : {"true", "false", "undefined", "error", "is", "isnt"}) {
    if (n.size() == strlen(k) && strncasecmp(n.data(), k, n.size()) == 0) return false;
  }
  return true;
}

bool unparse_may_not_round_trip(const Expr* e, int depth = 0) {
  if (!e || depth > 300) return depth > 300;
  switch (e->kind) {
    case ExprKind::kLiteral: {
      const Value& v = as_literal(e)->value;
      if (v.is_string()) return v.as_string().find('\0') != std::string_view::npos;
      if (v.is_list()) {
        for (const Expr* item : v.as_list()->items) {
          if (unparse_may_not_round_trip(item, depth + 1)) return true;
        }
      }
      if (v.is_classad()) {
        for (const ClassAd::Entry& en : v.as_classad()->entries()) {
          if (en.name->len == 0 || en.name->view().find('\0') != std::string_view::npos)
            return true;
          if (unparse_may_not_round_trip(en.expr, depth + 1)) return true;
        }
      }
      return false;
    }
    case ExprKind::kAttr: {
      const AttrExpr* a = as_attr(e);
      if (a->name->view().find('\0') != std::string_view::npos) return true;
      if (!a->base) return false;
      if (!plain_name(a->name->view())) return true;
      if (a->base->kind == ExprKind::kLiteral && as_literal(a->base)->value.is_number())
        return true;
      return unparse_may_not_round_trip(a->base, depth + 1);
    }
    case ExprKind::kOp: {
      const OpExpr* o = as_op(e);
      return unparse_may_not_round_trip(o->a, depth + 1) ||
             unparse_may_not_round_trip(o->b, depth + 1) ||
             unparse_may_not_round_trip(o->c, depth + 1);
    }
    case ExprKind::kCall: {
      const CallExpr* c = as_call(e);
      for (uint32_t i = 0; i < c->nargs; ++i) {
        if (unparse_may_not_round_trip(c->args[i], depth + 1)) return true;
      }
      return false;
    }
  }
  return false;
}

bool ad_may_not_round_trip(const ClassAd& ad) {
  for (const ClassAd::Entry& en : ad.entries()) {
    if (en.name->len == 0 || en.name->view().find('\0') != std::string_view::npos) return true;
    if (unparse_may_not_round_trip(en.expr)) return true;
  }
  return false;
}

void check_round_trip(const ClassAd& ad) {
  if (ad_may_not_round_trip(ad)) return;
  for (bool pretty : {true, false}) {
    std::string json = classad_to_json(ad, pretty);
    ParseError err;
    AdPtr back = classad_from_json(json, &err);
    if (!back) {
      fprintf(stderr, "own JSON does not parse: %s\n%s\n", err.to_string().c_str(), json.c_str());
      abort();
    }
    // Reals print with 16 significant digits, so the text may change once; the
    // second round must reproduce it exactly.
    json = classad_to_json(*back, pretty);
    back = classad_from_json(json, &err);
    std::string again = back ? classad_to_json(*back, pretty) : std::string("<does not parse>");
    if (again != json) {
      fprintf(stderr, "JSON round trip differs:\n%s\n---\n%s\n", json.c_str(), again.c_str());
      abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseError err;
  if (AdPtr ad = classad_from_json(text, &err)) {
    check_round_trip(*ad);
    for (const ClassAd::Entry& en : ad->entries()) (void)ad->evaluate_attr(en.name->view());
  }
  std::vector<AdPtr> ads;
  if (classads_from_json(text, ads, &err)) {
    for (const AdPtr& a : ads) check_round_trip(*a);
  }
  return 0;
}
