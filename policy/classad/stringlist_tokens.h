// The tokenizer of HTCondor string lists ("a, b,c"): any character of the
// delimiter string separates items, runs of delimiters and surrounding
// whitespace are skipped, so there are never empty items. Shared by the
// stringList* and stringList_regexpMember built-ins.
// HTCONDOR: classad-builtin-functions (string list functions preamble).
#pragma once

#include <string_view>

namespace kite::classad {

class StringTokens {
 public:
  // Both strings end at their first NUL, as the reference's C strings do.
  StringTokens(std::string_view list, std::string_view delims)
      : s_(cut(list)), delims_(cut(delims)) {}

  // The next item, trimmed of whitespace; false at the end.
  bool next(std::string_view& item) {
    while (pos_ < s_.size() && (is_delim(s_[pos_]) || is_space(s_[pos_]))) ++pos_;
    size_t start = pos_, last = pos_;
    while (pos_ < s_.size() && !is_delim(s_[pos_])) {
      if (!is_space(s_[pos_])) last = pos_;
      ++pos_;
    }
    if (pos_ <= start) return false;
    item = s_.substr(start, last - start + 1);
    return true;
  }

 private:
  static std::string_view cut(std::string_view s) {
    size_t nul = s.find('\0');
    return nul == std::string_view::npos ? s : s.substr(0, nul);
  }
  static bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
  bool is_delim(char c) const { return delims_.find(c) != std::string_view::npos; }

  std::string_view s_;
  std::string_view delims_;
  size_t pos_ = 0;
};

}  // namespace kite::classad
