// Built-in conversion and arithmetic functions: int, real, string, bool, floor,
// ceiling, round, pow, quantize, random, and the list reductions sum, avg,
// min and max. Also the value conversions the other built-in groups share.
// HTCONDOR: classad-builtin-functions "int", "real", "string", "bool", "floor",
// "ceiling", "round", "pow", "quantize", "random", "sum", "avg", "min", "max".
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>

#include <strings.h>

#include "policy/classad/eval.h"
#include "policy/classad/functions.h"
#include "policy/classad/operators.h"
#include "policy/classad/unparse.h"
#include "policy/classad/value.h"

namespace kite::classad {

// ---- shared conversions (declared where used: functions_core/string.cc) ----

// `(long long)d` as x86-64 computes it: NaN and out-of-range values give
// INT64_MIN. HTCondor converts doubles this way and its results show it
// (int("INF"), int(1e19), pow(2, 63) are all -9223372036854775808).
int64_t builtin_double_to_int64(double d) {
  if (std::isnan(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
    return INT64_MIN;
  }
  return static_cast<int64_t>(d);
}

namespace {

// HTCondor's unit suffixes on numeric strings ("10K" is 10240).
double scale_suffix(char c) {
  switch (std::toupper(static_cast<unsigned char>(c))) {
    case 'K': return 1024.0;
    case 'M': return 1024.0 * 1024.0;
    case 'G': return 1024.0 * 1024.0 * 1024.0;
    case 'T': return 1024.0 * 1024.0 * 1024.0 * 1024.0;
    default: return 1.0;  // 'B', end of string, or anything else
  }
}

// strtod over a (NUL-terminated) StringObj; false when nothing parses.
bool parse_leading_double(const Value& s, double& d, char& next) {
  const char* start = s.string_obj()->data();
  char* end = nullptr;
  d = std::strtod(start, &end);
  next = *end;
  return !(end == start && d == 0.0);
}

}  // namespace

// The string form string()/strcat()/... use: strings as they are, other
// values unparsed, times in their text form. UNDEFINED and ERROR (and
// nothing else) come back unchanged as the failure value.
Value builtin_to_string(const Value& v) {
  std::string s;
  switch (v.type()) {
    case ValueType::kUndefined:
    case ValueType::kError:
    case ValueType::kString: return v;
    case ValueType::kAbsTime:
      format_abs_time(s, v.as_abs_time().secs, v.as_abs_time().offset);
      break;
    case ValueType::kRelTime:
      // HTCondor reads the relative time as whole seconds here.
      format_rel_time(s, static_cast<double>(builtin_double_to_int64(v.as_rel_time())));
      break;
    default: unparse_value(s, v); break;
  }
  return Value::string(s);
}

// Real conversion (HTCondor's convertValueToRealValue): numbers, booleans,
// times and numeric strings; UNDEFINED stays UNDEFINED, the rest is ERROR.
Value builtin_to_real(const Value& v) {
  switch (v.type()) {
    case ValueType::kUndefined: return Value::undefined();
    case ValueType::kBoolean: return Value::real(v.as_boolean() ? 1.0 : 0.0);
    case ValueType::kInteger: return Value::real(static_cast<double>(v.as_integer()));
    case ValueType::kReal: return v;
    case ValueType::kAbsTime: return Value::real(static_cast<double>(v.as_abs_time().secs));
    case ValueType::kRelTime:
      return Value::real(static_cast<double>(builtin_double_to_int64(v.as_rel_time())));
    case ValueType::kString: {
      double d;
      char next;
      if (!parse_leading_double(v, d, next)) return Value::error();
      return Value::real(d * scale_suffix(next));
    }
    default: return Value::error();
  }
}

// Integer conversion (HTCondor's convertValueToIntegerValue): reals
// truncate; strings parse as reals, truncate, then take a unit suffix.
Value builtin_to_integer(const Value& v) {
  switch (v.type()) {
    case ValueType::kUndefined: return Value::undefined();
    case ValueType::kBoolean: return Value::integer(v.as_boolean() ? 1 : 0);
    case ValueType::kInteger: return v;
    case ValueType::kReal: return Value::integer(builtin_double_to_int64(v.as_real()));
    case ValueType::kAbsTime: return Value::integer(v.as_abs_time().secs);
    case ValueType::kRelTime: return Value::integer(builtin_double_to_int64(v.as_rel_time()));
    case ValueType::kString: {
      double d;
      char next;
      if (!parse_leading_double(v, d, next)) return Value::error();
      int64_t i = builtin_double_to_int64(d);
      return Value::integer(builtin_double_to_int64(static_cast<double>(i) * scale_suffix(next)));
    }
    default: return Value::error();
  }
}

namespace {

// Evaluates the single argument of a one-argument built-in; false (with
// `out` = ERROR) on a wrong argument count.
bool eval_one_arg(const CallExpr& call, EvalContext& ctx, Value& arg, Value& out) {
  if (call.nargs != 1) {
    out = Value::error();
    return false;
  }
  ctx.eval(call.args[0], arg);
  return true;
}

// HTCONDOR: classad-builtin-functions "int"
void fn_int(const CallExpr& call, EvalContext& ctx, Value& out) {
  Value arg;
  if (!eval_one_arg(call, ctx, arg, out)) return;
  out = builtin_to_integer(arg);
}

// HTCONDOR: classad-builtin-functions "real"
void fn_real(const CallExpr& call, EvalContext& ctx, Value& out) {
  Value arg;
  if (!eval_one_arg(call, ctx, arg, out)) return;
  out = builtin_to_real(arg);
}

// HTCONDOR: classad-builtin-functions "string"
void fn_string(const CallExpr& call, EvalContext& ctx, Value& out) {
  Value arg;
  if (!eval_one_arg(call, ctx, arg, out)) return;
  out = builtin_to_string(arg);
}

// HTCONDOR: classad-builtin-functions "bool": strings "true"/"false" (any
// case) convert, other strings are UNDEFINED; absolute times are ERROR.
void fn_bool(const CallExpr& call, EvalContext& ctx, Value& out) {
  Value arg;
  if (!eval_one_arg(call, ctx, arg, out)) return;
  switch (arg.type()) {
    case ValueType::kUndefined: out = Value::undefined(); return;
    case ValueType::kBoolean: out = arg; return;
    case ValueType::kInteger: out = Value::boolean(arg.as_integer() != 0); return;
    case ValueType::kReal: out = Value::boolean(arg.as_real() != 0.0); return;
    case ValueType::kRelTime:
      out = Value::boolean(builtin_double_to_int64(arg.as_rel_time()) != 0);
      return;
    case ValueType::kString: {
      std::string_view s = arg.as_string();
      if (s.size() == 5 && strncasecmp(s.data(), "false", 5) == 0) {
        out = Value::boolean(false);
      } else if (s.size() == 4 && strncasecmp(s.data(), "true", 4) == 0) {
        out = Value::boolean(true);
      } else {
        out = Value::undefined();
      }
      return;
    }
    default: out = Value::error(); return;
  }
}

enum class RoundKind { kFloor, kCeil, kRound };

// Integers pass through; anything convertible to real is rounded to an
// integer; UNDEFINED is an ERROR here (the conversion "fails").
void round_common(const CallExpr& call, EvalContext& ctx, Value& out, RoundKind kind) {
  Value arg;
  if (!eval_one_arg(call, ctx, arg, out)) return;
  if (arg.is_integer()) {
    out = arg;
    return;
  }
  Value r = builtin_to_real(arg);
  if (!r.is_real()) {
    out = Value::error();
    return;
  }
  double d = r.as_real();
  switch (kind) {
    case RoundKind::kFloor: d = std::floor(d); break;
    case RoundKind::kCeil: d = std::ceil(d); break;
    case RoundKind::kRound: d = std::rint(d); break;  // ties to even, as rint()
  }
  out = Value::integer(builtin_double_to_int64(d));
}

// HTCONDOR: classad-builtin-functions "floor"
void fn_floor(const CallExpr& call, EvalContext& ctx, Value& out) {
  round_common(call, ctx, out, RoundKind::kFloor);
}
// HTCONDOR: classad-builtin-functions "ceiling"
void fn_ceiling(const CallExpr& call, EvalContext& ctx, Value& out) {
  round_common(call, ctx, out, RoundKind::kCeil);
}
// HTCONDOR: classad-builtin-functions "round"
void fn_round(const CallExpr& call, EvalContext& ctx, Value& out) {
  round_common(call, ctx, out, RoundKind::kRound);
}

// HTCONDOR: classad-builtin-functions "pow": integer base and non-negative
// integer exponent give an integer (computed in doubles and rounded, so huge
// results saturate the way HTCondor's do); everything else is real.
void fn_pow(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 2) {
    out = Value::error();
    return;
  }
  Value base, exp;
  ctx.eval(call.args[0], base);
  ctx.eval(call.args[1], exp);
  if (base.is_integer() && exp.is_integer() && exp.as_integer() >= 0) {
    double r =
        std::pow(static_cast<double>(base.as_integer()), static_cast<double>(exp.as_integer())) +
        0.5;
    out = Value::integer(builtin_double_to_int64(r));
    return;
  }
  Value rb = builtin_to_real(base);
  Value re = builtin_to_real(exp);
  if (!rb.is_real() || !re.is_real()) {
    out = Value::error();
    return;
  }
  out = Value::real(std::pow(rb.as_real(), re.as_real()));
}

// HTCONDOR: classad-builtin-functions "quantize": the smallest multiple of
// the base not below the value; with a list, the first element not below
// the value, else a multiple of the last element.
void fn_quantize(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs != 2) {
    out = Value::error();
    return;
  }
  Value arg, base;
  ctx.eval(call.args[0], arg);
  ctx.eval(call.args[1], base);
  Value rv = builtin_to_real(arg);
  if (!rv.is_real()) {
    out = Value::error();
    return;
  }
  double rval = rv.as_real();
  double rbase = 0.0;
  if (base.is_list()) {
    Value item = Value::real(0.0);  // an empty list means "don't quantize"
    for (const Expr* e : base.as_list()->items) {
      ctx.eval(e, item);
      Value ri = builtin_to_real(item);
      if (!ri.is_real()) {
        out = Value::error();
        return;
      }
      rbase = ri.as_real();
      if (rbase >= rval) {
        out = item;
        return;
      }
    }
    base = item;  // quantize on multiples of the last element
  } else {
    Value rb = builtin_to_real(base);
    if (!rb.is_real()) {
      out = Value::error();
      return;
    }
    rbase = rb.as_real();
  }
  if (base.is_integer()) {
    int64_t ibase = base.as_integer();
    if (ibase == 0) {
      out = arg;
    } else if (arg.is_integer()) {
      // The reference's 64-bit arithmetic, wrapping like it does but never
      // trapping: the sum wraps, and INT64_MIN / -1 is avoided (x / -1 * -1 == x).
      int64_t sum = static_cast<int64_t>(static_cast<uint64_t>(arg.as_integer()) +
                                         static_cast<uint64_t>(ibase) - 1u);
      out = Value::integer(ibase == -1 ? sum : sum / ibase * ibase);
    } else {
      out = Value::real(std::ceil(rval / static_cast<double>(ibase)) * static_cast<double>(ibase));
    }
    return;
  }
  const double kEpsilon = 1e-8;
  if (rbase >= -kEpsilon && rbase <= kEpsilon) {
    out = arg;
  } else {
    out = Value::real(std::ceil(rval / rbase) * rbase);
  }
}

// HTCONDOR: classad-builtin-functions "random": an integer in [0, n) for an
// integer n, a real in [0, x) for a real x (default 1.0); others ERROR.
void fn_random(const CallExpr& call, EvalContext& ctx, Value& out) {
  if (call.nargs > 1) {
    out = Value::error();
    return;
  }
  Value arg = Value::real(1.0);
  if (call.nargs == 1) ctx.eval(call.args[0], arg);
  if (arg.is_integer()) {
    // The reference reads the bound as a C int.
    int32_t n = static_cast<int32_t>(arg.as_integer());
    if (n <= 0) {
      out = Value::error();
      return;
    }
    out =
        Value::integer(static_cast<int64_t>((ctx.random_bits() >> 33) % static_cast<uint64_t>(n)));
  } else if (arg.is_real()) {
    double x = arg.as_real();
    if (!(x > 0)) {
      out = Value::error();
      return;
    }
    out = Value::real(x * (static_cast<double>(ctx.random_bits() >> 11) * 0x1.0p-53));
  } else {
    out = Value::error();
  }
}

// Evaluates the list argument of sum/avg/min/max. False when `out` already
// holds the answer (wrong arity, UNDEFINED, not a list).
bool list_arg(const CallExpr& call, EvalContext& ctx, Value& list, Value& out) {
  if (call.nargs != 1) {
    out = Value::error();
    return false;
  }
  ctx.eval(call.args[0], list);
  if (list.is_undefined()) {
    out = Value::undefined();
    return false;
  }
  if (!list.is_list()) {
    out = Value::error();
    return false;
  }
  return true;
}

bool is_numeric(const Value& v) {
  return v.is_integer() || v.is_real() || v.is_boolean();
}

void sum_avg(const CallExpr& call, EvalContext& ctx, Value& out, bool avg) {
  Value list;
  if (!list_arg(call, ctx, list, out)) return;
  Value result = Value::integer(0);  // sum({}) is 0
  Value item;
  bool first = true;
  int64_t count = 0;
  for (const Expr* e : list.as_list()->items) {
    ctx.eval(e, item);
    if (item.is_undefined()) continue;  // UNDEFINED elements are skipped
    if (!is_numeric(item)) {
      out = Value::error();
      return;
    }
    ++count;
    if (first) {
      result = item;
      first = false;
    } else {
      Value sum;
      op_binary(Op::kAdd, result, item, sum);
      result = static_cast<Value&&>(sum);
    }
  }
  if (!avg || count == 0) {
    // avg of no numbers is the starting 0 (the reference documents 0 for an
    // empty list, and HTCondor answers the same for a list of only UNDEFINED).
    out = result;
  } else {
    op_binary(Op::kDiv, result, Value::real(static_cast<double>(count)), out);
  }
}

// HTCONDOR: classad-builtin-functions "sum"
void fn_sum(const CallExpr& call, EvalContext& ctx, Value& out) {
  sum_avg(call, ctx, out, false);
}
// HTCONDOR: classad-builtin-functions "avg"
void fn_avg(const CallExpr& call, EvalContext& ctx, Value& out) {
  sum_avg(call, ctx, out, true);
}

// HTCondor's comparison promotes its operands in place (booleans to
// integers, an integer beside a real to real), and min/max keep the
// promoted value: max({ 3, 1.0, 2 }) is 3.0 and min({ true, 2 }) is 1.
void promote_pair(Value& a, Value& b) {
  if (a.is_boolean()) a = Value::integer(a.as_boolean() ? 1 : 0);
  if (b.is_boolean()) b = Value::integer(b.as_boolean() ? 1 : 0);
  if (a.is_integer() && b.is_real()) a = Value::real(static_cast<double>(a.as_integer()));
  if (a.is_real() && b.is_integer()) b = Value::real(static_cast<double>(b.as_integer()));
}

bool less_than(const Value& a, const Value& b) {
  if (a.is_integer()) return a.as_integer() < b.as_integer();
  return a.as_real() < b.as_real();
}

void min_max(const CallExpr& call, EvalContext& ctx, Value& out, bool want_min) {
  Value list;
  if (!list_arg(call, ctx, list, out)) return;
  Value result;  // UNDEFINED for an empty list
  Value item;
  bool first = true;
  for (const Expr* e : list.as_list()->items) {
    ctx.eval(e, item);
    if (item.is_undefined()) continue;
    if (!is_numeric(item)) {
      out = Value::error();
      return;
    }
    if (first) {
      result = item;
      first = false;
      continue;
    }
    promote_pair(item, result);
    if (want_min ? less_than(item, result) : less_than(result, item)) result = item;
  }
  out = result;
}

// HTCONDOR: classad-builtin-functions "min"
void fn_min(const CallExpr& call, EvalContext& ctx, Value& out) {
  min_max(call, ctx, out, true);
}
// HTCONDOR: classad-builtin-functions "max"
void fn_max(const CallExpr& call, EvalContext& ctx, Value& out) {
  min_max(call, ctx, out, false);
}

}  // namespace

FunctionTable functions_math() {
  static const FunctionEntry k[] = {
      {"int", fn_int},     {"real", fn_real},         {"string", fn_string}, {"bool", fn_bool},
      {"floor", fn_floor}, {"ceiling", fn_ceiling},   {"ceil", fn_ceiling},  {"round", fn_round},
      {"pow", fn_pow},     {"quantize", fn_quantize}, {"random", fn_random}, {"sum", fn_sum},
      {"avg", fn_avg},     {"min", fn_min},           {"max", fn_max},
  };
  return {k, sizeof k / sizeof k[0]};
}

}  // namespace kite::classad
