// Built-in string functions: strcat, join, substr, size, toUpper, toLower,
// strcmp, stricmp, split, splitUserName, splitSlotName and the version
// comparisons (versioncmp, versionGT/GE/LT/LE/EQ, version_in_range).
// HTCONDOR: classad-builtin-functions "strcat", "join", "substr", "size",
// "toUpper", "toLower", "strcmp", "stricmp", "split", "splitUserName",
// "splitSlotName", "versioncmp", "version_in_range".
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include <strings.h>

#include "policy/classad/classad.h"
#include "policy/classad/eval.h"
#include "policy/classad/functions.h"
#include "policy/classad/value.h"

namespace kite::classad {

// Defined in functions_math.cc.
Value builtin_to_string(const Value& v);

namespace {

// Appends a string literal element to a list being built.
void list_push_string(ListObj* l, std::string_view s) {
  l->items.push_back(new LiteralExpr(Value::string(s)));
}

// HTCONDOR: classad-builtin-functions "strcat": every argument converted to
// a string; the first UNDEFINED (ERROR) argument makes the result UNDEFINED
// (ERROR) and stops the evaluation.
void fn_strcat(const CallExpr& call, EvalContext& ctx, Value& out) {
  std::string buf;
  Value v;
  for (uint32_t i = 0; i < call.nargs; ++i) {
    ctx.eval(call.args[i], v);
    Value s = builtin_to_string(v);
    if (!s.is_string()) {
      out = s;  // UNDEFINED or ERROR
      return;
    }
    buf.append(s.as_string());
  }
  out = Value::string(buf);
}

// HTCONDOR: classad-builtin-functions "join": join(sep, a, b, ...),
// join(sep, list) or join(list). UNDEFINED items are skipped; the separator
// goes only between non-empty output (HTCondor's rule: added when the
// result so far is not empty). All items UNDEFINED gives UNDEFINED.
void fn_join(const CallExpr& call, EvalContext& ctx, Value& out) {
  uint32_t n = call.nargs;
  Value list;
  bool from_list = false;
  if (n >= 1 && n <= 2) {
    ctx.eval(call.args[n - 1], list);
    from_list = list.is_list();
  }
  // Items: the separator expression (or "" for join(list)), then the list
  // elements or the remaining arguments.
  const Expr* sep_expr = nullptr;
  const std::vector<Expr*>* elems = nullptr;
  if (from_list) {
    sep_expr = n == 2 ? call.args[0] : nullptr;
    elems = &list.as_list()->items;
  }
  size_t count = from_list ? elems->size() + 1 : n;

  std::string buf;
  std::string sep;
  bool undef = false, defined = false;
  Value v;
  for (size_t i = 0; i < count; ++i) {
    const Expr* e = from_list ? (i == 0 ? sep_expr : (*elems)[i - 1]) : call.args[i];
    if (e) {
      ctx.eval(e, v);
    } else {
      v = Value::string(std::string_view());
    }
    Value s = builtin_to_string(v);
    if (s.is_undefined()) {
      undef = true;
      continue;
    }
    if (s.is_error()) {
      out = Value::error();
      return;
    }
    if (i == 0) {
      sep.assign(s.as_string());
      continue;
    }
    if (!buf.empty()) buf += sep;
    buf.append(s.as_string());
    defined = true;
  }
  if (undef && !defined) {
    out = Value::undefined();
    return;
  }
  out = Value::string(buf);
}

// HTCONDOR: classad-builtin-functions "toUpper", "toLower": the argument as
// a string (non-strings unparsed), ASCII letters mapped, other bytes kept.
void change_case(const CallExpr& call, EvalContext& ctx, Value& out, bool upper) {
  if (call.nargs != 1) {
    out = Value::error();
    return;
  }
  Value v;
  ctx.eval(call.args[0], v);
  Value s = builtin_to_string(v);
  if (!s.is_string()) {
    out = s;
    return;
  }
  std::string buf(s.as_string());
  for (char& c : buf) {
    if (upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (!upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  out = Value::string(buf);
}

void fn_toupper(const CallExpr& call, EvalContext& ctx, Value& out) {
  change_case(call, ctx, out, true);
}
void fn_tolower(const CallExpr& call, EvalContext& ctx, Value& out) {
  change_case(call, ctx, out, false);
}

// HTCONDOR: classad-builtin-functions "substr": Perl-like; a negative offset
// counts from the end, a negative length leaves that many characters off
// the end, an explicit length of 0 gives "".
void fn_substr(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs < 2 || call.nargs > 3) {
    out = Value::error();
    return;
  }
  Value s, off, len;
  ctx.eval(call.args[0], s);
  ctx.eval(call.args[1], off);
  if (call.nargs == 3) ctx.eval(call.args[2], len);
  if (s.is_undefined() || off.is_undefined() || (call.nargs == 3 && len.is_undefined())) {
    out = Value::undefined();
    return;
  }
  if (!s.is_string() || !off.is_integer() || (call.nargs == 3 && !len.is_integer())) {
    out = Value::error();
    return;
  }
  std::string_view str = s.as_string();
  int64_t alen = static_cast<int64_t>(str.size());
  int64_t o = off.as_integer();
  int64_t l = call.nargs == 3 ? len.as_integer() : 0;
  if (o < 0) {
    o = alen + o;
    if (o < 0) o = 0;
  } else if (o >= alen) {
    o = alen;
  }
  if (l <= 0) {
    l = alen - o + l;
    if (l < 0) l = 0;
  } else if (l > alen - o) {
    l = alen - o;
  }
  if (call.nargs == 3 && len.as_integer() == 0) l = 0;
  out = Value::string(str.substr(static_cast<size_t>(o), static_cast<size_t>(l)));
}

// HTCONDOR: classad-builtin-functions "size": characters of a string,
// elements of a list, attributes of an ad.
void fn_size(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 1) {
    out = Value::error();
    return;
  }
  Value v;
  ctx.eval(call.args[0], v);
  switch (v.type()) {
    case ValueType::kUndefined: out = Value::undefined(); return;
    case ValueType::kString:
      out = Value::integer(static_cast<int64_t>(v.as_string().size()));
      return;
    case ValueType::kList:
      out = Value::integer(static_cast<int64_t>(v.as_list()->items.size()));
      return;
    case ValueType::kClassAd:
      out = Value::integer(static_cast<int64_t>(v.as_classad()->size()));
      return;
    default: out = Value::error(); return;
  }
}

// Evaluates two arguments and converts both to strings. False when `out`
// already holds the result (arity, UNDEFINED, ERROR).
bool two_strings(const CallExpr& call, EvalContext& ctx, Value& a, Value& b, Value& out) {
  if (call.nargs != 2) {
    out = Value::error();
    return false;
  }
  Value x, y;
  ctx.eval(call.args[0], x);
  ctx.eval(call.args[1], y);
  if (x.is_undefined() || y.is_undefined()) {
    out = Value::undefined();
    return false;
  }
  a = builtin_to_string(x);
  b = builtin_to_string(y);
  if (!a.is_string() || !b.is_string()) {
    out = Value::error();
    return false;
  }
  return true;
}

int sign(int r) {
  return r < 0 ? -1 : (r > 0 ? 1 : 0);
}

// HTCONDOR: classad-builtin-functions "strcmp": -1, 0 or 1; non-strings are
// compared in their string form.
void fn_strcmp(const CallExpr& call, EvalContext& ctx, Value& out) {
  Value a, b;
  if (!two_strings(call, ctx, a, b, out)) return;
  out = Value::integer(sign(std::strcmp(a.string_obj()->data(), b.string_obj()->data())));
}

// HTCONDOR: classad-builtin-functions "stricmp"
void fn_stricmp(const CallExpr& call, EvalContext& ctx, Value& out) {
  Value a, b;
  if (!two_strings(call, ctx, a, b, out)) return;
  out = Value::integer(sign(strcasecmp(a.string_obj()->data(), b.string_obj()->data())));
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// "Natural" comparison (strverscmp-like) with HTCondor's exact return
// values: runs of digits compare as numbers, more leading zeros sort first,
// otherwise the difference of the first mismatching bytes.
int natural_cmp(const char* a, const char* b) {
  size_t p = 0;
  while (a[p] && a[p] == b[p]) ++p;
  if (a[p] == b[p]) return 0;
  auto diff = [&]() {
    return static_cast<int>(static_cast<signed char>(a[p])) -
           static_cast<int>(static_cast<signed char>(b[p]));
  };
  size_t nb = p;  // start of the digit run that reaches the mismatch
  while (nb > 0 && is_digit(a[nb - 1])) --nb;
  if (nb == p && (!is_digit(a[p]) || !is_digit(b[p]))) return diff();

  size_t za = nb, zb = nb;  // ends of the leading zeros
  while (a[za] == '0') ++za;
  while (b[zb] == '0') ++zb;
  if (za > nb && !is_digit(a[za])) --za;  // a lone final zero is not leading
  if (zb > nb && !is_digit(b[zb])) --zb;
  if (za - nb != zb - nb) return static_cast<int>(zb - nb) - static_cast<int>(za - nb);
  if (za > nb) return diff();

  size_t ea = za, eb = zb;
  while (is_digit(a[ea])) ++ea;
  while (is_digit(b[eb])) ++eb;
  if (ea != eb) return static_cast<int>(ea - nb) - static_cast<int>(eb - nb);
  return diff();
}

enum class VersionOp { kCmp, kLE, kLT, kGE, kGT, kEQ };

// HTCONDOR: classad-builtin-functions "versioncmp", "versionLE", ...: the
// reference picks the comparison by the function name exactly as spelled
// (versioncmp in any case, the others case-sensitively); another spelling
// of versionGT & co. evaluates to ERROR there, and here too.
void version_common(const CallExpr& call, EvalContext& ctx, Value& out, VersionOp op,
                    const char* exact) {
  Value a, b;
  if (!two_strings(call, ctx, a, b, out)) return;
  int r = natural_cmp(a.string_obj()->data(), b.string_obj()->data());
  if (op != VersionOp::kCmp && call.name && call.name->view() != exact) {
    out = Value::error();
    return;
  }
  switch (op) {
    case VersionOp::kCmp: out = Value::integer(r); break;
    case VersionOp::kLE: out = Value::boolean(r <= 0); break;
    case VersionOp::kLT: out = Value::boolean(r < 0); break;
    case VersionOp::kGE: out = Value::boolean(r >= 0); break;
    case VersionOp::kGT: out = Value::boolean(r > 0); break;
    case VersionOp::kEQ: out = Value::boolean(r == 0); break;
  }
}

void fn_versioncmp(const CallExpr& call, EvalContext& ctx, Value& out) {
  version_common(call, ctx, out, VersionOp::kCmp, "versioncmp");
}
void fn_versionle(const CallExpr& call, EvalContext& ctx, Value& out) {
  version_common(call, ctx, out, VersionOp::kLE, "versionLE");
}
void fn_versionlt(const CallExpr& call, EvalContext& ctx, Value& out) {
  version_common(call, ctx, out, VersionOp::kLT, "versionLT");
}
void fn_versionge(const CallExpr& call, EvalContext& ctx, Value& out) {
  version_common(call, ctx, out, VersionOp::kGE, "versionGE");
}
void fn_versiongt(const CallExpr& call, EvalContext& ctx, Value& out) {
  version_common(call, ctx, out, VersionOp::kGT, "versionGT");
}
void fn_versioneq(const CallExpr& call, EvalContext& ctx, Value& out) {
  version_common(call, ctx, out, VersionOp::kEQ, "versionEQ");
}

// HTCONDOR: classad-builtin-functions "version_in_range": min <= v <= max in
// natural order; UNDEFINED bounds give UNDEFINED.
void fn_version_in_range(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 3) {
    out = Value::error();
    return;
  }
  Value v, lo, hi;
  ctx.eval(call.args[0], v);
  ctx.eval(call.args[1], lo);
  ctx.eval(call.args[2], hi);
  if (lo.is_undefined() || hi.is_undefined()) {
    out = Value::undefined();
    return;
  }
  Value sv = builtin_to_string(v), slo = builtin_to_string(lo), shi = builtin_to_string(hi);
  if (!sv.is_string() || !slo.is_string() || !shi.is_string()) {
    out = Value::error();
    return;
  }
  int l = natural_cmp(slo.string_obj()->data(), sv.string_obj()->data());
  int r = natural_cmp(sv.string_obj()->data(), shi.string_obj()->data());
  out = Value::boolean(l <= 0 && r <= 0);
}

bool c_isspace(int c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

// HTCONDOR: classad-builtin-functions "split": items between separator
// characters (default ", \t"). Empty items are dropped, except that a
// repeated non-space separator ("a,,b") yields an empty item.
void fn_split(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 1 && call.nargs != 2) {
    out = Value::error();
    return;
  }
  Value s, sepv;
  ctx.eval(call.args[0], s);
  if (call.nargs == 2) ctx.eval(call.args[1], sepv);
  if (!s.is_string() || (call.nargs == 2 && !sepv.is_string())) {
    out = Value::error();
    return;
  }
  std::string_view str = s.as_string();
  std::string_view seps = call.nargs == 2 ? sepv.as_string() : std::string_view(", \t");
  ListObj* l = ListObj::make();
  size_t last = 0;
  if (!seps.empty()) {
    int prev = -1;  // last non-space separator seen
    size_t ix = str.find_first_of(seps, last);
    while (ix < str.size()) {
      int ch = static_cast<signed char>(str[ix]);
      if (ix > last) {
        list_push_string(l, str.substr(last, ix - last));
      } else if (!c_isspace(prev) && prev == ch) {
        list_push_string(l, std::string_view());
      }
      if (!c_isspace(ch)) prev = ch;
      last = ix + 1;
      ix = str.find_first_of(seps, last);
    }
  }
  if (str.size() > last) list_push_string(l, str.substr(last));
  out = Value::adopt_list(l);
}

// HTCONDOR: classad-builtin-functions "splitUserName", "splitSlotName": the
// parts before and after the first '@'; with no '@' the whole string is the
// user (splitUserName) or the machine (splitSlotName).
void split_at(const CallExpr& call, EvalContext& ctx, Value& out, bool slot) {
  if (call.nargs != 1) {
    out = Value::error();
    return;
  }
  Value s;
  ctx.eval(call.args[0], s);
  if (!s.is_string()) {
    out = Value::error();
    return;
  }
  std::string_view str = s.as_string();
  size_t at = str.find('@');
  ListObj* l = ListObj::make();
  if (at == std::string_view::npos) {
    list_push_string(l, slot ? std::string_view() : str);
    list_push_string(l, slot ? str : std::string_view());
  } else {
    list_push_string(l, str.substr(0, at));
    list_push_string(l, str.substr(at + 1));
  }
  out = Value::adopt_list(l);
}

void fn_splitusername(const CallExpr& call, EvalContext& ctx, Value& out) {
  split_at(call, ctx, out, false);
}
void fn_splitslotname(const CallExpr& call, EvalContext& ctx, Value& out) {
  split_at(call, ctx, out, true);
}

}  // namespace

FunctionTable functions_string() {
  static const FunctionEntry k[] = {
      {"strcat", fn_strcat},
      {"join", fn_join},
      {"substr", fn_substr},
      {"size", fn_size},
      {"toUpper", fn_toupper},
      {"toLower", fn_tolower},
      {"strcmp", fn_strcmp},
      {"stricmp", fn_stricmp},
      {"versioncmp", fn_versioncmp},
      {"versionLE", fn_versionle},
      {"versionLT", fn_versionlt},
      {"versionGE", fn_versionge},
      {"versionGT", fn_versiongt},
      {"versionEQ", fn_versioneq},
      {"version_in_range", fn_version_in_range},
      {"split", fn_split},
      {"splitUserName", fn_splitusername},
      {"splitSlotName", fn_splitslotname},
  };
  return {k, sizeof k / sizeof k[0]};
}

}  // namespace kite::classad
