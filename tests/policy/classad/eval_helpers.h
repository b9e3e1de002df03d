// Test helper shared by the ClassAd tests: evaluate an expression with no ad
// in scope and return its canonical text (or the parse error).
#pragma once

#include <string>
#include <string_view>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::classad {

inline std::string eval_text(std::string_view text) {
  ParseError err;
  ExprPtr e = parse_expr(text, &err);
  if (!e) return "<parse error: " + err.to_string() + ">";
  return to_string(evaluate(e.get()));
}

}  // namespace kite::classad
