// The operators of the language on values: arithmetic, comparison, logic and
// bit operations with HTCondor's promotion, UNDEFINED/ERROR and overflow rules.
// HTCONDOR: classad-mechanism "Operators".
#pragma once

#include "policy/classad/expr.h"
#include "policy/classad/value.h"

namespace kite::classad {

// Strict binary operators (both operands already evaluated). Not for
// kAnd/kOr/kTernary/kElvis/kSubscript, which the evaluator handles.
void op_binary(Op op, const Value& a, const Value& b, Value& out);
void op_unary(Op op, const Value& a, Value& out);
// `a =?= b`: identical type and value (strings case-sensitive). Lists and
// ads compare as error, as HTCondor does.
bool op_identical(const Value& a, const Value& b, bool& is_error);

}  // namespace kite::classad
