// Compact rows of projected ads (see ad_rows.h).
#include "agent/core/ad_rows.h"

#include <strings.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "policy/classad/expr.h"
#include "policy/classad/intern.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::core {
namespace {

// A real as the JSON writer prints it (policy/classad/json.cc), so it reads back to the same
// double as the JSON text would: zero as %.1f, else %.16G.
void append_real(std::string* out, double r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, r == 0.0 ? "%.1f" : "%.16G", r);
  *out += buf;
}

// tag, the number, then `end` (no printf: this runs for every value of 10,000 rows).
void append_number(std::string* out, char tag, long long n, char end) {
  char buf[32];
  buf[0] = tag;
  char* stop = std::to_chars(buf + 1, buf + sizeof buf - 1, n).ptr;
  *stop++ = end;
  out->append(buf, static_cast<size_t>(stop - buf));
}

void append_len(std::string* out, char tag, std::string_view bytes) {
  append_number(out, tag, static_cast<long long>(bytes.size()), ':');
  out->append(bytes.data(), bytes.size());
}

class RowReader {
 public:
  RowReader(std::string_view s, std::string* err) : s_(s), err_(err) {}
  bool done() const { return pos_ >= s_.size(); }
  size_t pos() const { return pos_; }
  std::string_view since(size_t at) const { return s_.substr(at, pos_ - at); }
  bool fail(const char* what) {
    *err_ = "query reply rows: " + std::string(what) + " at byte " + std::to_string(pos_);
    return false;
  }
  bool get(char* c) {
    if (pos_ >= s_.size()) return false;
    *c = s_[pos_++];
    return true;
  }
  // Digits up to `end` (',' or ':'), as text.
  bool token(char end, std::string_view* out) {
    size_t stop = s_.find(end, pos_);
    if (stop == std::string_view::npos || stop - pos_ > 40) return false;
    *out = s_.substr(pos_, stop - pos_);
    pos_ = stop + 1;
    return !out->empty();
  }
  bool bytes(std::string_view* out) {
    std::string_view len;
    if (!token(':', &len)) return false;
    size_t v = 0;
    auto got = std::from_chars(len.data(), len.data() + len.size(), v);
    if (got.ec != std::errc() || got.ptr != len.data() + len.size() || v > s_.size() - pos_)
      return false;
    *out = s_.substr(pos_, v);
    pos_ += v;
    return true;
  }

 private:
  std::string_view s_;
  std::string* err_;
  size_t pos_ = 0;
};

// Moves past one value (its tag first); false when it is malformed.
bool skip_value(RowReader* r) {
  char tag = 0;
  std::string_view body;
  if (!r->get(&tag)) return false;
  switch (tag) {
    case '-':
    case 'u':
    case 't':
    case 'f': return true;
    case 'i':
    case 'r':
    case 'd': return r->token(',', &body);
    case 's':
    case 'e': return r->bytes(&body);
    case '=': return true;
    default: return false;
  }
}

// Whether `n` bytes at `a` and `b` are the same, 8 at a time: a value is a few bytes to a few
// dozen, compared 13 times a row (a call to memcmp each time cost more than the comparing).
bool same_bytes(const char* a, const char* b, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    if (x != y) return false;
  }
  for (; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// The integer of an 'i' or 'd' value's text (its tag, digits and ','); false when malformed.
bool int_of(std::string_view text, long long* n) {
  const char* end = text.data() + text.size() - 1;  // before the ','
  auto got = std::from_chars(text.data() + 1, end, *n);
  return got.ec == std::errc() && got.ptr == end;
}

// The value a whole value's text (as skip_value passed it) stands for; null when it is an
// absent attribute ('-'), with *ok false when it is malformed.
classad::Expr* make_value(std::string_view text, bool* ok) {
  *ok = true;
  char tag = text[0];
  std::string_view body = text.substr(1);
  switch (tag) {
    case '-': return nullptr;
    case 'u': return new classad::LiteralExpr(classad::Value::undefined());
    case 't': return new classad::LiteralExpr(classad::Value::boolean(true));
    case 'f': return new classad::LiteralExpr(classad::Value::boolean(false));
    case 'i': {
      long long v = 0;
      const char* end = body.data() + body.size() - 1;  // before the ','
      auto got = std::from_chars(body.data(), end, v);
      if (got.ec != std::errc() || got.ptr != end) break;
      return new classad::LiteralExpr(classad::Value::integer(v));
    }
    case 'r': {
      // strtod, as the JSON reader reads reals (from_chars rounds the same, but "INF" and hex
      // forms would differ; the writer never sends them).
      std::string n(body.substr(0, body.size() - 1));
      char* stop = nullptr;
      double v = std::strtod(n.c_str(), &stop);
      if (*stop) break;
      return new classad::LiteralExpr(classad::Value::real(v));
    }
    case 's':
      return new classad::LiteralExpr(classad::Value::string(body.substr(body.find(':') + 1)));
    case 'e': {
      classad::ParseError perr;
      classad::ExprPtr e = classad::parse_expr(body.substr(body.find(':') + 1), &perr);
      if (!e) break;
      return e.release();
    }
    default: break;
  }
  *ok = false;
  return nullptr;
}

}  // namespace

bool attribute_free(const classad::Expr* e, int depth) {
  if (!e) return true;
  if (depth > 64) return false;
  switch (e->kind) {
    case classad::ExprKind::kLiteral: {
      // A list or an ad holds expressions of its own; those travel in JSON rows anyway.
      const classad::Value& v = classad::as_literal(e)->value;
      return !v.is_list() && !v.is_classad();
    }
    case classad::ExprKind::kAttr: return false;
    case classad::ExprKind::kOp: {
      const classad::OpExpr* op = classad::as_op(e);
      return attribute_free(op->a, depth + 1) && attribute_free(op->b, depth + 1) &&
             attribute_free(op->c, depth + 1);
    }
    case classad::ExprKind::kCall: {
      // eval() reads attributes named by a string.
      const classad::CallExpr* call = classad::as_call(e);
      if (call->name && call->name->len == 4 && strncasecmp(call->name->data(), "eval", 4) == 0)
        return false;
      for (uint32_t i = 0; i < call->nargs; ++i)
        if (!attribute_free(call->args[i], depth + 1)) return false;
      return true;
    }
  }
  return false;
}

namespace {

// Appends one value; false when it fits no row (an expression too, unless `exprs` and it reads
// no attribute: one that does may read attributes the row does not carry).
bool append_value(std::string* out, const classad::Expr* e, bool exprs) {
  if (!e) {
    *out += '-';
    return true;
  }
  if (e->kind != classad::ExprKind::kLiteral) {
    if (!exprs || !attribute_free(e)) return false;
    std::string text;
    classad::unparse_expr(text, e);  // as the JSON writer's \/Expr()\/ carries it
    append_len(out, 'e', text);
    return true;
  }
  const classad::Value& v = classad::as_literal(e)->value;
  if (v.is_undefined()) {
    *out += 'u';
  } else if (v.is_boolean()) {
    *out += v.as_boolean() ? 't' : 'f';
  } else if (v.is_integer()) {
    append_number(out, 'i', static_cast<long long>(v.as_integer()), ',');
  } else if (v.is_real() && std::isfinite(v.as_real())) {
    *out += 'r';
    append_real(out, v.as_real());
    *out += ',';
  } else if (v.is_string() && !(v.as_string().size() >= 6 && v.as_string()[0] == '/' &&
                                strncasecmp(v.as_string().data(), "/Expr(", 6) == 0)) {
    append_len(out, 's', v.as_string());
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool append_ad_row(std::string* out, const classad::ClassAd& ad, const std::vector<uint32_t>& ids) {
  size_t start = out->size();
  *out += 'R';
  for (uint32_t id : ids) {
    if (!append_value(out, id ? ad.lookup_id(id) : nullptr, false)) {
      out->resize(start);
      return false;
    }
  }
  *out += ';';
  return true;
}

bool RowWriter::write_row(std::string* out, const classad::ClassAd& ad,
                          const std::vector<uint32_t>& ids) {
  size_t start = out->size();
  *out += 'R';
  for (uint32_t id : ids) {
    if (!append_value(out, id ? ad.lookup_id(id) : nullptr, true)) {
      out->resize(start);
      return false;
    }
  }
  *out += ';';
  return true;
}

void RowWriter::append(std::string* out, std::string_view row) {
  if (row.empty() || row[0] != 'R') {
    out->append(row.data(), row.size());  // a JSON row: '=' still refers to the last 'R' row
    return;
  }
  std::string err;
  RowReader r(row, &err);
  char tag = 0;
  r.get(&tag);
  *out += 'R';
  for (size_t i = 0; i < prev_.size(); ++i) {
    size_t from = r.pos();
    skip_value(&r);  // the row is one write_row wrote
    std::string_view value = r.since(from);
    const Span& p = prev_[i];
    Span& n = next_[i];
    n = Span{from, value.size(), false, 0};
    if (value.size() > 1 && p.len == value.size() &&
        same_bytes(prev_row_.data() + p.at, value.data(), value.size())) {
      n.is_int = p.is_int;
      n.value = p.value;
      *out += '=';
      continue;
    }
    // Each integer is read once, as it comes, for the next row's delta.
    long long d = 0;
    n.is_int = deltas_ && value[0] == 'i' && int_of(value, &n.value);
    if (n.is_int && p.is_int && !__builtin_sub_overflow(n.value, p.value, &d)) {
      char buf[32];
      buf[0] = 'd';
      char* stop = std::to_chars(buf + 1, buf + sizeof buf - 1, d).ptr;
      *stop++ = ',';
      if (static_cast<size_t>(stop - buf) < value.size()) {
        out->append(buf, static_cast<size_t>(stop - buf));
        continue;
      }
    }
    out->append(value.data(), value.size());
  }
  *out += ';';
  prev_row_.assign(row.data(), row.size());
  prev_.swap(next_);
}

void refresh_row_ids(const std::vector<std::string>& names, std::vector<uint32_t>* ids) {
  ids->resize(names.size(), 0);
  for (size_t i = 0; i < names.size(); ++i)
    if ((*ids)[i] == 0) (*ids)[i] = classad::intern_find(names[i]);
}

void append_json_row(std::string* out, std::string_view json) {
  append_len(out, 'J', json);
  *out += ';';
}

bool read_ad_rows(std::string_view text, const std::vector<classad::InternedName>& attrs,
                  std::vector<classad::AdPtr>* out, std::string* err) {
  RowReader r(text, err);
  std::vector<classad::ClassAd::Entry> entries;
  std::vector<uint32_t> ids;
  std::vector<classad::Expr*> same(attrs.size(), nullptr);  // each column's last value
  std::vector<std::string_view> same_text(attrs.size());    // and its text in `text`
  std::vector<std::string_view> last(attrs.size());         // the column's last value text, '-' too
  // An integer sent as 'd' is read as the 'i' text it stands for, kept here (room reserved, so
  // views into it stay where they are).
  std::vector<std::string> sums(attrs.size());
  for (std::string& t : sums) t.reserve(32);
  struct Unref {
    std::vector<classad::Expr*>* v;
    ~Unref() {
      for (classad::Expr* e : *v)
        if (e) classad::expr_unref(e);
    }
  } unref{&same};
  while (!r.done()) {
    char kind = 0, c = 0;
    r.get(&kind);
    if (kind == 'J') {
      std::string_view json;
      if (!r.bytes(&json) || !r.get(&c) || c != ';') return r.fail("bad JSON row");
      classad::ParseError perr;
      classad::AdPtr ad = classad::classad_from_json(json, &perr);
      if (!ad) return r.fail(("JSON row: " + perr.message).c_str());
      out->push_back(std::move(ad));
      continue;
    }
    if (kind != 'R') return r.fail("unknown row kind");
    entries.clear();
    ids.clear();
    bool good = true, nested = false;
    for (size_t i = 0; i < attrs.size(); ++i) {
      size_t at = r.pos();
      if (!skip_value(&r)) {
        good = false;
        break;
      }
      // '=': the text of this column's value in the previous row.
      std::string_view value = r.since(at);
      if (value == "=") {
        if (last[i].empty()) {
          good = false;
          break;
        }
        value = last[i];
      } else if (value[0] == 'd') {
        long long a = 0, d = 0, sum = 0;
        if (last[i].size() < 2 || last[i][0] != 'i' || !int_of(last[i], &a) || !int_of(value, &d) ||
            __builtin_add_overflow(a, d, &sum)) {
          good = false;
          break;
        }
        if (same_text[i].data() == sums[i].data()) same_text[i] = {};  // about to change
        char buf[32];
        buf[0] = 'i';
        char* stop = std::to_chars(buf + 1, buf + sizeof buf - 1, sum).ptr;
        *stop++ = ',';
        sums[i].assign(buf, static_cast<size_t>(stop - buf));
        value = sums[i];
      }
      last[i] = value;
      if (value[0] == '-') continue;  // absent
      // A value written as the same text as this column's last one shares its tree: columns
      // such as OpSys, Arch, State and Machine repeat, and each fresh value costs allocations.
      classad::Expr* e = nullptr;
      if (value[0] == 'e') {
        // An expression gets a tree of its own (it may hold ads, whose scope is this ad).
        bool ok = true;
        e = make_value(value, &ok);
        if (!ok || !e) {
          good = false;
          break;
        }
        nested = true;
      } else if (same[i] && value == same_text[i]) {
        e = same[i];
        classad::expr_ref(e);
      } else {
        bool ok = true;
        e = make_value(value, &ok);
        if (!ok || !e) {
          good = false;
          break;
        }
        if (same[i]) classad::expr_unref(same[i]);
        same[i] = e;
        classad::expr_ref(e);
        same_text[i] = value;
      }
      entries.push_back({attrs[i].name, e});
      ids.push_back(attrs[i].id);
    }
    if (!good || !r.get(&c) || c != ';') {
      for (classad::ClassAd::Entry& en : entries) classad::expr_unref(en.expr);
      return r.fail("bad row");
    }
    classad::AdPtr ad(classad::ClassAd::make());
    ad->adopt_entries(entries.data(), ids.data(), entries.size(), nested);
    out->push_back(std::move(ad));
  }
  return true;
}

namespace {

// The value of an attribute-free expression's text as a flat value; false for a string, a list,
// an ad, an error, or an expression that reads attributes.
bool expr_value(std::string_view text, RowValue* v) {
  classad::ParseError perr;
  classad::ExprPtr e = classad::parse_expr(text, &perr);
  if (!e || !attribute_free(e.get())) return false;
  classad::AdPtr empty(classad::ClassAd::make());
  classad::Value val = empty->evaluate_expr(e.get());
  if (val.is_undefined()) {
    v->tag = 'u';
  } else if (val.is_boolean()) {
    v->tag = val.as_boolean() ? 't' : 'f';
  } else if (val.is_integer()) {
    v->tag = 'i';
    v->i = val.as_integer();
  } else if (val.is_real()) {
    v->tag = 'r';
    v->r = val.as_real();
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool read_row_values(std::string_view text, size_t columns, std::vector<RowValue>* out, bool* plain,
                     std::string* err) {
  RowReader r(text, err);
  *plain = true;
  err->clear();
  size_t first = out->size();  // this text's first value ('=' looks back within the text)
  while (!r.done()) {
    char kind = 0, c = 0;
    r.get(&kind);
    if (kind == 'J') {
      *plain = false;
      return false;
    }
    if (kind != 'R') return r.fail("unknown row kind");
    for (size_t i = 0; i < columns; ++i) {
      size_t at = r.pos();
      if (!skip_value(&r)) return r.fail("bad row");
      std::string_view value = r.since(at);
      RowValue v;
      v.tag = value[0];
      switch (v.tag) {
        case '=':
          if (out->size() < first + columns) return r.fail("bad row");
          v = (*out)[out->size() - columns];
          break;
        case 'd': {
          long long d = 0;
          if (out->size() < first + columns || !int_of(value, &d)) return r.fail("bad row");
          const RowValue& p = (*out)[out->size() - columns];
          if (p.tag != 'i' || __builtin_add_overflow(p.i, d, &v.i)) return r.fail("bad row");
          v.tag = 'i';
          break;
        }
        case 'i': {
          const char* end = value.data() + value.size() - 1;  // before the ','
          auto got = std::from_chars(value.data() + 1, end, v.i);
          if (got.ec != std::errc() || got.ptr != end) return r.fail("bad row");
          break;
        }
        case 'r': {
          // strtod, as read_ad_rows reads reals.
          char buf[48];
          size_t n = value.size() - 2;
          std::memcpy(buf, value.data() + 1, n);
          buf[n] = '\0';
          char* stop = nullptr;
          v.r = std::strtod(buf, &stop);
          if (*stop) return r.fail("bad row");
          break;
        }
        case 's': {
          std::string_view bytes = value.substr(value.find(':') + 1);
          v.s = bytes.data();
          v.n = static_cast<uint32_t>(bytes.size());
          break;
        }
        case 'e':
          // An expression that reads no attribute (MyCurrentTime = time()) has the value it
          // has in any ad; a string value, or any other expression, needs the ads path.
          if (!expr_value(value.substr(value.find(':') + 1), &v)) {
            *plain = false;
            return false;
          }
          break;
        default: break;  // '-', 'u', 't', 'f'
      }
      out->push_back(v);
    }
    if (!r.get(&c) || c != ';') return r.fail("bad row");
  }
  return true;
}

}  // namespace kite::core
