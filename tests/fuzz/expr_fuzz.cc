// libFuzzer target for ClassAd expressions: parse arbitrary text; whatever
// parses is evaluated (alone and inside a small ad with a match partner) and
// unparsed; the unparsed text must parse back, and is stable after one round.
// Build and run: see tests/fuzz/README.md.
#include <strings.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "policy/classad/classad.h"
#include "policy/classad/eval.h"
#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

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

[[maybe_unused]] bool ad_may_not_round_trip(const ClassAd& ad) {
  for (const ClassAd::Entry& en : ad.entries()) {
    if (en.name->len == 0 || en.name->view().find('\0') != std::string_view::npos) return true;
    if (unparse_may_not_round_trip(en.expr)) return true;
  }
  return false;
}

// MY and TARGET ads with names the corpus uses, including self-references.
ClassAd* scope_ad(const char* text) {
  AdPtr ad = parse_classad(text);
  if (!ad) abort();
  return ad.release();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16 * 1024) return 0;
  static ClassAd* my = scope_ad(
      "[ a = 1; b = \"x\"; c = { 1, 2.5, \"s\" }; d = [ e = 3; f = a ]; s = s + 1; "
      "t = u; u = t; Memory = 1024; Requirements = TARGET.Cpus > 0; Rank = Memory ]");
  static ClassAd* target =
      scope_ad("[ Cpus = 2; Memory = 512; b = 2; Requirements = MY.Cpus > 1; Rank = b * 2 ]");

  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseError err;
  ExprPtr e = parse_expr(text, &err);
  if (!e) return 0;

  Value alone = evaluate(e.get());
  std::string out;
  unparse_value(out, alone);
  {
    MatchPair pair(*my, *target);
    Value in_match = pair.evaluate_left(e.get());
    unparse_value(out, in_match);
  }

  if (unparse_may_not_round_trip(e.get())) return 0;
  // Round trip: canonical text must parse back. Reals print with 16
  // significant digits (HTCondor's %.15E), so the text may change once (DBL_MAX
  // prints as a number that reads back as infinity); after that it is stable.
  std::string first = to_string(e.get());
  ExprPtr again = parse_expr(first, &err);
  if (!again) {
    fprintf(stderr, "unparsed text does not parse: [%s]: %s\n", first.c_str(),
            err.to_string().c_str());
    abort();
  }
  std::string second = to_string(again.get());
  ExprPtr third_expr = parse_expr(second, &err);
  if (!third_expr || to_string(third_expr.get()) != second) {
    fprintf(stderr, "unparse not stable:\n  [%s]\n  [%s]\n", first.c_str(), second.c_str());
    abort();
  }
  std::string pretty;
  unparse_pretty(pretty, e.get());
  return 0;
}
