// HTCondor's V1/V2 argument and environment string syntaxes: parsing, quoting, merging.
#include "policy/classad/args_env.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace kite::classad {
namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// HTCONDOR: env.cpp's permitted V1 delimiters (a V1 string may name its own by its first
// character).
bool permitted_v1_delimiter(char c) {
  return c != '\0' && std::strchr("!#$%&*+,-/:;<>?@^`|~\x1f", c) != nullptr;
}

}  // namespace

bool args_split_v2(std::string_view s, std::vector<std::string>* out, std::string* err) {
  std::string word;
  bool in_word = false;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (blank(c)) {
      if (in_word) out->push_back(std::move(word));
      word.clear();
      in_word = false;
      ++i;
      continue;
    }
    in_word = true;
    if (c != '\'') {
      word += c;
      ++i;
      continue;
    }
    size_t open = i++;
    for (;;) {
      if (i >= s.size()) {
        if (err) {
          *err = "unterminated single quote at offset " + std::to_string(open) + " in '" +
                 std::string(s) + "'";
        }
        return false;
      }
      if (s[i] != '\'') {
        word += s[i++];
      } else if (i + 1 < s.size() && s[i + 1] == '\'') {
        word += '\'';
        i += 2;
      } else {
        ++i;
        break;
      }
    }
  }
  if (in_word) out->push_back(std::move(word));
  return true;
}

std::vector<std::string> args_split_v1(std::string_view s) {
  std::vector<std::string> v;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && blank(s[i])) ++i;
    size_t b = i;
    while (i < s.size() && !blank(s[i])) ++i;
    if (i > b) v.emplace_back(s.substr(b, i - b));
  }
  return v;
}

void args_append_v2(std::string_view arg, std::string* out) {
  if (!out->empty()) *out += ' ';
  if (arg.empty()) *out += "''";
  for (char c : arg) {
    if (!blank(c) && c != '\'') {
      *out += c;
      continue;
    }
    // Extend the quoted run just closed rather than open a new one.
    if (!out->empty() && out->back() == '\'') {
      out->pop_back();
    } else {
      *out += '\'';
    }
    if (c == '\'') *out += '\'';
    *out += c;
    *out += '\'';
  }
}

bool args_join_v1(const std::vector<std::string>& args, std::string* out, std::string* err) {
  for (const std::string& a : args) {
    if (std::any_of(a.begin(), a.end(), blank)) {
      if (err) *err = "cannot represent '" + a + "' in V1 arguments syntax";
      return false;
    }
    if (!out->empty()) *out += ' ';
    *out += a;
  }
  return true;
}

size_t Environment::position(std::string_view name) const {
  auto it = std::lower_bound(vars_.begin(), vars_.end(), name,
                             [](const Var& v, std::string_view n) { return v.name < n; });
  return static_cast<size_t>(it - vars_.begin());
}

void Environment::put(std::string_view name, std::string_view value, bool has_value) {
  size_t i = position(name);
  if (i < vars_.size() && vars_[i].name == name) {
    vars_[i].value = std::string(value);
    vars_[i].has_value = has_value;
    return;
  }
  vars_.insert(vars_.begin() + static_cast<std::ptrdiff_t>(i),
               Var{std::string(name), std::string(value), has_value});
}

void Environment::set(std::string_view name, std::string_view value) {
  put(name, value, true);
}

void Environment::set_default(std::string_view name, std::string_view value) {
  if (!get(name)) put(name, value, true);
}

const std::string* Environment::get(std::string_view name) const {
  size_t i = position(name);
  if (i < vars_.size() && vars_[i].name == name && vars_[i].has_value) return &vars_[i].value;
  return nullptr;
}

std::vector<std::string> Environment::entries() const {
  std::vector<std::string> e;
  e.reserve(vars_.size());
  for (const Var& v : vars_) {
    if (v.has_value) e.push_back(v.name + "=" + v.value);
  }
  return e;
}

bool Environment::set_entry(std::string_view entry, std::string* err) {
  if (entry.empty()) {
    if (err) *err = "empty environment entry";
    return false;
  }
  size_t eq = entry.find('=');
  if (eq == std::string_view::npos && entry.find("$$") != std::string_view::npos) {
    put(entry, "", false);
    return true;
  }
  if (eq == std::string_view::npos) {
    if (err) *err = "missing '=' after environment variable '" + std::string(entry) + "'";
    return false;
  }
  if (eq == 0) {
    if (err) *err = "missing variable name in '" + std::string(entry) + "'";
    return false;
  }
  set(entry.substr(0, eq), entry.substr(eq + 1));
  return true;
}

bool Environment::merge_v2(std::string_view s, std::string* err) {
  std::vector<std::string> words;
  if (!args_split_v2(s, &words, err)) return false;
  for (const std::string& w : words) {
    if (!set_entry(w, err)) return false;
  }
  return true;
}

std::vector<std::string_view> Environment::split_v1(std::string_view s) {
  std::vector<std::string_view> entries;
  char delim = ';';
  if (!s.empty() && permitted_v1_delimiter(s.front())) {
    delim = s.front();
    s.remove_prefix(1);
  }
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && blank(s[i])) ++i;
    size_t b = i;
    while (i < s.size() && s[i] != delim && s[i] != '\n') ++i;
    if (i > b) entries.push_back(s.substr(b, i - b));
    if (i < s.size()) ++i;
  }
  return entries;
}

bool Environment::merge_v1(std::string_view s, std::string* err) {
  for (std::string_view entry : split_v1(s)) {
    if (!set_entry(entry, err)) return false;
  }
  return true;
}

std::string Environment::to_v2() const {
  std::string out;
  for (const Var& v : vars_) {
    args_append_v2(v.has_value ? v.name + "=" + v.value : v.name, &out);
  }
  return out;
}

}  // namespace kite::classad
