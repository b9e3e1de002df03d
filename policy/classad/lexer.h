// Tokenizer for ClassAd text (internal to the parser).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace kite::classad {

enum class Tok : uint8_t {
  kEnd,
  kError,
  kInteger,
  kReal,
  kString,
  kName,  // identifier or 'quoted name'
  kTrue,
  kFalse,
  kUndefined,
  kErrorKw,
  kIs,
  kIsnt,
  kLParen,
  kRParen,
  kLBrace,
  kRBrace,
  kLBracket,
  kRBracket,
  kComma,
  kSemicolon,
  kDot,
  kQuestion,
  kColon,
  kAssign,  // =
  kOrOr,
  kAndAnd,
  kBar,
  kCaret,
  kAmp,
  kEq,
  kNe,
  kMetaEq,
  kMetaNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kShl,
  kShr,
  kShrU,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kBang,
  kTilde,
};

// Character classes, one table lookup per byte.
enum : uint8_t {
  kIdentStart = 1,
  kIdentChar = 2,
  kDigit = 4,
  kSpace = 8,
  kPlainStringChar = 16,
  kOldNameChar = 32,  // old line syntax attribute names: identifier characters and '.'
};

struct CharClasses {
  uint8_t c[256];
  constexpr CharClasses() : c() {
    for (int i = 0; i < 256; ++i) {
      uint8_t v = 0;
      if ((i >= 'a' && i <= 'z') || (i >= 'A' && i <= 'Z') || i == '_')
        v |= kIdentStart | kIdentChar;
      if (i >= '0' && i <= '9') v |= kIdentChar | kDigit;
      if (i == ' ' || i == '\t' || i == '\n' || i == '\r' || i == '\f' || i == '\v') v |= kSpace;
      if (i != '"' && i != '\\' && i != '\n' && i != 0) v |= kPlainStringChar;
      if ((v & kIdentChar) || i == '.') v |= kOldNameChar;
      c[i] = v;
    }
  }
};
inline constexpr CharClasses kCharClasses;

inline bool has_class(char ch, uint8_t cls) {
  return (kCharClasses.c[static_cast<unsigned char>(ch)] & cls) != 0;
}

// Scanning 8 bytes at a time (old-syntax strings): each helper sets the high bit
// of the bytes of a little-endian word that match, exactly (no false hits
// next to a real one), so the first match is the lowest set bit.
namespace swar {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr bool kEnabled = true;
#else
constexpr bool kEnabled = false;  // the byte loops do all the work
#endif
constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;

inline uint64_t load(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline uint64_t zero_bytes(uint64_t w) {
  return ~(((w & kLow7) + kLow7) | w | kLow7);
}
inline uint64_t eq_bytes(uint64_t w, char c) {
  return zero_bytes(w ^ (kOnes * static_cast<unsigned char>(c)));
}
inline size_t first(uint64_t mask) {
  return static_cast<size_t>(__builtin_ctzll(mask)) >> 3;
}

}  // namespace swar

struct Token {
  Tok kind = Tok::kEnd;
  bool quoted_name = false;
  uint32_t offset = 0;  // where the token starts in the source
  int64_t int_value = 0;
  double real_value = 0;
  // kString: the contents (unescaped); kName: the name. A view into the
  // source when nothing had to be unescaped or joined (the common case, no
  // copy), else into the lexer's buffer, valid until the next string or
  // quoted name is scanned.
  std::string_view text;
};

class Lexer {
 public:
  // `old_strings`: strings as in HTCondor's old ad syntax, where a backslash
  // is an ordinary character except before a quote that does not end the line.
  explicit Lexer(std::string_view src, bool old_strings = false)
      : src_(src), old_strings_(old_strings) {}
  // Continues scanning at `begin` as if the source ended at `end` (the old
  // line syntax lexes one line at a time out of the whole text).
  void restart(size_t begin, size_t end) {
    src_ = std::string_view(src_.data(), end);
    pos_ = begin;
    prev_ = Tok::kEnd;
  }
  // Scans the next token into `t`; on kError, `err` says why.
  void next(Token& t) {
    scan(t);
    prev_ = t.kind;
  }
  const std::string& error() const { return err_; }
  std::string_view source() const { return src_; }
  size_t offset() const { return pos_; }
  // Line and column (1-based) of a source offset; computed only for errors.
  void position(size_t offset, int* line, int* column) const {
    int l = 1;
    size_t start = 0;
    for (size_t i = 0; i < offset && i < src_.size(); ++i) {
      if (src_[i] == '\n') {
        ++l;
        start = i + 1;
      }
    }
    *line = l;
    *column = static_cast<int>(offset - start) + 1;
  }

 private:
  void scan(Token& t);

 public:
  // The next character after spaces, without consuming anything ('\0' at end).
  char peek_nonspace() const {
    size_t p = pos_;
    while (p < src_.size() &&
           (src_[p] == ' ' || src_[p] == '\t' || src_[p] == '\n' || src_[p] == '\r')) {
      ++p;
    }
    return p < src_.size() ? src_[p] : '\0';
  }
  // Consumes `c`, a character that is a whole token by itself (';'), if it
  // comes next after spaces; records it as token `as`. Nothing is consumed
  // otherwise. Spares the parser a full token scan on the hot path.
  bool take(char c, Tok as) {
    const char* s = src_.data();
    const size_t n = src_.size();
    size_t p = pos_;
    while (p < n && has_class(s[p], kSpace)) ++p;
    if (p >= n || s[p] != c) return false;
    pos_ = p + 1;
    prev_ = as;
    return true;
  }
  // Scans the end of the text into `t` if only spaces remain.
  bool take_end(Token& t) {
    const char* s = src_.data();
    const size_t n = src_.size();
    size_t p = pos_;
    while (p < n && has_class(s[p], kSpace)) ++p;
    if (p < n) return false;
    pos_ = p;
    t.kind = Tok::kEnd;
    t.offset = static_cast<uint32_t>(p);
    t.quoted_name = false;
    prev_ = Tok::kEnd;
    return true;
  }
  // As take(), for the assignment '=' (not the start of ==, =?= or =!=).
  bool take_assign() {
    const char* s = src_.data();
    const size_t n = src_.size();
    size_t p = pos_;
    while (p < n && has_class(s[p], kSpace)) ++p;
    if (p >= n || s[p] != '=') return false;
    char c1 = p + 1 < n ? s[p + 1] : '\0';
    if (c1 == '=') return false;
    if ((c1 == '?' || c1 == '!') && p + 2 < n && s[p + 2] == '=') return false;
    pos_ = p + 1;
    prev_ = Tok::kAssign;
    return true;
  }

 private:
  static bool is_space(char c) { return has_class(c, kSpace); }
  // Comments (rare) are skipped out of line, so scan() stays small.
  [[gnu::noinline]] bool skip_comments();
  [[gnu::noinline]] void scan_after_comment(Token& t);
  [[gnu::noinline]] void unexpected_char(Token& t, char c);
  void keyword(Token& t);
  bool real_fast(size_t start, size_t end, bool negative, double& out) const;
  bool minus_starts_number() const;
  void number(Token& t);
  void string_literal(Token& t);
  void string_literal_old(Token& t);
  void string_literal_slow(Token& t);
  void string_literal_old_slow(Token& t, size_t start);
  void quoted_name(Token& t);
  bool next_piece(char quote);
  char peek(size_t k = 0) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }
  void advance() { ++pos_; }

  std::string_view src_;
  size_t pos_ = 0;
  Tok prev_ = Tok::kEnd;  // the last token scanned (decides what '-' starts)
  bool old_strings_ = false;
  std::string err_;
  std::string buf_;  // unescaped strings and quoted names (reused)
};

}  // namespace kite::classad
