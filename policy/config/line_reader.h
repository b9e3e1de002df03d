// Reads configuration text as statements: physical lines split, blank and comment lines
// skipped, `\` continuations joined, and the bodies of `NAME @=tag ... @tag` blocks.
// Internal to policy/config.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kite::config::internal {

class LineReader {
 public:
  explicit LineReader(std::string_view text);

  /// The next statement, trimmed, with its first physical line (0-based) in *line. Lines ending
  /// in `\` continue on the next line (comment lines inside a continuation are dropped).
  /// False at the end of the text.
  bool next(std::string* statement, int* line);

  /// The body of an `@=tag` block whose first line follows the statement just read: the lines
  /// up to the one that is `@tag`, each without its leading and trailing blanks, blank and
  /// comment lines dropped (as HTCondor reads them), joined by '\n'. False when the text ends
  /// before `@tag`; *too_big when the body grows past `max_bytes`.
  bool block(std::string_view tag, size_t max_bytes, std::string* body, bool* too_big);

 private:
  std::vector<std::string_view> lines_;
  size_t next_ = 0;
};

}  // namespace kite::config::internal
