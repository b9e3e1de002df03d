// Test helper shared by the ClassAd tests: evaluate an expression with no ad
// in scope and return its canonical text (or the parse error); a fixed clock.
#pragma once

#include <string>
#include <string_view>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::classad {

inline std::string eval_text(std::string_view text, const EvalEnv* env = nullptr) {
  ParseError err;
  ExprPtr e = parse_expr(text, &err);
  if (!e) return "<parse error: " + err.to_string() + ">";
  return to_string(evaluate(e.get(), env));
}

// An environment whose clock always reads `*static_cast<const int64_t*>(clock)`.
inline EvalEnv fixed_time_env(const int64_t* seconds) {
  EvalEnv env;
  env.now_fn = [](const void* clock) { return *static_cast<const int64_t*>(clock); };
  env.clock = seconds;
  return env;
}

}  // namespace kite::classad
