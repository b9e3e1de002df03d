// The one typed reader of configuration values (see typed.h): boolean words, ClassAd expressions
// of constants, overflow checks, and errors that say where the value was defined.
#include "policy/config/typed.h"

#include <strings.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/config/internal.h"

namespace kite::config {
namespace {

using internal::trim;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_name_char(char c) {
  return is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

// An integer literal in `text` too large for 64 bits (the ClassAd lexer would not say so).
bool has_oversized_literal(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (!is_digit(text[i]) || (i > 0 && (is_name_char(text[i - 1]) || text[i - 1] == '.'))) {
      ++i;
      continue;
    }
    size_t b = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    bool real = i < text.size() && (text[i] == '.' || text[i] == 'e' || text[i] == 'E');
    if (real || (i - b > 1 && text[b] == '0')) continue;  // reals and octal/hex forms
    std::string digits(text.substr(b, i - b));
    errno = 0;
    std::strtoull(digits.c_str(), nullptr, 10);
    if (errno == ERANGE || digits.size() > 19 ||
        (digits.size() == 19 && digits > "9223372036854775807")) {
      return true;
    }
  }
  return false;
}

// Evaluates `text` as a ClassAd expression of constants.
bool evaluate_text(std::string_view text, classad::Value* out, std::string* why) {
  classad::ParseError pe;
  classad::ExprPtr e = classad::parse_expr(text, &pe);
  if (!e) {
    *why = "not a valid expression (" + pe.to_string() + ")";
    return false;
  }
  *out = classad::evaluate(e.get());
  return true;
}

// Range of doubles that convert to int64 without overflow: [-2^63, 2^63).
constexpr double kInt64Bound = 9223372036854775808.0;

std::string where_of(const Entry& e) {
  return e.source.empty() ? std::string("<unknown>") : e.source;
}

Status bad(const Entry& e, std::string_view value, const std::string& why) {
  return Status::Error(where_of(e) + ": " + e.name + " = " + std::string(value) + ": " + why);
}

// The expanded, trimmed value of entry `e`; false (with `st` set on an expansion error) when
// there is none.
bool value_of(const Config& cfg, const Entry& e, std::string* v, Status* st) {
  Status err;
  if (!cfg.get(e.name, v, &err)) {
    if (!err.ok) *st = err;
    return false;
  }
  *v = std::string(trim(*v));
  return !v->empty();
}

}  // namespace

bool parse_bool_word(std::string_view text, bool* out) {
  static const char* const kTrue[] = {"true", "yes", "t", "1"};
  static const char* const kFalse[] = {"false", "no", "f", "0"};
  std::string_view t = trim(text);
  for (int i = 0; i < 4; ++i) {
    if (t.size() == std::strlen(kTrue[i]) && strncasecmp(t.data(), kTrue[i], t.size()) == 0) {
      *out = true;
      return true;
    }
    if (t.size() == std::strlen(kFalse[i]) && strncasecmp(t.data(), kFalse[i], t.size()) == 0) {
      *out = false;
      return true;
    }
  }
  return false;
}

bool parse_bool(std::string_view text, bool* out, std::string* why) {
  if (parse_bool_word(text, out)) return true;
  classad::Value v;
  if (!evaluate_text(trim(text), &v, why)) return false;
  if (v.is_boolean()) {
    *out = v.as_boolean();
    return true;
  }
  if (v.is_integer()) {
    *out = v.as_integer() != 0;
    return true;
  }
  if (v.is_real() && !std::isnan(v.as_real())) {
    *out = v.as_real() != 0;
    return true;
  }
  *why = "not a boolean (true/false, yes/no, t/f, 1/0, or an expression that evaluates to one)";
  return false;
}

bool parse_int(std::string_view text, int64_t* out, std::string* why) {
  std::string_view t = trim(text);
  if (has_oversized_literal(t)) {
    *why = "integer out of range (more than 64 bits)";
    return false;
  }
  classad::Value v;
  if (!evaluate_text(t, &v, why)) return false;
  if (v.is_integer()) {
    *out = v.as_integer();
    return true;
  }
  if (v.is_real()) {
    double d = v.as_real();
    if (!std::isfinite(d) || d >= kInt64Bound || d < -kInt64Bound) {
      *why = "integer out of range (more than 64 bits)";
      return false;
    }
    *out = static_cast<int64_t>(d);
    return true;
  }
  *why = "not an integer";
  return false;
}

bool parse_real(std::string_view text, double* out, std::string* why) {
  classad::Value v;
  if (!evaluate_text(trim(text), &v, why)) return false;
  if (v.is_integer()) {
    *out = static_cast<double>(v.as_integer());
    return true;
  }
  if (v.is_real() && std::isfinite(v.as_real())) {
    *out = v.as_real();
    return true;
  }
  *why = v.is_real() ? "not a finite number" : "not a number";
  return false;
}

Status read_bool(const Config& cfg, const Entry& entry, bool* out, bool* found) {
  if (found) *found = false;
  std::string v, why;
  Status st;
  if (!value_of(cfg, entry, &v, &st)) return st;
  bool b = false;
  if (!parse_bool(v, &b, &why)) return bad(entry, v, why);
  *out = b;
  if (found) *found = true;
  return Status::Ok();
}

Status read_int(const Config& cfg, const Entry& entry, int64_t* out, bool* found, int64_t min,
                int64_t max) {
  if (found) *found = false;
  std::string v, why;
  Status st;
  if (!value_of(cfg, entry, &v, &st)) return st;
  int64_t n = 0;
  if (!parse_int(v, &n, &why)) return bad(entry, v, why);
  if (n < min || n > max) {
    return bad(entry, v,
               "out of range (" + std::to_string(min) + " to " + std::to_string(max) + ")");
  }
  *out = n;
  if (found) *found = true;
  return Status::Ok();
}

Status read_bool(const Config& cfg, std::string_view name, bool* out, bool* found) {
  Entry e;
  if (found) *found = false;
  if (!cfg.lookup(name, &e)) return Status::Ok();
  return read_bool(cfg, e, out, found);
}

Status read_int(const Config& cfg, std::string_view name, int64_t* out, bool* found, int64_t min,
                int64_t max) {
  Entry e;
  if (found) *found = false;
  if (!cfg.lookup(name, &e)) return Status::Ok();
  return read_int(cfg, e, out, found, min, max);
}

Status read_real(const Config& cfg, std::string_view name, double* out, bool* found) {
  Entry e;
  if (found) *found = false;
  if (!cfg.lookup(name, &e)) return Status::Ok();
  std::string v, why;
  Status st;
  if (!value_of(cfg, e, &v, &st)) return st;
  double d = 0;
  if (!parse_real(v, &d, &why)) return bad(e, v, why);
  *out = d;
  if (found) *found = true;
  return Status::Ok();
}

Status read_expr(const Config& cfg, std::string_view name, const char* dflt,
                 classad::ExprPtr* out) {
  Entry e;
  std::string v;
  Status st;
  if (cfg.lookup(name, &e) && !value_of(cfg, e, &v, &st) && !st.ok) return st;
  classad::ParseError pe;
  if (!v.empty()) {
    classad::ExprPtr parsed = classad::parse_expr(v, &pe);
    if (!parsed) return bad(e, v, "not a valid expression (" + pe.to_string() + ")");
    *out = std::move(parsed);
  } else if (dflt) {
    *out = classad::parse_expr(dflt, &pe);
  }
  return Status::Ok();
}

std::vector<std::string> split_list(std::string_view value) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : value) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace kite::config
