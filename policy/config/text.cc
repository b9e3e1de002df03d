// Small text helpers shared by the configuration language's files (see text.h).
#include "policy/config/text.h"

#include <strings.h>

#include "policy/config/internal.h"

namespace kite::config::internal {

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view ltrim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

std::string upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return r;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

// Index of the ')' matching the '(' at `open`, or npos.
size_t match_paren(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// Printable excerpt of user text for messages.
std::string excerpt(std::string_view s) {
  std::string r;
  for (char c : s.substr(0, 60)) r += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  if (s.size() > 60) r += "...";
  return r;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace kite::config::internal
