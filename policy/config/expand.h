// Macro expansion of the configuration language: $(NAME), $(NAME:default), $($(X)), $ENV(X),
// $RANDOM_INTEGER/$RANDOM_CHOICE and the function macros, with reference cycles and runaway
// growth reported as errors. Internal to policy/config.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/config/config.h"

namespace kite::config::internal {

constexpr int kMaxExpandDepth = 64;
constexpr size_t kMaxExpandBytes = 1 << 20;  // the result of expanding one macro
constexpr size_t kMaxExpandWork = 16 << 20;  // characters scanned to expand one macro
constexpr size_t kMaxFinishWork = 64 << 20;  // ... and to check a whole configuration

/// One expansion: the configuration it reads, the names being expanded (for cycles), the first
/// error, and the work done so far.
struct Expander {
  const Config& cfg;
  std::vector<std::string> stack;  // upper-cased names being expanded (cycle detection)
  Status err;
  size_t work = 0;  // characters scanned: bounds the cost of pathological configurations
  size_t work_limit = kMaxExpandWork;

  bool fail(std::string msg) {
    if (err.ok) err = Status::Error(std::move(msg));
    return false;
  }

  bool expand(std::string_view text, std::string& out, int depth);
  bool expand_name(std::string_view name, std::string_view def, bool has_def, std::string& out,
                   int depth);
  bool expand_entry(const Entry& e, std::string& out, int depth);
  bool expand_function(std::string_view fn, std::string_view args, std::string& out, int depth);
};

}  // namespace kite::config::internal
