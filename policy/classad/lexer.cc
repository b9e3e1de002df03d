// ClassAd tokenizer: numbers, strings with HTCondor's escapes, names (plain
// and 'quoted'), keywords, operators and comments.
// HTCONDOR: classad-mechanism "ClassAd Syntax".
#include "policy/classad/lexer.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <strings.h>

namespace kite::classad {
namespace {

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool Lexer::skip_space_and_comments() {
  for (;;) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      advance();
    } else if (c == '/' && peek(1) == '/') {
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

Token Lexer::next() {
  Token t;
  if (!skip_space_and_comments()) {
    t.kind = Tok::kError;
    t.line = line_;
    t.column = column();
    return t;
  }
  t.line = line_;
  t.column = column();
  if (pos_ >= src_.size()) {
    t.kind = Tok::kEnd;
    return t;
  }
  char c = src_[pos_];
  if (is_digit(c) || (c == '.' && is_digit(peek(1)))) return number(t);
  if (c == '"') return string_literal(t);
  if (c == '\'') return quoted_name(t);
  if (is_ident_start(c)) {
    size_t start = pos_;
    while (pos_ < src_.size() && is_ident_char(src_[pos_])) advance();
    std::string_view word = src_.substr(start, pos_ - start);
    auto kw = [&](const char* k) {
      return word.size() == std::strlen(k) && strncasecmp(word.data(), k, word.size()) == 0;
    };
    if (kw("true")) t.kind = Tok::kTrue;
    else if (kw("false")) t.kind = Tok::kFalse;
    else if (kw("undefined")) t.kind = Tok::kUndefined;
    else if (kw("error")) t.kind = Tok::kErrorKw;
    else if (kw("is")) t.kind = Tok::kIs;
    else if (kw("isnt")) t.kind = Tok::kIsnt;
    else {
      t.kind = Tok::kName;
      t.text.assign(word);
    }
    return t;
  }
  advance();
  switch (c) {
    case '(': t.kind = Tok::kLParen; return t;
    case ')': t.kind = Tok::kRParen; return t;
    case '{': t.kind = Tok::kLBrace; return t;
    case '}': t.kind = Tok::kRBrace; return t;
    case '[': t.kind = Tok::kLBracket; return t;
    case ']': t.kind = Tok::kRBracket; return t;
    case ',': t.kind = Tok::kComma; return t;
    case ';': t.kind = Tok::kSemicolon; return t;
    case '.': t.kind = Tok::kDot; return t;
    case '?': t.kind = Tok::kQuestion; return t;
    case ':': t.kind = Tok::kColon; return t;
    case '^': t.kind = Tok::kCaret; return t;
    case '+': t.kind = Tok::kPlus; return t;
    case '-': t.kind = Tok::kMinus; return t;
    case '*': t.kind = Tok::kStar; return t;
    case '/': t.kind = Tok::kSlash; return t;
    case '%': t.kind = Tok::kPercent; return t;
    case '~': t.kind = Tok::kTilde; return t;
    case '|':
      if (peek() == '|') {
        advance();
        t.kind = Tok::kOrOr;
      } else {
        t.kind = Tok::kBar;
      }
      return t;
    case '&':
      if (peek() == '&') {
        advance();
        t.kind = Tok::kAndAnd;
      } else {
        t.kind = Tok::kAmp;
      }
      return t;
    case '!':
      if (peek() == '=') {
        advance();
        t.kind = Tok::kNe;
      } else {
        t.kind = Tok::kBang;
      }
      return t;
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
      return t;
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
      return t;
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
      return t;
    default: break;
  }
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
  return t;
}

Token Lexer::number(Token t) {
  size_t start = pos_;
  bool is_real = false;
  bool hex = false;
  if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
    hex = true;
    advance();
    advance();
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
  std::string text(src_.substr(start, pos_ - start));
  if (is_real) {
    t.kind = Tok::kReal;
    t.real_value = std::strtod(text.c_str(), nullptr);
    return t;
  }
  t.kind = Tok::kInteger;
  errno = 0;
  int base = hex ? 16 : (text.size() > 1 && text[0] == '0' ? 8 : 10);
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, base);
  // Out-of-range literals read as 0, as HTCondor's lexer leaves them.
  if (errno == ERANGE || (end && *end != '\0')) v = 0;
  t.int_value = v;
  return t;
}

Token Lexer::string_literal(Token t) {
  advance();  // opening quote
  std::string out;
  for (;;) {
    if (pos_ >= src_.size()) {
      t.kind = Tok::kError;
      err_ = "unterminated string";
      return t;
    }
    char c = src_[pos_];
    if (c == '"') {
      advance();
      break;
    }
    if (c != '\\') {
      out += c;
      advance();
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
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        int v = e - '0';
        // Up to three octal digits; a leading 4-7 allows only two.
        int max_digits = (e <= '3') ? 2 : 1;
        for (int k = 0; k < max_digits && peek() >= '0' && peek() <= '7'; ++k) {
          v = v * 8 + (peek() - '0');
          advance();
        }
        out += static_cast<char>(v);
        break;
      }
      default: out += e; break;  // \\ \" \' \? and unknown escapes drop the backslash
    }
  }
  t.kind = Tok::kString;
  t.text = std::move(out);
  return t;
}

Token Lexer::quoted_name(Token t) {
  std::string out;
  // Adjacent quoted pieces join: 'it''s' names the attribute it's.
  bool first = true;
  while (peek() == '\'') {
    if (!first) out += '\'';
    first = false;
    advance();
    for (;;) {
      if (pos_ >= src_.size()) {
        t.kind = Tok::kError;
        err_ = "unterminated quoted attribute name";
        return t;
      }
      char c = src_[pos_];
      if (c == '\'') {
        advance();
        break;
      }
      if (c == '\\' && pos_ + 1 < src_.size()) {
        advance();
        out += src_[pos_];
        advance();
        continue;
      }
      out += c;
      advance();
    }
  }
  t.kind = Tok::kName;
  t.quoted_name = true;
  t.text = std::move(out);
  return t;
}

}  // namespace kite::classad
