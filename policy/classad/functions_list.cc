// Built-in list predicates: member, identicalMember, anyCompare, allCompare.
// Comparisons go through the language's own operators (op_binary), so they
// follow `==` / `<` / `is` semantics exactly.
// HTCONDOR: classad-builtin-functions "member", "identicalMember",
// "anyCompare", "allCompare".
#include <string_view>

#include "policy/classad/eval.h"
#include "policy/classad/functions.h"
#include "policy/classad/operators.h"
#include "policy/classad/value.h"

namespace kite::classad {
namespace {

// HTCONDOR: classad-builtin-functions "member", "identicalMember": true when
// some element compares equal (`==`, or `=?=` for identicalMember) to the
// value. The value may not be a list or an ad; for member() an UNDEFINED
// value is UNDEFINED and an ERROR value is ERROR.
void member_common(const CallExpr& call, EvalContext& ctx, Value& out, bool identical) {
  if (call.nargs != 2) {
    out = Value::error();
    return;
  }
  Value needle, list;
  ctx.eval(call.args[0], needle);
  ctx.eval(call.args[1], list);
  if (list.is_undefined() || (!identical && needle.is_undefined())) {
    out = Value::undefined();
    return;
  }
  if (!list.is_list() || needle.is_list() || needle.is_classad() ||
      (!identical && needle.is_error())) {
    out = Value::error();
    return;
  }
  Op op = identical ? Op::kMetaEqual : Op::kEqual;
  Value item, cmp;
  for (const Expr* e : list.as_list()->items) {
    ctx.eval(e, item);
    op_binary(op, item, needle, cmp);
    if (cmp.is_boolean() && cmp.as_boolean()) {
      out = Value::boolean(true);
      return;
    }
  }
  out = Value::boolean(false);
}

void fn_member(const CallExpr& call, EvalContext& ctx, Value& out) {
  member_common(call, ctx, out, false);
}
void fn_identicalmember(const CallExpr& call, EvalContext& ctx, Value& out) {
  member_common(call, ctx, out, true);
}

// The operator named by anyCompare's first argument (exact spelling only).
bool compare_op(std::string_view s, Op& op) {
  if (s == "<")
    op = Op::kLess;
  else if (s == "<=")
    op = Op::kLessEq;
  else if (s == "!=")
    op = Op::kNotEqual;
  else if (s == "==")
    op = Op::kEqual;
  else if (s == ">")
    op = Op::kGreater;
  else if (s == ">=")
    op = Op::kGreaterEq;
  else if (s == "is")
    op = Op::kMetaEqual;
  else if (s == "isnt")
    op = Op::kMetaNotEqual;
  else
    return false;
  return true;
}

// HTCONDOR: classad-builtin-functions "anyCompare", "allCompare":
// compare(op, list, value) over the elements (element on the left). An
// element comparing to ERROR makes the result ERROR; one comparing to
// UNDEFINED ends the scan with false, as the reference does.
void compare_common(const CallExpr& call, EvalContext& ctx, Value& out, bool all) {
  if (call.nargs != 3) {
    out = Value::error();
    return;
  }
  Value opv;
  ctx.eval(call.args[0], opv);
  if (opv.is_undefined()) {
    out = Value::undefined();
    return;
  }
  Op op;
  if (!opv.is_string() || !compare_op(opv.as_string(), op)) {
    out = Value::error();
    return;
  }
  Value list;
  ctx.eval(call.args[1], list);
  if (list.is_undefined()) {
    out = Value::undefined();
    return;
  }
  if (!list.is_list()) {
    out = Value::error();
    return;
  }
  Value target;
  ctx.eval(call.args[2], target);
  Value item, cmp;
  for (const Expr* e : list.as_list()->items) {
    ctx.eval(e, item);
    op_binary(op, item, target, cmp);
    if (!cmp.is_boolean()) {
      out = cmp.is_undefined() ? Value::boolean(false) : Value::error();
      return;
    }
    if (cmp.as_boolean() != all) {
      out = Value::boolean(!all);  // any: a match; all: a mismatch
      return;
    }
  }
  out = Value::boolean(all);
}

void fn_anycompare(const CallExpr& call, EvalContext& ctx, Value& out) {
  compare_common(call, ctx, out, false);
}
void fn_allcompare(const CallExpr& call, EvalContext& ctx, Value& out) {
  compare_common(call, ctx, out, true);
}

}  // namespace

FunctionTable functions_list() {
  static const FunctionEntry k[] = {
      {"member", fn_member},
      {"identicalMember", fn_identicalmember},
      {"anyCompare", fn_anycompare},
      {"allCompare", fn_allcompare},
  };
  return {k, sizeof k / sizeof k[0]};
}

}  // namespace kite::classad
