// Parsers for ClassAd expressions, new-syntax ads (`[ a = 1; b = "x" ]`) and
// old line-syntax ads (`Name = "slot1@host"` one per line). Errors carry the
// line and column; no input crashes or hangs the parser.
#pragma once

#include <string>
#include <string_view>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"

namespace kite::classad {

struct ParseError {
  int line = 0;
  int column = 0;
  std::string message;
  std::string to_string() const;  // "line L, column C: message"
};

// The whole text must be one expression. Null on error.
ExprPtr parse_expr(std::string_view text, ParseError* err = nullptr);
// `[ name = expr; ... ]`. Null on error.
AdPtr parse_classad(std::string_view text, ParseError* err = nullptr);
// One `Name = expr` per line; blank lines and `#` comments are skipped.
AdPtr parse_classad_old(std::string_view text, ParseError* err = nullptr);
// Either syntax, chosen by the first non-blank character (`[` = new).
AdPtr parse_classad_any(std::string_view text, ParseError* err = nullptr);

}  // namespace kite::classad
