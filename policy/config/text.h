// Small text helpers the configuration language's files share (names, blanks, case,
// parentheses, excerpts for messages). Not part of the public API.
#pragma once

#include <string>
#include <string_view>

namespace kite::config::internal {

/// Blanks: space, tab, CR, FF, VT.
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
/// Characters of a macro name: letters, digits, '_' and '.'.
inline bool is_name_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}
inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view ltrim(std::string_view s);
std::string upper(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
/// A non-empty run of name characters.
bool valid_name(std::string_view s);
/// Index of the ')' matching the '(' at `open`, or npos.
size_t match_paren(std::string_view s, size_t open);
/// The directory part of `path` ("." when there is none).
std::string dir_of(const std::string& path);
/// Printable excerpt of user text for messages (60 characters at most).
std::string excerpt(std::string_view s);

}  // namespace kite::config::internal
