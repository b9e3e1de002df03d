// Operator semantics on values: promotion (boolean -> integer -> real),
// UNDEFINED/ERROR propagation, case-insensitive string comparison, time
// arithmetic, wrapping integer arithmetic, and +INF treated as an error the
// way HTCondor's real arithmetic reports overflow.
// HTCONDOR: classad-mechanism "Operators", "Comparison Operators".
#include "policy/classad/operators.h"

#include <strings.h>
#include <cmath>
#include <cstdint>

#include "policy/classad/classad.h"
#include "policy/classad/time_format.h"

namespace kite::classad {
namespace {

enum class Num { kNone, kInt, kReal };

// Integer view for arithmetic: booleans promote to 0/1.
Num numeric(const Value& v, int64_t& i, double& r) {
  switch (v.type()) {
    case ValueType::kInteger:
      i = v.as_integer();
      r = static_cast<double>(i);
      return Num::kInt;
    case ValueType::kBoolean:
      i = v.as_boolean() ? 1 : 0;
      r = static_cast<double>(i);
      return Num::kInt;
    case ValueType::kReal: r = v.as_real(); return Num::kReal;
    default: return Num::kNone;
  }
}

// Both operands as numbers (booleans promote to integers); false if either
// is not a number.
struct NumPair {
  Num na, nb;
  int64_t ia = 0, ib = 0;
  double ra = 0, rb = 0;
  bool both_int() const { return na == Num::kInt && nb == Num::kInt; }
};

bool numeric_pair(const Value& a, const Value& b, NumPair& p) {
  p.na = numeric(a, p.ia, p.ra);
  p.nb = numeric(b, p.ib, p.rb);
  return p.na != Num::kNone && p.nb != Num::kNone;
}

int compare_strings_nocase(std::string_view a, std::string_view b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  for (size_t k = 0; k < n; ++k) {
    int ca = static_cast<unsigned char>(a[k]);
    int cb = static_cast<unsigned char>(b[k]);
    if (ca >= 'A' && ca <= 'Z') ca += 'a' - 'A';
    if (cb >= 'A' && cb <= 'Z') cb += 'a' - 'A';
    if (ca != cb) return ca < cb ? -1 : 1;
  }
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

Value real_result(double r) {
  // HTCondor reports +INF from arithmetic as an error (overflow).
  if (std::isinf(r) && r > 0) return Value::error();
  return Value::real(r);
}

// HTCONDOR: classad-mechanism "Operators" on absolute and relative times, as
// HTCondor's operator code computes them: a relative time added to an
// absolute one counts as a C int of seconds; a relative time times or
// divided by an integer or a real scales; an integer times a relative time
// scales, but a real times a relative time gives relTime(0) there (it reads
// its operands the wrong way round); booleans are not numbers here.
void time_arithmetic(Op op, const Value& a, const Value& b, Value& out) {
  if (a.is_abs_time() && b.is_rel_time() && (op == Op::kAdd || op == Op::kSub)) {
    int64_t d = double_to_int32(b.as_rel_time());
    out = Value::abs_time(op == Op::kAdd ? a.as_abs_time().secs + d : a.as_abs_time().secs - d,
                          a.as_abs_time().offset);
  } else if (a.is_rel_time() && b.is_abs_time() && op == Op::kAdd) {
    out = Value::abs_time(b.as_abs_time().secs + double_to_int32(a.as_rel_time()),
                          b.as_abs_time().offset);
  } else if (a.is_abs_time() && b.is_abs_time() && op == Op::kSub) {
    out = Value::rel_time(static_cast<double>(a.as_abs_time().secs - b.as_abs_time().secs));
  } else if (a.is_rel_time() && b.is_rel_time() && (op == Op::kAdd || op == Op::kSub)) {
    out = Value::rel_time(op == Op::kAdd ? a.as_rel_time() + b.as_rel_time()
                                         : a.as_rel_time() - b.as_rel_time());
  } else if (a.is_rel_time() && (b.is_integer() || b.is_real()) &&
             (op == Op::kMul || op == Op::kDiv)) {
    double n = b.is_integer() ? static_cast<double>(b.as_integer()) : b.as_real();
    if (op == Op::kDiv && n == 0) {
      out = Value::error();
      return;
    }
    out = Value::rel_time(op == Op::kMul ? a.as_rel_time() * n : a.as_rel_time() / n);
  } else if (a.is_integer() && b.is_rel_time() && op == Op::kMul) {
    out = Value::rel_time(static_cast<double>(a.as_integer()) * b.as_rel_time());
  } else if (a.is_real() && b.is_rel_time() && op == Op::kMul) {
    out = Value::rel_time(0);
  } else {
    out = Value::error();
  }
}

void arithmetic(Op op, const Value& a, const Value& b, Value& out) {
  // Time arithmetic first.
  if (a.is_abs_time() || b.is_abs_time() || a.is_rel_time() || b.is_rel_time()) {
    time_arithmetic(op, a, b, out);
    return;
  }
  NumPair p;
  if (!numeric_pair(a, b, p)) {
    out = Value::error();
    return;
  }
  const int64_t ia = p.ia, ib = p.ib;
  const double ra = p.ra, rb = p.rb;
  if (p.both_int()) {
    uint64_t ua = static_cast<uint64_t>(ia), ub = static_cast<uint64_t>(ib);
    switch (op) {
      case Op::kAdd: out = Value::integer(static_cast<int64_t>(ua + ub)); return;
      case Op::kSub: out = Value::integer(static_cast<int64_t>(ua - ub)); return;
      case Op::kMul: out = Value::integer(static_cast<int64_t>(ua * ub)); return;
      case Op::kDiv:
        if (ib == 0) {
          out = Value::error();
        } else if (ib == -1) {
          // HTCondor answers INT64_MAX for the one quotient that overflows,
          // INT64_MIN / -1, instead of trapping or wrapping.
          out = Value::integer(ia == INT64_MIN ? INT64_MAX : -ia);
        } else {
          out = Value::integer(ia / ib);
        }
        return;
      case Op::kMod:
        if (ib == 0) {
          out = Value::error();
        } else if (ib == -1) {
          out = Value::integer(0);
        } else {
          out = Value::integer(ia % ib);
        }
        return;
      default: out = Value::error(); return;
    }
  }
  switch (op) {
    case Op::kAdd: out = real_result(ra + rb); return;
    case Op::kSub: out = real_result(ra - rb); return;
    case Op::kMul: out = real_result(ra * rb); return;
    case Op::kDiv: out = real_result(ra / rb); return;
    default: out = Value::error(); return;  // % on reals is an error
  }
}

void comparison(Op op, const Value& a, const Value& b, Value& out) {
  int cmp = 0;
  bool unordered = false;  // NaN
  if (a.is_string() && b.is_string()) {
    cmp = compare_strings_nocase(a.as_string(), b.as_string());
  } else if (a.is_abs_time() && b.is_abs_time()) {
    int64_t x = a.as_abs_time().secs, y = b.as_abs_time().secs;
    cmp = x < y ? -1 : (x > y ? 1 : 0);
  } else if (a.is_rel_time() && b.is_rel_time()) {
    double x = a.as_rel_time(), y = b.as_rel_time();
    cmp = x < y ? -1 : (x > y ? 1 : 0);
  } else {
    NumPair p;
    if (!numeric_pair(a, b, p)) {
      out = Value::error();
      return;
    }
    if (p.both_int()) {
      cmp = p.ia < p.ib ? -1 : (p.ia > p.ib ? 1 : 0);
    } else if (std::isnan(p.ra) || std::isnan(p.rb)) {
      unordered = true;
    } else {
      cmp = p.ra < p.rb ? -1 : (p.ra > p.rb ? 1 : 0);
    }
  }
  bool r = false;
  if (unordered) {
    r = op == Op::kNotEqual;
  } else {
    switch (op) {
      case Op::kEqual: r = cmp == 0; break;
      case Op::kNotEqual: r = cmp != 0; break;
      case Op::kLess: r = cmp < 0; break;
      case Op::kLessEq: r = cmp <= 0; break;
      case Op::kGreater: r = cmp > 0; break;
      case Op::kGreaterEq: r = cmp >= 0; break;
      default: break;
    }
  }
  out = Value::boolean(r);
}

// Shifts as HTCondor computes them on x86-64, where the hardware uses the
// low six bits of the count: `<<` and a non-negative `>>`/`>>>` shift by
// count & 63; a negative `>>` repeats an arithmetic one-bit shift
// min(count, 64) times (none for a count <= 0); a negative `>>>` shifts one
// bit with the sign cleared, then by (count - 1) & 63.
int64_t shift_left(int64_t x, int64_t n) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) << (static_cast<uint64_t>(n) & 63u));
}
int64_t shift_right(int64_t x, int64_t n) {
  if (x >= 0) return x >> (static_cast<uint64_t>(n) & 63u);
  if (n <= 0) return x;
  return x >> (n < 63 ? n : 63);
}
int64_t shift_right_unsigned(int64_t x, int64_t n) {
  if (x >= 0) return x >> (static_cast<uint64_t>(n) & 63u);
  int64_t cleared = (x >> 1) & INT64_MAX;
  return cleared >> ((static_cast<uint64_t>(n) - 1u) & 63u);
}

void bitwise(Op op, const Value& a, const Value& b, Value& out) {
  if (!a.is_integer() || !b.is_integer()) {
    out = Value::error();
    return;
  }
  int64_t x = a.as_integer(), y = b.as_integer();
  switch (op) {
    case Op::kBitOr: out = Value::integer(x | y); return;
    case Op::kBitXor: out = Value::integer(x ^ y); return;
    case Op::kBitAnd: out = Value::integer(x & y); return;
    case Op::kShiftLeft: out = Value::integer(shift_left(x, y)); return;
    case Op::kShiftRight: out = Value::integer(shift_right(x, y)); return;
    case Op::kShiftRightUnsigned: out = Value::integer(shift_right_unsigned(x, y)); return;
    default: out = Value::error(); return;
  }
}

}  // namespace

bool op_identical(const Value& a, const Value& b, bool& is_error) {
  is_error = false;
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case ValueType::kUndefined:
    case ValueType::kError: return true;
    case ValueType::kBoolean: return a.as_boolean() == b.as_boolean();
    case ValueType::kInteger: return a.as_integer() == b.as_integer();
    case ValueType::kReal: return a.as_real() == b.as_real();
    case ValueType::kString: return a.as_string() == b.as_string();
    case ValueType::kAbsTime:  // identity includes the zone; == compares instants
      return a.as_abs_time().secs == b.as_abs_time().secs &&
             a.as_abs_time().offset == b.as_abs_time().offset;
    case ValueType::kRelTime: return a.as_rel_time() == b.as_rel_time();
    case ValueType::kList:
    case ValueType::kClassAd: is_error = true; return false;
  }
  return false;
}

void op_binary(Op op, const Value& a, const Value& b, Value& out) {
  if (op == Op::kMetaEqual || op == Op::kMetaNotEqual) {
    bool err = false;
    bool same = op_identical(a, b, err);
    out = err ? Value::error() : Value::boolean(op == Op::kMetaEqual ? same : !same);
    return;
  }
  if (a.is_error() || b.is_error()) {
    out = Value::error();
    return;
  }
  if (a.is_undefined() || b.is_undefined()) {
    out = Value::undefined();
    return;
  }
  switch (op) {
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kDiv:
    case Op::kMod: arithmetic(op, a, b, out); return;
    case Op::kEqual:
    case Op::kNotEqual:
    case Op::kLess:
    case Op::kLessEq:
    case Op::kGreater:
    case Op::kGreaterEq: comparison(op, a, b, out); return;
    case Op::kBitOr:
    case Op::kBitXor:
    case Op::kBitAnd:
    case Op::kShiftLeft:
    case Op::kShiftRight:
    case Op::kShiftRightUnsigned: bitwise(op, a, b, out); return;
    default: out = Value::error(); return;
  }
}

void op_unary(Op op, const Value& a, Value& out) {
  if (a.is_error()) {
    out = Value::error();
    return;
  }
  if (a.is_undefined()) {
    out = Value::undefined();
    return;
  }
  switch (op) {
    case Op::kUnaryPlus:
      if (a.is_integer() || a.is_real() || a.is_rel_time()) {
        out = a;
      } else {
        out = Value::error();
      }
      return;
    case Op::kUnaryMinus:
      if (a.is_integer()) {
        out = Value::integer(static_cast<int64_t>(0 - static_cast<uint64_t>(a.as_integer())));
      } else if (a.is_real()) {
        out = Value::real(-a.as_real());
      } else if (a.is_rel_time()) {
        out = Value::rel_time(-a.as_rel_time());
      } else {
        out = Value::error();
      }
      return;
    case Op::kBitwiseNot:
      out = a.is_integer() ? Value::integer(~a.as_integer()) : Value::error();
      return;
    case Op::kLogicalNot:
      if (a.is_boolean()) {
        out = Value::boolean(!a.as_boolean());
      } else if (a.is_integer()) {
        out = Value::boolean(a.as_integer() == 0);
      } else if (a.is_real()) {
        out = Value::boolean(a.as_real() == 0.0);
      } else {
        out = Value::error();
      }
      return;
    default: out = Value::error(); return;
  }
}

}  // namespace kite::classad
