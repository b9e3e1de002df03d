// Unit tests for the core built-ins (functions_core.cc): type predicates,
// ifThenElse, eval, unparse, unresolved, evalInEachContext, countMatches,
// userMap. Expected values come from HTCondor 25's own results (the
// conformance vectors) and the classad-builtin-functions reference.
#include <gtest/gtest.h>

#include <string>

#include "policy/classad/classad.h"
#include "policy/classad/eval.h"
#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "tests/policy/classad/eval_helpers.h"

namespace kite::classad {
namespace {

std::string Eval(const char* text) {
  return eval_text(text);
}

// Evaluates `text` with `ad` as MY (and `target`, if given, as TARGET).
std::string EvalIn(const char* ad, const char* text, const char* target = nullptr) {
  AdPtr my = parse_classad(ad);
  ExprPtr e = parse_expr(text);
  if (!my || !e) return "<parse error>";
  if (!target) return to_string(my->evaluate_expr(e.get()));
  AdPtr other = parse_classad(target);
  if (!other) return "<parse error>";
  MatchPair pair(*my, *other);
  return to_string(pair.evaluate_left(e.get()));
}

TEST(FunctionsCore, TypePredicates) {
  EXPECT_EQ(Eval("isUndefined(undefined + 1)"), "true");
  EXPECT_EQ(Eval("isUndefined([ a = 1 ].b)"), "true");
  EXPECT_EQ(Eval("IsUnDeFiNeD(undefined)"), "true");
  EXPECT_EQ(Eval("isUndefined(1 / 0)"), "false");
  EXPECT_EQ(Eval("isError(1 / 0)"), "true");
  EXPECT_EQ(Eval("isError(undefined + 1)"), "false");
  EXPECT_EQ(Eval("isString(\"ABC\")"), "true");
  EXPECT_EQ(Eval("isString(error)"), "false");
  EXPECT_EQ(Eval("isInteger(-3)"), "true");
  EXPECT_EQ(Eval("isInteger(\"3.9\")"), "false");
  EXPECT_EQ(Eval("isReal(-2.5)"), "true");
  EXPECT_EQ(Eval("isReal(1)"), "false");
  EXPECT_EQ(Eval("isBoolean(true)"), "true");
  EXPECT_EQ(Eval("isList({})"), "true");
  EXPECT_EQ(Eval("isClassAd({ })"), "false");
  EXPECT_EQ(Eval("isClassAd([ a = 1 ])"), "true");
  EXPECT_EQ(Eval("isReltime(relTime(1))"), "true");
  EXPECT_EQ(Eval("isAbstime({ })"), "false");
  EXPECT_EQ(Eval("isError(1, 2)"), "error");
  EXPECT_EQ(Eval("isString()"), "error");
}

TEST(FunctionsCore, IfThenElse) {
  EXPECT_EQ(Eval("ifThenElse(true, \"yes\", \"no\")"), "\"yes\"");
  EXPECT_EQ(Eval("ifThenElse(2.5, \"y\", \"n\")"), "\"y\"");
  EXPECT_EQ(Eval("ifThenElse(-1, \"y\", \"n\")"), "\"y\"");
  EXPECT_EQ(Eval("IFTHENELSE(1 == 1, 10, 20)"), "10");
  // Lazy: the branch not taken is never evaluated.
  EXPECT_EQ(Eval("ifThenElse(false, 1 / 0, 2)"), "2");
  EXPECT_EQ(Eval("ifThenElse(1, 1, 1 / 0)"), "1");
  EXPECT_EQ(Eval("ifThenElse(false, 1, 1 / 0)"), "error");
  EXPECT_EQ(Eval("ifThenElse(undefined, \"y\", \"n\")"), "undefined");
  EXPECT_EQ(Eval("ifThenElse(error, \"yes\", \"no\")"), "error");
  EXPECT_EQ(Eval("ifThenElse(\"s\", 1, 1 / 0)"), "error");
  EXPECT_EQ(Eval("ifThenElse(true)"), "error");
  EXPECT_EQ(Eval("ifThenElse(true, 1, 2, 3)"), "error");
}

TEST(FunctionsCore, Eval) {
  EXPECT_EQ(Eval("eval(\"1 + 2 * 3\")"), "7");
  EXPECT_EQ(Eval("eval(1)"), "1");
  EXPECT_EQ(Eval("eval(\"1.5e1\")"), "1.500000000000000E+01");
  EXPECT_EQ(Eval("eval(\"{1, 2}\")"), "{ 1,2 }");
  EXPECT_EQ(Eval("[x = 5; y = eval(\"X\")].y"), "5");
  EXPECT_EQ(Eval("eval(\"1 / 0\")"), "error");
  EXPECT_EQ(Eval("eval(error)"), "error");
  EXPECT_EQ(Eval("eval(\"1\", \"2\")"), "error");
  const char* my = "[ x = 3 ]";
  const char* target = "[ x = 100; y = 7 ]";
  EXPECT_EQ(EvalIn(my, "eval(\"x * 2\")", target), "6");
  EXPECT_EQ(EvalIn(my, "eval(\"MY.x\")", target), "3");
  EXPECT_EQ(EvalIn(my, "eval(\"x +\")", target), "error");
  EXPECT_EQ(EvalIn(my, "eval(\"{ x, x + 1 }\")", target), "{ x,x + 1 }");
  EXPECT_EQ(EvalIn("[SlotID = 6; slot2_State = \"Claimed\"]",
                   "eval(strcat(\"slot\", SlotID - 4, \"_State\"))", "[]"),
            "\"Claimed\"");
}

TEST(FunctionsCore, Unparse) {
  EXPECT_EQ(Eval("[x = 1 + 2; y = unparse(x)].y"), "\"1 + 2\"");
  EXPECT_EQ(Eval("[x = (1); y = unparse(x)].y"), "\"(1)\"");
  EXPECT_EQ(Eval("[x = !a; y = unparse(x)].y"), "\" !a\"");
  EXPECT_EQ(Eval("[x = {1, 2}; y = unparse(x)].y"), "\"\\n   {\\n      1,\\n      2\\n   }\"");
  EXPECT_EQ(Eval("unparse(x)"), "\"\"");
  EXPECT_EQ(EvalIn("[ e = a is b ]", "unparse(e)", "[]"), "\"a is b\"");
  // Only a plain name in the current ad is looked up.
  EXPECT_EQ(EvalIn("[ e = 1 + 2 ]", "unparse(MY.e)", "[]"), "\"\"");
  EXPECT_EQ(EvalIn("[ 'sp ace' = 1 ]", "unparse('sp ace')", "[]"), "\"\"");
  EXPECT_EQ(Eval("unparse(e, e)"), "error");
  EXPECT_EQ(Eval("unparse(1)"), "error");
}

TEST(FunctionsCore, Unresolved) {
  EXPECT_EQ(EvalIn("[ a = b + c; b = 1 ]", "unresolved(a)", "[]"), "\"c\"");
  EXPECT_EQ(EvalIn("[ a = b + c; b = 1 ]", "unresolved(a, \"^c$\")", "[]"), "true");
  EXPECT_EQ(EvalIn("[ a = b + c; b = 1 ]", "unresolved(a, \"^b$\")", "[]"), "false");
  EXPECT_EQ(EvalIn("[ a = strcat(x, y.z) ]", "unresolved(a)", "[]"), "\"x,y.z\"");
  EXPECT_EQ(EvalIn("[ a = b ]", "unresolved(zzz)", "[]"), "undefined");
  // The documented example (a job ad in a match): references the job ad
  // does not define.
  EXPECT_EQ(EvalIn("[ Requirements = OpSys == \"LINUX\" && TARGET.Arch == \"ARM\" && "
                   "Cpus >= RequestCpus; RequestCpus = 1 ]",
                   "unresolved(Requirements)", "[]"),
            "\"Arch,Cpus,OpSys\"");
  EXPECT_EQ(EvalIn("[ r = OpSys == \"LINUX\" && Arch == \"ARM\" ]", "unresolved(r, \"OpSys.+\")"),
            "false");
  EXPECT_EQ(EvalIn("[ a = b ]", "unresolved(a, 1)"), "error");
  EXPECT_EQ(EvalIn("[ a = b ]", "unresolved(\"a\")"), "error");
  EXPECT_EQ(EvalIn("[ a = b ]", "unresolved()"), "error");
}

TEST(FunctionsCore, EvalInEachContext) {
  const char* ads = "{ [ x = 1 ], [ x = 2 ], [ x = 3; y = 4 ], [ z = 1 ] }";
  EXPECT_EQ(Eval((std::string("evalInEachContext(x, ") + ads + ")").c_str()),
            "{ 1,2,3,undefined }");
  EXPECT_EQ(Eval((std::string("evalInEachContext(\"s\", ") + ads + ")").c_str()),
            "{ \"s\",\"s\",\"s\",\"s\" }");
  EXPECT_EQ(Eval("evalInEachContext(x, { 1, [ x = 1 ] })"), "{ error,1 }");
  EXPECT_EQ(Eval("evalInEachContext(x, undefined)"), "undefined");
  EXPECT_EQ(Eval("evalInEachContext(x)"), "error");
}

TEST(FunctionsCore, CountMatches) {
  const char* ads = "{ [ x = 1 ], [ x = 2 ], [ x = 3; y = 4 ], [ z = 1 ] }";
  EXPECT_EQ(Eval((std::string("countMatches(x * 2, ") + ads + ")").c_str()), "3");
  EXPECT_EQ(Eval((std::string("countMatches(isUndefined(x), ") + ads + ")").c_str()), "1");
  EXPECT_EQ(Eval("countMatches(x, { })"), "0");
  EXPECT_EQ(Eval("countMatches(Prio > 2, { [Prio=3;], UNDEFINED })"), "1");
  EXPECT_EQ(Eval("countMatches(Prio > 2, UNDEFINED)"), "0");
  EXPECT_EQ(EvalIn("[ c = { [ x = 1 ], [ x = 5 ] }; t = 2 ]", "countMatches(x > t, c)"), "1");
  EXPECT_EQ(Eval("countMatches(x)"), "error");
  EXPECT_EQ(Eval("countMatches(x, { [ x = 1 ] }, 1)"), "error");
}

TEST(FunctionsCore, UserMapWithoutMaps) {
  EXPECT_EQ(Eval("userMap(\"groups\", \"alice\")"), "undefined");
  EXPECT_EQ(Eval("userMap(\"groups\", \"alice\", \"g1\")"), "undefined");
  EXPECT_EQ(Eval("userMap(\"groups\", \"alice\", \"g1\", \"dflt\")"), "\"dflt\"");
  EXPECT_EQ(Eval("userMap(\"groups\", error)"), "error");
  EXPECT_EQ(Eval("userMap(\"groups\")"), "error");
}

}  // namespace
}  // namespace kite::classad
