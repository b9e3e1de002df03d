// The built-in function library: lookup by case-insensitive name. Each group
// of functions lives in its own functions_<group>.cc with its own table.
// HTCONDOR: classad-builtin-functions.
#pragma once

#include <cstddef>
#include <string_view>

#include "policy/classad/eval.h"
#include "policy/classad/expr.h"
#include "policy/classad/value.h"

namespace kite::classad {

// A built-in gets the call node (its unevaluated arguments are
// call.args[0 .. call.nargs-1]) and evaluates what it needs through ctx.
using BuiltinFn = void (*)(const CallExpr& call, EvalContext& ctx, Value& out);

struct FunctionEntry {
  const char* name;  // canonical spelling, e.g. "stringListMember"
  BuiltinFn fn;
};

struct FunctionTable {
  const FunctionEntry* entries;
  size_t count;
};

// Group tables (one per functions_<group>.cc).
FunctionTable functions_core();        // type predicates, ifThenElse, eval, unparse, ...
FunctionTable functions_math();        // int, real, floor, pow, quantize, sum, avg, ...
FunctionTable functions_string();      // strcat, substr, size, toUpper, join, split, ...
FunctionTable functions_list();        // member, anyCompare, ...
FunctionTable functions_regex();       // regexp, regexps, replace, ...
FunctionTable functions_stringlist();  // stringListMember, stringListSize, ...
FunctionTable functions_time();        // time, absTime, relTime, formatTime, ...
FunctionTable functions_env();         // envV1ToV2, mergeEnvironment, argsToList, userHome, ...

// absTime("...") or relTime("...") with one string literal that reads as a
// time: the constant HTCondor's parser makes of it (an abstime or reltime
// value), which is how such a call prints. False for any other call.
bool time_literal_value(const CallExpr& call, Value& out);

// Null if there is no such function.
const FunctionEntry* function_find(std::string_view name);

}  // namespace kite::classad
