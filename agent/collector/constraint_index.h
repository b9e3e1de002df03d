// Recognises a query constraint that an index can answer: `Attr == "value"` (or =?=) on an
// indexed attribute, alone or as one conjunct of an `&&` chain.
#pragma once
#include <string>

#include "policy/classad/expr.h"

namespace kite::collector {

struct IndexedEquality {
  int attr = -1;      // index into the attribute list given
  std::string value;  // the string the attribute must equal (case-insensitively)
};

// True when every ad matching `e` has attribute attrs[out->attr] equal to out->value.
bool find_indexed_equality(const classad::Expr* e, const char* const* attrs, int nattrs,
                           IndexedEquality* out);

}  // namespace kite::collector
