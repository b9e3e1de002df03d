// Recognises a query constraint that an index can answer: `Attr == "value"` (or =?=) on an
// indexed attribute, alone, as one conjunct of an `&&` chain, or `||` of such (kite status NAME
// asks for `Name == "x" || Machine == "x"`).
#pragma once
#include <string>
#include <vector>

#include "policy/classad/expr.h"

namespace kite::collector {

struct IndexedEquality {
  int attr = -1;      // index into the attribute list given
  std::string value;  // the string the attribute must equal (case-insensitively)
};

// True when every ad matching `e` satisfies one of the equalities appended to `out` (attribute
// attrs[attr] equal to value).
bool find_indexed_equality(const classad::Expr* e, const char* const* attrs, int nattrs,
                           std::vector<IndexedEquality>* out);

}  // namespace kite::collector
