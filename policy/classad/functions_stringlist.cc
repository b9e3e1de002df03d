// Built-in functions over "string lists" (one string holding items separated
// by delimiter characters): stringListSize/Sum/Avg/Min/Max, stringListMember,
// stringListIMember, stringListSubsetMatch, stringListISubsetMatch and
// stringListsIntersect. stringList_regexpMember lives with the regex group.
// HTCONDOR: classad-builtin-functions "stringListSize" ... "stringListISubsetMatch".
#include <cfloat>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/functions.h"
#include "policy/classad/stringlist_tokens.h"

namespace kite::classad {

namespace {

bool ascii_iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Evaluates the list (and optional delimiter) argument of the numeric family;
// both must be strings. False (out = error) otherwise.
bool list_and_delim(const CallExpr& call, EvalContext& ctx, Value& list, Value& delim, Value& out) {
  if (call.nargs < 1 || call.nargs > 2) {
    out = Value::error();
    return false;
  }
  ctx.eval(call.args[0], list);
  if (call.nargs == 2) ctx.eval(call.args[1], delim);
  if (!list.is_string() || (call.nargs == 2 && !delim.is_string())) {
    out = Value::error();
    return false;
  }
  return true;
}

// HTCONDOR: classad-builtin-functions "stringListSize"
void fn_size(const CallExpr& call, EvalContext& ctx, Value& out) {
  Value list, delim;
  if (!list_and_delim(call, ctx, list, delim, out)) return;
  StringTokens tokens(list.as_string(), call.nargs == 2 ? delim.as_string() : ", ");
  int64_t n = 0;
  std::string_view item;
  while (tokens.next(item)) ++n;
  out = Value::integer(n);
}

enum class Summary { kSum, kAvg, kMin, kMax };

// `(long long)d` as x86-64 computes it (out of range gives INT64_MIN).
int64_t double_to_int64(double d) {
  if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<int64_t>(d);
}

// HTCONDOR: classad-builtin-functions "stringListSum", "stringListAvg",
// "stringListMin", "stringListMax". Items are read as numbers the way
// sscanf("%lf") does; any item with a character other than digits and signs
// makes the result real. Like the reference, min starts from FLT_MAX and max
// from FLT_MIN (the smallest positive float), so the max of negative items is
// that tiny positive number.
template <Summary S>
void fn_summary(const CallExpr& call, EvalContext& ctx, Value& out) {
  Value list, delim;
  if (!list_and_delim(call, ctx, list, delim, out)) return;
  double acc = S == Summary::kMin ? FLT_MAX : (S == Summary::kMax ? FLT_MIN : 0.0);
  bool is_real = false;
  int64_t count = 0;
  StringTokens tokens(list.as_string(), call.nargs == 2 ? delim.as_string() : ", ");
  std::string_view item;
  std::string buf;
  while (tokens.next(item)) {
    ++count;
    buf.assign(item);
    char* end = nullptr;
    double v = std::strtod(buf.c_str(), &end);
    if (end == buf.c_str()) {
      out = Value::error();
      return;
    }
    if (std::strspn(buf.c_str(), "+-0123456789") != buf.size()) is_real = true;
    switch (S) {
      case Summary::kSum:
      case Summary::kAvg: acc = v + acc; break;
      case Summary::kMin: acc = v < acc ? v : acc; break;
      case Summary::kMax: acc = v > acc ? v : acc; break;
    }
  }
  if (count == 0) {
    out = (S == Summary::kSum || S == Summary::kAvg) ? Value::real(0.0) : Value::undefined();
    return;
  }
  if (S == Summary::kAvg) acc /= static_cast<double>(count);
  out = is_real ? Value::real(acc) : Value::integer(double_to_int64(acc));
}

// HTCONDOR: classad-builtin-functions "stringListMember", "stringListIMember",
// "stringListSubsetMatch", "stringListISubsetMatch". UNDEFINED arguments act
// as empty strings, unless both the item/list1 and the list are UNDEFINED.
template <bool kSubset, bool kCaseless>
void fn_member(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs < 2 || call.nargs > 3) {
    out = Value::error();
    return;
  }
  Value a, b, d;
  ctx.eval(call.args[0], a);
  ctx.eval(call.args[1], b);
  if (call.nargs == 3) ctx.eval(call.args[2], d);
  auto ok = [](const Value& v) { return v.is_undefined() || v.is_string(); };
  if (!ok(a) || !ok(b) || (call.nargs == 3 && !ok(d))) {
    out = Value::error();
    return;
  }
  if (a.is_undefined() && b.is_undefined()) {
    out = Value::undefined();
    return;
  }
  std::string_view item = a.is_string() ? a.as_string() : std::string_view();
  std::string_view list = b.is_string() ? b.as_string() : std::string_view();
  std::string_view delims = d.is_string() ? d.as_string() : std::string_view(", \t\r\n");
  auto same = [](std::string_view x, std::string_view y) {
    return kCaseless ? ascii_iequal(x, y) : x == y;
  };
  auto in_list = [&](std::string_view want) {
    StringTokens tokens(list, delims);
    std::string_view tok;
    while (tokens.next(tok)) {
      if (same(tok, want)) return true;
    }
    return false;
  };
  if (!kSubset) {
    out = Value::boolean(in_list(item));
    return;
  }
  if (item.empty()) {  // the empty set is a subset of anything
    out = Value::boolean(true);
    return;
  }
  // Like the reference, a list1 with no items at all (only delimiters) is
  // not a subset: the answer starts false and only items can make it true.
  bool found = false;
  StringTokens items(item, delims);
  std::string_view tok;
  while (items.next(tok)) {
    found = in_list(tok);
    if (!found) break;
  }
  out = Value::boolean(found);
}

// Tokens of stringListsIntersect: split on any delimiter character (default
// " ,"), no whitespace trimming, empty items dropped.
bool next_raw_token(std::string_view& rest, std::string_view delims, std::string_view& tok) {
  size_t start = 0;
  while (start < rest.size() && delims.find(rest[start]) != std::string_view::npos) ++start;
  if (start == rest.size()) return false;
  size_t end = start;
  while (end < rest.size() && delims.find(rest[end]) == std::string_view::npos) ++end;
  tok = rest.substr(start, end - start);
  rest.remove_prefix(end);
  return true;
}

// HTCONDOR: classad-builtin-functions "stringListsIntersect"
void fn_intersect(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs < 2 || call.nargs > 3) {
    out = Value::error();
    return;
  }
  Value a, b, d;
  ctx.eval(call.args[0], a);
  ctx.eval(call.args[1], b);
  if (call.nargs == 3) ctx.eval(call.args[2], d);
  if (a.is_error() || b.is_error() || (call.nargs == 3 && d.is_error())) {
    out = Value::error();
    return;
  }
  if (a.is_undefined() || b.is_undefined() || (call.nargs == 3 && d.is_undefined())) {
    out = Value::undefined();
    return;
  }
  if ((call.nargs == 3 && !d.is_string()) || !a.is_string() || !b.is_string()) {
    out = Value::error();
    return;
  }
  std::string_view delims = call.nargs == 3 ? d.as_string() : std::string_view();
  if (delims.empty()) delims = " ,";
  // The strings end at a NUL, as C strings do.
  auto cstr = [](std::string_view s) { return s.substr(0, std::min(s.find('\0'), s.size())); };
  std::string_view rest1 = cstr(a.as_string());
  std::string_view t1;
  while (next_raw_token(rest1, delims, t1)) {
    std::string_view rest2 = cstr(b.as_string());
    std::string_view t2;
    while (next_raw_token(rest2, delims, t2)) {
      if (t1 == t2) {
        out = Value::boolean(true);
        return;
      }
    }
  }
  out = Value::boolean(false);
}

}  // namespace

FunctionTable functions_stringlist() {
  static const FunctionEntry k[] = {
      {"stringListSize", fn_size},
      {"stringListSum", fn_summary<Summary::kSum>},
      {"stringListAvg", fn_summary<Summary::kAvg>},
      {"stringListMin", fn_summary<Summary::kMin>},
      {"stringListMax", fn_summary<Summary::kMax>},
      {"stringListMember", fn_member<false, false>},
      {"stringListIMember", fn_member<false, true>},
      {"stringListSubsetMatch", fn_member<true, false>},
      {"stringListISubsetMatch", fn_member<true, true>},
      {"stringListsIntersect", fn_intersect},
  };
  return {k, sizeof k / sizeof k[0]};
}

}  // namespace kite::classad
