// Tokenizer for ClassAd text (internal to the parser).
#pragma once

#include <cstdint>
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
  // Scans the next token into `t` (reusing its buffers); on kError, `err`
  // says why.
  void next(Token& t) {
    scan(t);
    prev_ = t.kind;
  }
  const std::string& error() const { return err_; }
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

 private:
  // Spaces are skipped inline; comments (rare) out of line.
  bool skip_space_and_comments() {
    const char* p = src_.data() + pos_;
    const char* end = src_.data() + src_.size();
    while (p < end && is_space(*p)) ++p;
    pos_ = static_cast<size_t>(p - src_.data());
    if (p + 1 < end && p[0] == '/' && (p[1] == '/' || p[1] == '*')) return skip_comments();
    return true;
  }
  static bool is_space(char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
  }
  bool skip_comments();
  void name_or_keyword(Token& t);
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
