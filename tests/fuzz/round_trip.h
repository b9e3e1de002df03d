// Helpers the ClassAd fuzz targets share: which parsed trees and ads cannot
// be expected to unparse to text that parses back to the same thing.
#pragma once

#include <strings.h>

#include <cstring>
#include <string_view>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"

namespace kite::classad::fuzz {

// Unparse limits Kite shares with HTCondor's unparser (so the conformance
// vectors require them): a selected name is printed without quotes
// (`x.'y z'` prints as `x.y z`) and a number before `.name` runs into it
// (`1 .a` prints as `1.a`). Such text does not parse back; skip the round
// trip for them. NUL bytes in strings and empty attribute names are skipped
// too (the parser once accepted them; JSON cannot carry them).
inline bool plain_name(std::string_view n) {
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

inline bool unparse_may_not_round_trip(const Expr* e, int depth = 0) {
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

inline bool ad_may_not_round_trip(const ClassAd& ad) {
  for (const ClassAd::Entry& en : ad.entries()) {
    if (en.name->len == 0 || en.name->view().find('\0') != std::string_view::npos) return true;
    if (unparse_may_not_round_trip(en.expr)) return true;
  }
  return false;
}

}  // namespace kite::classad::fuzz
