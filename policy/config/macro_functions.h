// The configuration language's function macros beyond $ENV and $RANDOM_*: $CHOICE, $SUBSTR,
// $INT, $REAL, $STRING, $EVAL, $DIRNAME, $BASENAME and the $F[fpduwnxbqa] family.
// HTCONDOR: introduction-to-configuration "Function Macros in Configuration".
#pragma once

#include <string>
#include <string_view>

namespace kite::config::internal {

/// What a function macro needs from the configuration: the macro-expanded value of the macro
/// named `text` when one is defined, else (when `or_literal`) `text` itself expanded.
/// Returns false when the macro is undefined and `or_literal` is false, or on an expansion
/// error (which the caller has recorded).
class MacroArgs {
 public:
  virtual bool value(std::string_view text, bool or_literal, std::string* out) = 0;
  virtual bool failed() const = 0;

 protected:
  ~MacroArgs() = default;
};

/// True for the names this file implements (case matters, as in HTCondor).
bool is_macro_function(std::string_view fn);

/// Expands `$fn(args)` into `out`; false with a message in `err` naming the function.
bool macro_function(std::string_view fn, std::string_view args, MacroArgs& cfg, std::string* out,
                    std::string* err);

}  // namespace kite::config::internal
