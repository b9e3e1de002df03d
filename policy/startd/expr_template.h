// Expressions of one fixed shape with whole numbers in holes (the slot ad's time() totals),
// made by copying a tree parsed once instead of printing and parsing text on every transition.
#pragma once

#include <cstdint>

#include "policy/classad/expr.h"

namespace kite::startd {

class ExprTemplate {
 public:
  static constexpr int kMaxHoles = 4;
  /// `format`: the expression's text with a "%lld" for each of its `holes` numbers.
  ExprTemplate(const char* format, int holes);
  ExprTemplate(const ExprTemplate&) = delete;
  ExprTemplate& operator=(const ExprTemplate&) = delete;

  /// The expression with `values` in its holes: the same tree (and hashes) parsing the text
  /// would give. Null when that text does not parse.
  classad::ExprPtr make(const int64_t* values) const;

 private:
  const char* format_;
  int holes_;
  classad::ExprPtr tree_;  // parsed with kMark + i in hole i; null: each make() parses
};

}  // namespace kite::startd
