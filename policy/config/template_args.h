// Arguments of a `use CATEGORY : NAME(a, b, c)` template and their substitution into the
// template's body: $(0) all, $(0#) count, $(N), $(N?) non-empty, $(N+) from N on, $(N:def).
// Internal to policy/config.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kite::config::internal {

/// The comma-separated items of "a, b(c, d), e": trimmed, with where each starts in `raw`
/// (because $(N+) is the raw text from argument N to the end).
struct MetaArgs {
  std::string raw;  // trimmed text between the parentheses
  std::vector<std::string> items;
  std::vector<size_t> starts;

  explicit MetaArgs(std::string_view text);
  std::string item(size_t n) const { return n >= 1 && n <= items.size() ? items[n - 1] : ""; }
  std::string from(size_t n) const;
};

/// `body` with its $(0) $(0?) $(0#) $(N) $(N?) $(N+) $(N:def) $(N+:def) replaced.
std::string meta_substitute(std::string_view body, const MetaArgs& args, int depth = 0);

}  // namespace kite::config::internal
