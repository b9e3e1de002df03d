// JSON encoding and decoding of ClassAds in HTCondor's convention: literal
// values map to JSON values, other expressions travel as "\/Expr(...)\/"
// strings. HTCONDOR: src/classad/jsonSink.cpp (output), jsonSource.cpp and
// the JSON mode of lexer.cpp (input).
//
// Both directions are hand-written rather than built on cJSON: HTCondor's
// layout (two-space indent, `[\n  ]` for an empty list, "\/" only inside the
// Expr wrapper, %.16G reals) is not what cJSON prints, and cJSON's reader
// cannot tell 1 from 1.0, rounds integers beyond 2^53 and reports errors
// through a global pointer without line or column.
#include "policy/classad/json.h"

#include <strings.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "policy/classad/unparse.h"

namespace kite::classad {
namespace {

// ---------------------------------------------------------------- encoding

class JsonWriter {
 public:
  JsonWriter(std::string& out, bool pretty) : out_(out), pretty_(pretty) {}

  void ad(const ClassAd& ad);
  void expr(const Expr* e);
  void value(const Value& v);

 private:
  void list(const ListObj* l);
  void newline_indent() {
    out_ += '\n';
    out_.append(static_cast<size_t>(indent_), ' ');
  }
  void escaped(std::string_view s);
  // "\/Expr(<text>)\/" with <text> escaped as a JSON string body.
  void quoted_expr(std::string_view text) {
    out_ += "\"\\/Expr(";
    escaped(text);
    out_ += ")\\/\"";
  }
  void real(double r);

  std::string& out_;
  bool pretty_;
  int indent_ = 0;
};

// HTCONDOR: jsonSink escapes quote, backslash, \b \f \n \r \t, and other
// bytes below 0x20 as \u00XX; everything else (UTF-8 included) passes through.
void JsonWriter::escaped(std::string_view s) {
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out_ += "\\\""; continue;
      case '\\': out_ += "\\\\"; continue;
      case '\b': out_ += "\\b"; continue;
      case '\f': out_ += "\\f"; continue;
      case '\n': out_ += "\\n"; continue;
      case '\r': out_ += "\\r"; continue;
      case '\t': out_ += "\\t"; continue;
      default: break;
    }
    if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", c);
      out_ += buf;
      continue;
    }
    out_ += ch;
  }
}

// HTCONDOR: jsonSink prints zero as %.1f (keeps -0.0), non-finite values as
// quoted real("...") expressions, and everything else as %.16G with ".0"
// added when the text would read as an integer (`43888.0`).
void JsonWriter::real(double r) {
  char buf[64];
  if (r == 0.0) {
    std::snprintf(buf, sizeof buf, "%.1f", r);
    out_ += buf;
  } else if (std::isnan(r)) {
    quoted_expr("real(\"NaN\")");
  } else if (std::isinf(r)) {
    quoted_expr(r < 0 ? "real(\"-INF\")" : "real(\"INF\")");
  } else {
    std::snprintf(buf, sizeof buf, "%.16G", r);
    if (buf[std::strcspn(buf, ".Ee")] == '\0') std::strcat(buf, ".0");
    out_ += buf;
  }
}

void JsonWriter::value(const Value& v) {
  switch (v.type()) {
    case ValueType::kUndefined: out_ += "null"; return;
    case ValueType::kError: quoted_expr("error"); return;
    case ValueType::kBoolean: out_ += v.as_boolean() ? "true" : "false"; return;
    case ValueType::kInteger: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v.as_integer()));
      out_ += buf;
      return;
    }
    case ValueType::kReal: real(v.as_real()); return;
    case ValueType::kString:
      out_ += '"';
      escaped(v.as_string());
      out_ += '"';
      return;
    case ValueType::kList: list(v.as_list()); return;
    case ValueType::kClassAd: ad(*v.as_classad()); return;
    case ValueType::kAbsTime:
    case ValueType::kRelTime: {
      // HTCONDOR: times travel as quoted absTime("...") / relTime("...").
      std::string text;
      unparse_value(text, v);
      quoted_expr(text);
      return;
    }
  }
}

void JsonWriter::list(const ListObj* l) {
  out_ += '[';
  indent_ += 2;
  bool first = true;
  for (const Expr* item : l->items) {
    if (!first) out_ += ',';
    first = false;
    if (pretty_) newline_indent();
    expr(item);
  }
  indent_ -= 2;
  if (pretty_) newline_indent();
  out_ += ']';
}

void JsonWriter::ad(const ClassAd& ad) {
  // condor_q -json and condor_status -json list attributes in
  // case-insensitive alphabetical order (GlobalJobId before GPUsProvisioned).
  // By position: a stored ad's packed integers are printed as they are, not made nodes.
  std::vector<uint32_t> order(ad.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const ClassAd::Entries entries = ad.entries();
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return strcasecmp(ad.name_at(a)->data(), ad.name_at(b)->data()) < 0;
  });
  out_ += '{';
  indent_ += 2;
  bool first = true;
  for (uint32_t i : order) {
    if (!first) out_ += ',';
    first = false;
    if (pretty_) newline_indent();
    out_ += '"';
    escaped(ad.name_at(i)->view());
    out_ += "\": ";
    int64_t packed;
    if (ad.packed_at(i, &packed)) {
      value(Value::integer(packed));
    } else {
      expr(entries[i].expr);
    }
  }
  indent_ -= 2;
  if (pretty_) newline_indent();
  out_ += '}';
}

void JsonWriter::expr(const Expr* e) {
  if (e->kind == ExprKind::kLiteral) {
    value(as_literal(e)->value);
    return;
  }
  // Kite parses `-1` as unary minus on 1; HTCondor's lexer reads it as the
  // literal -1 and prints a JSON number, so fold that case back.
  if (e->kind == ExprKind::kOp && e->op == Op::kUnaryMinus &&
      as_op(e)->a->kind == ExprKind::kLiteral) {
    const Value& v = as_literal(as_op(e)->a)->value;
    if (v.is_integer() && v.as_integer() >= 0) {
      value(Value::integer(-v.as_integer()));
      return;
    }
    if (v.is_real()) {
      value(Value::real(-v.as_real()));
      return;
    }
  }
  std::string text;
  unparse_expr(text, e);
  quoted_expr(text);
}

// ---------------------------------------------------------------- decoding

// Deep enough for any real ad; shallow enough that hostile input cannot
// overflow the stack (matches the expression parser's limit).
constexpr int kMaxDepth = 256;

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : s_(text) {}

  ClassAd* object();                       // at '{'; null on error
  bool attrs(std::vector<JsonAttr>& out);  // at '{': the members, no ad built
  bool array_of_ads(std::vector<AdPtr>& out);
  bool skip_space();  // false on an unterminated comment
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool failed() const { return failed_; }
  const ParseError& error() const { return err_; }
  void fail(const std::string& msg) { fail_at(pos_, msg); }
  void fail_at(size_t pos, const std::string& msg);

 private:
  Expr* value();
  Expr* array();
  Expr* string_value();
  Expr* number();
  Expr* word();
  bool string_raw(std::string& decoded, size_t& raw_begin, size_t& raw_end);
  bool hex4(uint32_t& out);
  static void append_utf8(std::string& out, uint32_t cp);
  std::string describe_here() const;

  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool failed_ = false;
  ParseError err_;
};

void JsonReader::fail_at(size_t pos, const std::string& msg) {
  if (failed_) return;
  failed_ = true;
  int line = 1;
  int col = 1;
  for (size_t i = 0; i < pos && i < s_.size(); ++i) {
    if (s_[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  err_.line = line;
  err_.column = col;
  err_.message = msg;
}

std::string JsonReader::describe_here() const {
  if (at_end()) return "end of input";
  switch (peek()) {
    case '{': return "'{'";
    case '}': return "'}'";
    case '[': return "'['";
    case ']': return "']'";
    case ',': return "','";
    case ':': return "':'";
    case '"': return "a string";
    default: break;
  }
  unsigned char c = static_cast<unsigned char>(peek());
  char buf[16];
  if (c > 0x20 && c < 0x7f) {
    std::snprintf(buf, sizeof buf, "'%c'", c);
  } else {
    std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
  }
  return buf;
}

// Whitespace and, as HTCondor's lexer allows, // and /* */ comments.
bool JsonReader::skip_space() {
  while (pos_ < s_.size()) {
    char c = s_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/') {
      while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
    } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '*') {
      size_t start = pos_;
      size_t close = s_.find("*/", pos_ + 2);
      if (close == std::string_view::npos) {
        fail_at(start, "unterminated comment");
        return false;
      }
      pos_ = close + 2;
    } else {
      break;
    }
  }
  return true;
}

ClassAd* JsonReader::object() {
  // The members first, so the ad's vectors are made to size (ads are often kept long, and
  // shrink_to_fit does nothing without exceptions).
  std::vector<JsonAttr> members;
  if (!attrs(members)) {
    for (JsonAttr& a : members) expr_unref(a.expr);
    return nullptr;
  }
  ClassAd* ad = ClassAd::make();
  ad->reserve(members.size());
  for (const JsonAttr& a : members) classad_insert_attr(*ad, a);  // a repeated name replaces
  return ad;
}

// At '{': reads the members up to the closing '}' into `out` (each name and
// its parsed value, a reference); on failure `out` holds those read so far.
bool JsonReader::attrs(std::vector<JsonAttr>& out) {
  if (++depth_ > kMaxDepth) {
    fail("objects nested too deeply");
    return false;
  }
  ++pos_;  // '{'
  std::string name;
  for (;;) {
    if (!skip_space()) return false;
    char c = peek();
    if (c == '}') break;
    // HTCONDOR: jsonSource skips stray commas between attributes.
    if (c == ',') {
      ++pos_;
      continue;
    }
    if (c != '"') {
      fail(std::string("expected an attribute name (a string) or '}', found ") + describe_here());
      return false;
    }
    size_t name_pos = pos_;
    name.clear();
    size_t raw_begin = 0;
    size_t raw_end = 0;
    if (!string_raw(name, raw_begin, raw_end)) return false;
    if (name.empty()) {
      fail_at(name_pos, "empty attribute name");
      return false;
    }
    if (name.find('\0') != std::string::npos) {
      fail_at(name_pos, "NUL byte in attribute name");
      return false;
    }
    if (!skip_space()) return false;
    if (peek() != ':') {
      fail(std::string("expected ':' after attribute name \"") + name + "\", found " +
           describe_here());
      return false;
    }
    ++pos_;
    if (!skip_space()) return false;
    Expr* e = value();
    if (!e) return false;
    out.push_back(JsonAttr{intern_name(name), e});
    if (!skip_space()) return false;
    c = peek();
    if (c != ',' && c != '}') {
      fail(std::string("expected ',' or '}' after the value of \"") + name + "\", found " +
           describe_here());
      return false;
    }
  }
  ++pos_;  // '}'
  --depth_;
  return true;
}

Expr* JsonReader::value() {
  switch (peek()) {
    case '{': {
      ClassAd* ad = object();
      if (!ad) return nullptr;
      return new LiteralExpr(Value::adopt_classad(ad));
    }
    case '[': return array();
    case '"': return string_value();
    default: break;
  }
  char c = peek();
  if (c == '-' || c == '.' || (c >= '0' && c <= '9')) return number();
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return word();
  fail(std::string("expected a value, found ") + describe_here());
  return nullptr;
}

Expr* JsonReader::array() {
  if (++depth_ > kMaxDepth) {
    fail("arrays nested too deeply");
    return nullptr;
  }
  ++pos_;  // '['
  ListObj* list = ListObj::make();
  Value holder = Value::adopt_list(list);
  for (;;) {
    if (!skip_space()) return nullptr;
    if (peek() == ']') break;
    Expr* item = value();
    if (!item) return nullptr;
    list->items.push_back(item);
    if (!skip_space()) return nullptr;
    // HTCONDOR: a comma before the closing ']' is accepted.
    if (peek() == ',') {
      ++pos_;
    } else if (peek() != ']') {
      fail(std::string("expected ',' or ']' in array, found ") + describe_here());
      return nullptr;
    }
  }
  ++pos_;  // ']'
  --depth_;
  return new LiteralExpr(static_cast<Value&&>(holder));
}

bool JsonReader::hex4(uint32_t& out) {
  if (pos_ + 4 > s_.size()) return false;
  out = 0;
  for (int i = 0; i < 4; ++i) {
    char c = s_[pos_ + i];
    uint32_t d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return false;
    }
    out = out * 16 + d;
  }
  pos_ += 4;
  return true;
}

void JsonReader::append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// At '"'. Decodes the string into `decoded`; [raw_begin, raw_end) is the
// undecoded text between the quotes.
bool JsonReader::string_raw(std::string& decoded, size_t& raw_begin, size_t& raw_end) {
  size_t start = pos_;
  ++pos_;
  raw_begin = pos_;
  for (;;) {
    if (pos_ >= s_.size()) {
      fail_at(start, "unterminated string");
      return false;
    }
    char c = s_[pos_];
    if (c == '"') break;
    if (c != '\\') {
      // A run of plain characters at once (HTCondor accepts raw control characters too).
      size_t end = pos_ + 1;
      while (end < s_.size() && s_[end] != '"' && s_[end] != '\\') ++end;
      decoded.append(s_.data() + pos_, end - pos_);
      pos_ = end;
      continue;
    }
    size_t esc = pos_;
    ++pos_;
    if (pos_ >= s_.size()) {
      fail_at(start, "unterminated string");
      return false;
    }
    char e = s_[pos_++];
    switch (e) {
      case '"': decoded += '"'; break;
      case '\\': decoded += '\\'; break;
      case '/': decoded += '/'; break;
      case 'b': decoded += '\b'; break;
      case 'f': decoded += '\f'; break;
      case 'n': decoded += '\n'; break;
      case 'r': decoded += '\r'; break;
      case 't': decoded += '\t'; break;
      case 'u': {
        uint32_t cp;
        if (!hex4(cp)) {
          fail_at(esc, "bad \\u escape (expected four hex digits)");
          return false;
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo;
          if (pos_ + 1 < s_.size() && s_[pos_] == '\\' && s_[pos_ + 1] == 'u') {
            pos_ += 2;
            if (!hex4(lo) || lo < 0xDC00 || lo > 0xDFFF) {
              fail_at(esc, "bad \\u escape (unpaired UTF-16 surrogate)");
              return false;
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else {
            fail_at(esc, "bad \\u escape (unpaired UTF-16 surrogate)");
            return false;
          }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          fail_at(esc, "bad \\u escape (unpaired UTF-16 surrogate)");
          return false;
        }
        if (cp == 0) {
          // HTCONDOR: a NUL inside a string makes the string invalid.
          fail_at(esc, "\\u0000 is not allowed in a string");
          return false;
        }
        append_utf8(decoded, cp);
        break;
      }
      default:
        // HTCONDOR: an unknown escape passes the character through.
        decoded += e;
        break;
    }
  }
  raw_end = pos_;
  ++pos_;  // closing '"'
  return true;
}

Expr* JsonReader::string_value() {
  size_t start = pos_;
  std::string s;
  size_t raw_begin = 0;
  size_t raw_end = 0;
  if (!string_raw(s, raw_begin, raw_end)) return nullptr;
  std::string_view raw = s_.substr(raw_begin, raw_end - raw_begin);
  // HTCONDOR: an expression only when the raw text starts and ends with an
  // escaped slash and the decoded text is /Expr( ... )/ (Expr in any case);
  // "/Expr(1)/" written without backslashes stays a plain string.
  bool quoted = raw.size() >= 4 && raw[0] == '\\' && raw[1] == '/' && raw[raw.size() - 2] == '\\' &&
                raw[raw.size() - 1] == '/';
  if (quoted && s.size() >= 8 && strncasecmp(s.c_str(), "/Expr(", 6) == 0 &&
      s.compare(s.size() - 2, 2, ")/") == 0) {
    ParseError perr;
    ExprPtr e = parse_expr(std::string_view(s).substr(6, s.size() - 8), &perr);
    if (!e) {
      fail_at(start, "bad expression in \\/Expr()\\/ string (" + perr.to_string() + ")");
      return nullptr;
    }
    return e.release();
  }
  return new LiteralExpr(Value::string(s));
}

// HTCONDOR: the JSON lexer reads [-] digits [. digits] [e [+-] digits];
// integers are base 10 (strtoll, which saturates), anything with a '.' or an
// exponent is a real.
Expr* JsonReader::number() {
  size_t start = pos_;
  if (peek() == '-') ++pos_;
  auto digits = [this]() {
    size_t n = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      ++pos_;
      ++n;
    }
    return n;
  };
  size_t int_digits = digits();
  bool is_real = false;
  if (peek() == '.') {
    ++pos_;
    is_real = true;
    if (digits() == 0) {
      fail_at(start, "bad number (no digits after '.')");
      return nullptr;
    }
  } else if (int_digits == 0) {
    fail_at(start, "bad number");
    return nullptr;
  }
  if (peek() == 'e' || peek() == 'E') {
    ++pos_;
    is_real = true;
    if (peek() == '+' || peek() == '-') ++pos_;
    if (digits() == 0) {
      fail_at(start, "bad number (no digits in the exponent)");
      return nullptr;
    }
  }
  std::string text(s_.substr(start, pos_ - start));
  if (is_real) return new LiteralExpr(Value::real(std::strtod(text.c_str(), nullptr)));
  return new LiteralExpr(Value::integer(std::strtoll(text.c_str(), nullptr, 10)));
}

Expr* JsonReader::word() {
  size_t start = pos_;
  while (pos_ < s_.size()) {
    char c = s_[pos_];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
      break;
    }
    ++pos_;
  }
  std::string_view w = s_.substr(start, pos_ - start);
  auto is = [w](const char* k) {
    return w.size() == std::strlen(k) && strncasecmp(w.data(), k, w.size()) == 0;
  };
  if (is("true")) return new LiteralExpr(Value::boolean(true));
  if (is("false")) return new LiteralExpr(Value::boolean(false));
  if (is("null")) return new LiteralExpr(Value::undefined());
  fail_at(start, "expected a value, found '" + std::string(w.substr(0, 40)) + "'");
  return nullptr;
}

bool JsonReader::array_of_ads(std::vector<AdPtr>& out) {
  if (peek() != '[') {
    fail(std::string("expected '[' (a list of ads), found ") + describe_here());
    return false;
  }
  ++pos_;
  for (;;) {
    if (!skip_space()) return false;
    if (peek() == ']') break;
    if (peek() != '{') {
      fail(std::string("expected '{' (an ad) in the list, found ") + describe_here());
      return false;
    }
    ClassAd* ad = object();
    if (!ad) return false;
    out.emplace_back(ad);
    if (!skip_space()) return false;
    if (peek() == ',') {
      ++pos_;
    } else if (peek() != ']') {
      fail(std::string("expected ',' or ']' after an ad, found ") + describe_here());
      return false;
    }
  }
  ++pos_;
  return true;
}

}  // namespace

void classad_append_json(std::string& out, const ClassAd& ad, bool pretty) {
  JsonWriter w(out, pretty);
  w.ad(ad);
}

std::string classad_to_json(const ClassAd& ad, bool pretty) {
  std::string out;
  classad_append_json(out, ad, pretty);
  return out;
}

std::string classads_to_json(std::span<const ClassAd* const> ads, bool pretty) {
  std::string out = pretty ? "[\n" : "[";
  bool first = true;
  for (const ClassAd* ad : ads) {
    if (!first) out += pretty ? ",\n" : ",";
    first = false;
    classad_append_json(out, *ad, pretty);
  }
  out += (pretty && !ads.empty()) ? "\n]" : "]";
  return out;
}

AdPtr classad_from_json(std::string_view text, ParseError* err) {
  JsonReader r(text);
  AdPtr ad;
  if (r.skip_space()) {
    if (r.peek() != '{') {
      r.fail(r.at_end() ? "expected '{' (an ad), found end of input"
                        : "expected '{' (an ad) at the start of the input");
    } else {
      ad = AdPtr(r.object());
      if (ad && r.skip_space() && !r.at_end()) r.fail("unexpected text after the ad");
    }
  }
  if (r.failed()) {
    if (err) *err = r.error();
    return AdPtr();
  }
  return ad;
}

void classad_insert_attr(ClassAd& ad, const JsonAttr& a) {
  // Plain literals hold no ad literal whose parent scope would need setting.
  const bool plain = a.expr->kind == ExprKind::kLiteral && !as_literal(a.expr)->value.is_list() &&
                     !as_literal(a.expr)->value.is_classad();
  if (plain) {
    ad.insert_plain(a.name, a.expr);
  } else {
    ad.insert(a.name, a.expr);
  }
}

bool classad_json_attrs(std::string_view text, std::vector<JsonAttr>& out, ParseError* err) {
  out.clear();
  JsonReader r(text);
  if (r.skip_space()) {
    if (r.peek() != '{') {
      r.fail(r.at_end() ? "expected '{' (an ad), found end of input"
                        : "expected '{' (an ad) at the start of the input");
    } else if (r.attrs(out) && r.skip_space() && !r.at_end()) {
      r.fail("unexpected text after the ad");
    }
  }
  if (r.failed()) {
    for (JsonAttr& a : out) expr_unref(a.expr);
    out.clear();
    if (err) *err = r.error();
    return false;
  }
  return true;
}

bool classads_from_json(std::string_view text, std::vector<AdPtr>& out, ParseError* err) {
  out.clear();
  JsonReader r(text);
  if (r.skip_space() && r.array_of_ads(out) && r.skip_space() && !r.at_end()) {
    r.fail("unexpected text after the list of ads");
  }
  if (r.failed()) {
    out.clear();
    if (err) *err = r.error();
    return false;
  }
  return true;
}

}  // namespace kite::classad
