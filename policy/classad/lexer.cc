// ClassAd tokenizer: numbers, strings with HTCondor's escapes, names (plain
// and 'quoted'), keywords, operators and comments.
// HTCONDOR: classad-mechanism "ClassAd Syntax".
#include "policy/classad/lexer.h"

#include <strings.h>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kite::classad {
namespace {

inline bool is_digit(char c) {
  return has_class(c, kDigit);
}

}  // namespace

// At a comment: skips it and any further spaces and comments.
bool Lexer::skip_comments() {
  for (;;) {
    while (pos_ < src_.size() && is_space(src_[pos_])) ++pos_;
    char c = peek();
    if (c == '/' && peek(1) == '/') {
      while (pos_ < src_.size() && src_[pos_] != '\n') advance();
    } else if (c == '/' && peek(1) == '*') {
      advance();
      advance();
      for (;;) {
        if (pos_ >= src_.size()) {
          err_ = "unterminated comment";
          return false;
        }
        if (src_[pos_] == '*' && peek(1) == '/') {
          advance();
          advance();
          break;
        }
        advance();
      }
    } else {
      return true;
    }
  }
}

// As HTCondor's lexer does, a '-' directly followed by a digit (or by '.'
// and a digit) is the sign of a numeric literal unless the previous token
// ends an operand, where it can only be subtraction: `[ a = -1 ]` holds the
// literal -1 while `x -1` subtracts.
bool Lexer::minus_starts_number() const {
  switch (prev_) {
    case Tok::kInteger:
    case Tok::kReal:
    case Tok::kTrue:
    case Tok::kFalse:
    case Tok::kString:
    case Tok::kUndefined:
    case Tok::kErrorKw:
    case Tok::kName:
    case Tok::kDot:
    case Tok::kRBracket:
    case Tok::kRParen:
    case Tok::kRBrace: return false;
    default: break;
  }
  char n1 = peek(1);
  return is_digit(n1) || (n1 == '.' && is_digit(peek(2)));
}

// A word of 2 to 9 letters may be a keyword (k is lower case; ASCII
// letters fold with | 0x20).
void Lexer::keyword(Token& t) {
  std::string_view word = t.text;
  auto kw = [&](const char* k, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      if ((word[i] | 0x20) != k[i]) return false;
    }
    return true;
  };
  switch (word.size()) {
    case 2:
      if (kw("is", 2)) t.kind = Tok::kIs;
      break;
    case 4:
      if (kw("true", 4))
        t.kind = Tok::kTrue;
      else if (kw("isnt", 4))
        t.kind = Tok::kIsnt;
      break;
    case 5:
      if (kw("false", 5))
        t.kind = Tok::kFalse;
      else if (kw("error", 5))
        t.kind = Tok::kErrorKw;
      break;
    case 9:
      if (kw("undefined", 9)) t.kind = Tok::kUndefined;
      break;
    default: break;
  }
}

// A comment where a token would start: skip it, then scan normally.
void Lexer::scan_after_comment(Token& t) {
  if (!skip_comments()) {
    t.kind = Tok::kError;
    t.offset = static_cast<uint32_t>(pos_);
    return;
  }
  scan(t);
}

void Lexer::scan(Token& t) {
  const char* s = src_.data();
  const size_t n = src_.size();
  size_t p = pos_;
  while (p < n && has_class(s[p], kSpace)) ++p;
  t.offset = static_cast<uint32_t>(p);
  t.quoted_name = false;
  if (p >= n) {
    pos_ = p;
    t.kind = Tok::kEnd;
    return;
  }
  const char c = s[p];
  if (has_class(c, kIdentStart)) {
    size_t q = p + 1;
    while (q < n && has_class(s[q], kIdentChar)) ++q;  // no newlines here
    pos_ = q;
    t.kind = Tok::kName;
    t.text = std::string_view(s + p, q - p);
    // Keywords are 2 to 9 letters; check only those lengths.
    if ((0x234u >> (q - p < 10 ? q - p : 0)) & 1) keyword(t);
    return;
  }
  if (is_digit(c)) {
    // A short decimal integer (most numbers in ads) here; the rest in number().
    size_t q = p;
    int64_t v = 0;
    while (q < n && q - p < 18 && is_digit(s[q])) v = v * 10 + (s[q++] - '0');
    const char next = q < n ? s[q] : '\0';
    if (!(c == '0' && q - p > 1) && !is_digit(next) && next != '.' && (next | 0x20) != 'e' &&
        (next | 0x20) != 'x') {
      pos_ = q;
      t.kind = Tok::kInteger;
      t.int_value = v;
      return;
    }
    pos_ = p;
    number(t);
    return;
  }
  pos_ = p + 1;  // the one-character tokens; the others set pos_ again
  switch (c) {
    case '"':
      pos_ = p;
      string_literal(t);
      return;
    case '\'':
      pos_ = p;
      quoted_name(t);
      return;
    case '.':
      if (p + 1 < n && is_digit(s[p + 1])) {
        pos_ = p;
        number(t);
        return;
      }
      t.kind = Tok::kDot;
      return;
    case '-':
      pos_ = p;
      if (minus_starts_number()) {
        number(t);
        return;
      }
      pos_ = p + 1;
      t.kind = Tok::kMinus;
      return;
    case '/':
      if (p + 1 < n && (s[p + 1] == '/' || s[p + 1] == '*')) {
        pos_ = p;
        scan_after_comment(t);
        return;
      }
      t.kind = Tok::kSlash;
      return;
    case '(': t.kind = Tok::kLParen; return;
    case ')': t.kind = Tok::kRParen; return;
    case '{': t.kind = Tok::kLBrace; return;
    case '}': t.kind = Tok::kRBrace; return;
    case '[': t.kind = Tok::kLBracket; return;
    case ']': t.kind = Tok::kRBracket; return;
    case ',': t.kind = Tok::kComma; return;
    case ';': t.kind = Tok::kSemicolon; return;
    case '?': t.kind = Tok::kQuestion; return;
    case ':': t.kind = Tok::kColon; return;
    case '^': t.kind = Tok::kCaret; return;
    case '+': t.kind = Tok::kPlus; return;
    case '*': t.kind = Tok::kStar; return;
    case '%': t.kind = Tok::kPercent; return;
    case '~': t.kind = Tok::kTilde; return;
    case '|':
      if (peek() == '|') {
        advance();
        t.kind = Tok::kOrOr;
      } else {
        t.kind = Tok::kBar;
      }
      return;
    case '&':
      if (peek() == '&') {
        advance();
        t.kind = Tok::kAndAnd;
      } else {
        t.kind = Tok::kAmp;
      }
      return;
    case '!':
      if (peek() == '=') {
        advance();
        t.kind = Tok::kNe;
      } else {
        t.kind = Tok::kBang;
      }
      return;
    case '=':
      if (peek() == '=') {
        advance();
        t.kind = Tok::kEq;
      } else if (peek() == '?' && peek(1) == '=') {
        advance();
        advance();
        t.kind = Tok::kMetaEq;
      } else if (peek() == '!' && peek(1) == '=') {
        advance();
        advance();
        t.kind = Tok::kMetaNe;
      } else {
        t.kind = Tok::kAssign;
      }
      return;
    case '<':
      if (peek() == '=') {
        advance();
        t.kind = Tok::kLe;
      } else if (peek() == '<') {
        advance();
        t.kind = Tok::kShl;
      } else {
        t.kind = Tok::kLt;
      }
      return;
    case '>':
      if (peek() == '=') {
        advance();
        t.kind = Tok::kGe;
      } else if (peek() == '>') {
        advance();
        if (peek() == '>') {
          advance();
          t.kind = Tok::kShrU;
        } else {
          t.kind = Tok::kShr;
        }
      } else {
        t.kind = Tok::kGt;
      }
      return;
    default: break;
  }
  unexpected_char(t, c);
}

// Out of line so the hot paths of scan() need few registers.
void Lexer::unexpected_char(Token& t, char c) {
  t.kind = Tok::kError;
  err_ = "unexpected character '";
  if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f) {
    err_ += c;
  } else {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
    err_ += buf;
  }
  err_ += "'";
}

void Lexer::number(Token& t) {
  bool negative = false;
  if (src_[pos_] == '-') {
    negative = true;
    ++pos_;
  }
  size_t start = pos_;
  // Fast path: a short decimal integer (the common case in ads).
  if (src_[pos_] != '0' || pos_ + 1 >= src_.size() || !is_digit(src_[pos_ + 1])) {
    size_t p = pos_;
    int64_t v = 0;
    while (p < src_.size() && p - start < 18 && is_digit(src_[p])) v = v * 10 + (src_[p++] - '0');
    char next = p < src_.size() ? src_[p] : '\0';
    if (p > start && !is_digit(next) && next != '.' && next != 'e' && next != 'E' && next != 'x' &&
        next != 'X') {
      pos_ = p;
      t.kind = Tok::kInteger;
      t.int_value = negative ? -v : v;
      return;
    }
  }
  bool is_real = false;
  bool hex = false;
  if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
    hex = true;
    advance();
    advance();
    if (!std::isxdigit(static_cast<unsigned char>(peek()))) {
      t.kind = Tok::kError;
      err_ = "hexadecimal literal without digits";
      return;
    }
    while (std::isxdigit(static_cast<unsigned char>(peek()))) advance();
  } else {
    while (is_digit(peek())) advance();
    if (peek() == '.') {
      is_real = true;
      advance();
      while (is_digit(peek())) advance();
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
      is_real = true;
      advance();
      if (peek() == '+' || peek() == '-') advance();
      while (is_digit(peek())) advance();
    }
  }
  if (is_real && real_fast(start, pos_, negative, t.real_value)) {
    t.kind = Tok::kReal;
    return;
  }
  // strtod/strtoll need a terminated copy (sign included); numbers are short.
  size_t digits = start;
  if (negative) --start;
  char small[64];
  std::string big;
  const char* text;
  size_t len = pos_ - start;
  if (len < sizeof small) {
    std::memcpy(small, src_.data() + start, len);
    small[len] = '\0';
    text = small;
  } else {
    big.assign(src_.substr(start, len));
    text = big.c_str();
  }
  if (is_real) {
    t.kind = Tok::kReal;
    t.real_value = std::strtod(text, nullptr);
    return;
  }
  t.kind = Tok::kInteger;
  errno = 0;
  size_t ndigits = pos_ - digits;
  // HTCONDOR: lexer.cpp tokenizeNumber: with old-ClassAd semantics (the
  // default unless STRICT_CLASSAD_EVALUATION) integers are read in base 10,
  // so 010 is 10 and 0x10 reads as 0; a leading-zero literal must still
  // consist of octal digits.
  if (!hex && ndigits > 1 && src_[digits] == '0') {
    for (size_t k = digits; k < pos_; ++k) {
      if (src_[k] == '8' || src_[k] == '9') {
        t.kind = Tok::kError;
        err_ = "bad octal integer literal";
        return;
      }
    }
  }
  int base = 10;
  char* end = nullptr;
  long long v;
  if (hex) {
    v = 0;  // base 10 stops at the 'x'
    end = const_cast<char*>(text + len);
  } else if (ndigits <= 18) {  // cannot overflow: no strtoll needed
    v = 0;
    for (size_t k = digits; k < pos_; ++k) v = v * 10 + (src_[k] - '0');
    if (negative) v = -v;
    end = const_cast<char*>(text + len);
  } else {
    v = std::strtoll(text, &end, base);
  }
  // Out-of-range literals read as 0, as HTCondor's lexer leaves them.
  if (errno == ERANGE || (end && *end != '\0')) v = 0;
  t.int_value = v;
  return;
}

// Short decimal reals without strtod: when the digits fit in 53 bits and
// the power of ten is exact (at most 1e22), one IEEE multiplication or
// division gives the correctly rounded value, the same bits strtod returns.
// False if the text needs strtod.
bool Lexer::real_fast(size_t start, size_t end, bool negative, double& out) const {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  uint64_t m = 0;
  int digits = 0;
  int64_t frac = 0;
  bool in_frac = false;
  size_t i = start;
  for (; i < end; ++i) {
    char c = src_[i];
    if (c == '.') {
      in_frac = true;
      continue;
    }
    if (c == 'e' || c == 'E') break;
    if (in_frac) ++frac;
    if (m == 0 && c == '0') continue;  // leading zeros are not significant
    if (++digits > 19) return false;
    m = m * 10 + static_cast<uint64_t>(c - '0');
  }
  int64_t exp = 0;
  if (i < end) {  // the lexer checked the exponent has digits
    ++i;
    bool exp_negative = false;
    if (src_[i] == '+' || src_[i] == '-') exp_negative = src_[i++] == '-';
    if (end - i > 4) return false;
    for (; i < end; ++i) exp = exp * 10 + (src_[i] - '0');
    if (exp_negative) exp = -exp;
  }
  if (m > (uint64_t{1} << 53)) return false;
  double d = static_cast<double>(m);
  if (m != 0) {
    int64_t e10 = exp - frac;
    if (e10 < -22 || e10 > 22) return false;
    if (e10 < 0) {
      d /= kPow10[-e10];
    } else {
      d *= kPow10[e10];
    }
  }
  out = negative ? -d : d;
  return true;
}

// HTCONDOR: lexer.cpp tokenizeStringOld: no escapes but \" inside the text.
void Lexer::string_literal_old(Token& t) {
  advance();  // opening quote
  // Fast path: no backslash before the closing quote, so the text is the
  // source itself.
  size_t start = pos_;
  const char* p = src_.data() + pos_;
  const char* end = src_.data() + src_.size();
  if (swar::kEnabled) {
    for (; p + 8 <= end; p += 8) {
      uint64_t w = swar::load(p);
      if (uint64_t stop = swar::eq_bytes(w, '"') | swar::zero_bytes(w)) {
        p += swar::first(stop);
        break;
      }
    }
  }
  while (p < end && *p != '"' && *p != '\0') ++p;
  pos_ = static_cast<size_t>(p - src_.data());
  if (p < end && *p == '"' && (pos_ == start || p[-1] != '\\')) {
    advance();
    t.kind = Tok::kString;
    t.text = src_.substr(start, pos_ - 1 - start);
    return;
  }
  string_literal_old_slow(t, start);
}

// The general case, resuming at pos_ with src_[start, pos_) read so far.
void Lexer::string_literal_old_slow(Token& t, size_t start) {
  std::string& out = buf_;
  out.assign(src_.data() + start, pos_ - start);
  for (;;) {
    if (pos_ >= src_.size() || src_[pos_] == '\0') {
      t.kind = Tok::kError;
      err_ = pos_ >= src_.size() ? "unterminated string" : "NUL character in string";
      return;
    }
    char c = src_[pos_];
    if (c != '"') {
      out += c;
      advance();
      continue;
    }
    // A quote after a backslash is part of the text unless the line ends
    // right after it (then the string ends with a backslash).
    bool escaped = !out.empty() && out.back() == '\\';
    bool more = pos_ + 1 < src_.size() && src_[pos_ + 1] != '\n';
    advance();
    if (escaped && more) {
      out.back() = '"';
      continue;
    }
    break;
  }
  t.kind = Tok::kString;
  t.text = out;
}

void Lexer::string_literal(Token& t) {
  if (old_strings_) {
    string_literal_old(t);
    return;
  }
  advance();  // opening quote
  // Fast path: a run of plain characters up to a closing quote that no
  // adjacent literal follows; the text is then the source itself.
  size_t start = pos_;
  const char* p = src_.data() + pos_;
  const char* end = src_.data() + src_.size();
  while (p < end && has_class(*p, kPlainStringChar)) ++p;
  pos_ = static_cast<size_t>(p - src_.data());
  if (p < end && *p == '"') {
    size_t len = pos_ - start;
    advance();
    if (!next_piece('"')) {
      t.kind = Tok::kString;
      t.text = src_.substr(start, len);
      return;
    }
    buf_.assign(src_.data() + start, len);
    advance();  // the next piece's opening quote
    string_literal_slow(t);
    return;
  }
  buf_.assign(src_.data() + start, pos_ - start);
  string_literal_slow(t);
}

// The general case: escapes and joined pieces, appended to buf_ (which
// holds what was read before `pos_`).
void Lexer::string_literal_slow(Token& t) {
  std::string& out = buf_;
  for (;;) {
    if (pos_ >= src_.size()) {
      t.kind = Tok::kError;
      err_ = "unterminated string";
      return;
    }
    char c = src_[pos_];
    if (c == '"') {
      advance();
      // Adjacent literals separated only by whitespace join ("a" "b" is "ab").
      if (next_piece('"'))
        advance();
      else
        break;
      continue;
    }
    if (c == '\0') {
      t.kind = Tok::kError;
      err_ = "NUL character in string";
      return;
    }
    if (c != '\\') {
      // Copy a run of ordinary characters at once.
      size_t run = pos_;
      while (run < src_.size() && has_class(src_[run], kPlainStringChar)) ++run;
      if (run > pos_) {
        out.append(src_.data() + pos_, run - pos_);
        pos_ = run;
      } else {
        out += c;
        advance();
      }
      continue;
    }
    advance();
    if (pos_ >= src_.size()) continue;
    char e = src_[pos_];
    advance();
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        int v = e - '0';
        // Up to three octal digits; a leading 4-7 allows only two.
        int max_digits = (e <= '3') ? 2 : 1;
        for (int k = 0; k < max_digits && peek() >= '0' && peek() <= '7'; ++k) {
          v = v * 8 + (peek() - '0');
          advance();
        }
        if (v == 0) {  // HTCondor refuses NUL in strings
          t.kind = Tok::kError;
          err_ = "NUL character (\\0) in string";
          return;
        }
        out += static_cast<char>(v);
        break;
      }
      default: out += e; break;  // \\ \" \' \? and unknown escapes drop the backslash
    }
  }
  t.kind = Tok::kString;
  t.text = out;
}

// True (and skips the whitespace) if `quote` follows after only whitespace.
bool Lexer::next_piece(char quote) {
  size_t p = pos_;
  while (p < src_.size() && has_class(src_[p], kSpace)) ++p;
  if (p < src_.size() && src_[p] == quote) {
    pos_ = p;
    return true;
  }
  return false;
}

void Lexer::quoted_name(Token& t) {
  std::string& out = buf_;
  out.clear();
  // HTCONDOR: lexer.cpp tokenizeString: quoted pieces separated only by
  // whitespace join into one ('it''s' names the attribute its).
  bool first = true;
  while (first || next_piece('\'')) {
    first = false;
    advance();
    for (;;) {
      if (pos_ >= src_.size()) {
        t.kind = Tok::kError;
        err_ = "unterminated quoted attribute name";
        return;
      }
      char c = src_[pos_];
      if (c == '\'') {
        advance();
        break;
      }
      if (c == '\0') {
        t.kind = Tok::kError;
        err_ = "NUL character in quoted attribute name";
        return;
      }
      if (c == '\\' && pos_ + 1 < src_.size()) {
        advance();
        if (src_[pos_] == '\0') {
          t.kind = Tok::kError;
          err_ = "NUL character in quoted attribute name";
          return;
        }
        out += src_[pos_];
        advance();
        continue;
      }
      out += c;
      advance();
    }
  }
  if (out.empty()) {
    t.kind = Tok::kError;
    err_ = "empty quoted attribute name";
    return;
  }
  t.kind = Tok::kName;
  t.quoted_name = true;
  t.text = out;
}

}  // namespace kite::classad
