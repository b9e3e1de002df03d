// Tests for the ClassAd operators on every value type, with UNDEFINED and
// ERROR operands. Expected values come from the reference
// (classad-mechanism.rst "ClassAd Operators") and the HTCondor conformance
// vectors (shared/conformance/classad), not from running Kite.
#include <gtest/gtest.h>

#include <string>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "tests/policy/classad/eval_helpers.h"

namespace kite::classad {
namespace {

struct Case {
  const char* expr;
  const char* expected;
};

void expect_cases(const Case* cases, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(eval_text(cases[i].expr), cases[i].expected) << cases[i].expr;
  }
}
#define EXPECT_CASES(arr) expect_cases(arr, sizeof(arr) / sizeof(arr[0]))

// One operand of each value type (besides UNDEFINED and ERROR).
const char* const kTypedOperands[] = {
    "3",                                  // integer
    "2.5",                                // real
    "true",                               // boolean
    "\"s\"",                              // string
    "{ 1, 2 }",                           // list
    "[ a = 1 ]",                          // ad
    "absTime(\"2020-01-01T00:00:00Z\")",  // absolute time
    "relTime(60)",                        // relative time
};

// Operators strict in both UNDEFINED and ERROR (reference: arithmetic and
// comparison operators "are strict with respect to both UNDEFINED and
// ERROR"; the bit operators likewise, e.g. vector `0 & undefined`).
const char* const kStrictBinary[] = {
    "+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&", "|", "^", "<<", ">>", ">>>"};

TEST(OperatorsStrict, ErrorOperandGivesError) {
  for (const char* op : kStrictBinary) {
    for (const char* v : kTypedOperands) {
      std::string a = std::string("error ") + op + " " + v;
      std::string b = std::string(v) + " " + op + " error";
      EXPECT_EQ(eval_text(a), "error") << a;
      EXPECT_EQ(eval_text(b), "error") << b;
    }
    // ERROR beats UNDEFINED (vector: `undefined + error` is error).
    EXPECT_EQ(eval_text(std::string("undefined ") + op + " error"), "error") << op;
    EXPECT_EQ(eval_text(std::string("error ") + op + " undefined"), "error") << op;
    EXPECT_EQ(eval_text(std::string("error ") + op + " error"), "error") << op;
  }
}

TEST(OperatorsStrict, UndefinedOperandGivesUndefined) {
  // Vectors: `1 + undefined`, `undefined < {1}`, `undefined > [a = 1]`: the
  // UNDEFINED check comes before the operand-type check.
  for (const char* op : kStrictBinary) {
    for (const char* v : kTypedOperands) {
      std::string a = std::string("undefined ") + op + " " + v;
      std::string b = std::string(v) + " " + op + " undefined";
      EXPECT_EQ(eval_text(a), "undefined") << a;
      EXPECT_EQ(eval_text(b), "undefined") << b;
    }
    EXPECT_EQ(eval_text(std::string("undefined ") + op + " undefined"), "undefined") << op;
  }
}

TEST(OperatorsStrict, UnaryOnExceptionalValues) {
  const Case cases[] = {
      {"-undefined", "undefined"}, {"-error", "error"},         {"!undefined", "undefined"},
      {"!error", "error"},         {"~undefined", "undefined"}, {"~error", "error"},
      {"+undefined", "undefined"}, {"+error", "error"},
  };
  EXPECT_CASES(cases);
}

TEST(OperatorsMeta, IdentityWithExceptionalValues) {
  // Reference table 4.2 and vectors: =?= is never UNDEFINED or ERROR for
  // scalar operands; lists and ads compared with anything else are false.
  for (const char* v : kTypedOperands) {
    for (const char* special : {"undefined", "error"}) {
      std::string a = std::string(v) + " =?= " + special;
      std::string b = std::string(special) + " is " + v;
      std::string c = std::string(v) + " =!= " + special;
      std::string d = std::string(special) + " isnt " + v;
      EXPECT_EQ(eval_text(a), "false") << a;
      EXPECT_EQ(eval_text(b), "false") << b;
      EXPECT_EQ(eval_text(c), "true") << c;
      EXPECT_EQ(eval_text(d), "true") << d;
    }
  }
  const Case cases[] = {
      {"undefined =?= undefined", "true"}, {"error =?= error", "true"},
      {"undefined =?= error", "false"},    {"undefined =!= undefined", "false"},
      {"(1 / 0) =?= error", "true"},       {"10 =?= undefined", "false"},
      {"10 =!= undefined", "true"},        {"undefined isnt undefined", "false"},
  };
  EXPECT_CASES(cases);
}

TEST(OperatorsMeta, IdentityByType) {
  const Case cases[] = {
      {"\"abc\" =?= \"ABC\"", "false"},  // case-sensitive
      {"\"abc\" =?= \"abc\"", "true"},
      {"\"abc\" isnt \"ABC\"", "true"},
      {"1 =?= 1.0", "false"},  // different types
      {"1 =!= 1.0", "true"},
      {"1.0 =?= 1.0", "true"},
      {"true =?= 1", "false"},
      {"true =?= true", "true"},
      {"{1} =?= 1", "false"},
      {"{ } =?= { }", "error"},  // list vs list
      {"{ 1 } is { 1 }", "error"},
      {"[ ] is [ ]", "error"},  // ad vs ad
      {"[a = 1] =?= true", "false"},
      {"relTime(5) =?= relTime(5.0)", "true"},
      {"absTime(\"2020-01-01T00:00:00Z\") =?= absTime(1577836800, 0)", "true"},
      {"absTime(\"2020-01-01T01:00:00+01:00\") == absTime(\"2020-01-01T00:00:00Z\")", "true"},
  };
  EXPECT_CASES(cases);
}

// Was a bug (fixed): op_identical compared only the seconds of two absolute
// times; HTCondor's compareAbsoluteTimes
// (src/classad/operators.cpp) makes =?= / =!= also compare the zone offset,
// while == / != compare the instant only.
TEST(OperatorsMeta, AbsTimeIdentityComparesZone) {
  const Case cases[] = {
      {"absTime(\"2020-01-01T01:00:00+01:00\") =?= absTime(\"2020-01-01T00:00:00Z\")", "false"},
      {"absTime(\"2020-01-01T01:00:00+01:00\") =!= absTime(\"2020-01-01T00:00:00Z\")", "true"},
  };
  EXPECT_CASES(cases);
}

TEST(OperatorsLogical, ThreeValuedTruthTables) {
  // Vectors (logic.tsv) and the reference: && and || squash UNDEFINED and
  // ERROR where the other side decides.
  const Case cases[] = {
      {"undefined && false", "false"},
      {"false && undefined", "false"},
      {"undefined && true", "undefined"},
      {"true && undefined", "undefined"},
      {"undefined || true", "true"},
      {"true || undefined", "true"},
      {"undefined || false", "undefined"},
      {"false || undefined", "undefined"},
      {"undefined && undefined", "undefined"},
      {"undefined || undefined", "undefined"},
      {"true && error", "error"},
      {"false && error", "false"},
      {"undefined && error", "error"},
      {"error && true", "error"},
      {"error && false", "error"},
      {"error || true", "error"},
      {"error || false", "error"},
      {"error && error", "error"},
      {"1 && error", "error"},
      {"0 && error", "false"},
      {"2.5 && error", "error"},
      {"undefined || 1", "true"},
      {"undefined && 2.5", "undefined"},
      {"0.0 || 0", "false"},
      {"!undefined", "undefined"},
      {"!0", "true"},
      {"!2.5", "false"},
      {"!true", "false"},
  };
  EXPECT_CASES(cases);
}

TEST(OperatorsLogical, NonBooleanOperandsAreErrors) {
  // Reference: "Any string operand is equivalent to an ERROR operand for a
  // logical operator"; vectors: `{ 1 } || true` is error. HTCONDOR
  // operators.cpp doLogical: only booleans, numbers, UNDEFINED and ERROR.
  for (const char* v : {"\"s\"", "{ 1 }", "[ a = 1 ]", "absTime(0, 0)", "relTime(1)"}) {
    std::string a = std::string(v) + " && true";
    std::string b = std::string(v) + " || false";
    std::string c = std::string("true && ") + v;
    std::string d = std::string("false || ") + v;
    std::string e = std::string("!") + v;
    std::string f = std::string("undefined || ") + v;
    EXPECT_EQ(eval_text(a), "error") << a;
    EXPECT_EQ(eval_text(b), "error") << b;
    EXPECT_EQ(eval_text(c), "error") << c;
    EXPECT_EQ(eval_text(d), "error") << d;
    EXPECT_EQ(eval_text(e), "error") << e;
    EXPECT_EQ(eval_text(f), "error") << f;
    // The deciding left operand short-circuits the bad right one.
    std::string g = std::string("false && ") + v;
    std::string h = std::string("true || ") + v;
    EXPECT_EQ(eval_text(g), "false") << g;
    EXPECT_EQ(eval_text(h), "true") << h;
  }
}

TEST(OperatorsTernary, ConditionTypes) {
  const Case cases[] = {
      {"true ? 1 : 2", "1"},
      {"false ? 1 : 2", "2"},
      {"1 ? \"a\" : \"b\"", "\"a\""},
      {"0.0 ? 1 : 2", "2"},
      {"undefined ? 1 : 2", "undefined"},
      {"error ? 1 : 2", "error"},
      {"{ } ? 1 : 2", "error"},
      {"\"s\" ? 1 : 2", "error"},
      {"[ ] ? 1 : 2", "error"},
      {"true ? 1 : 1 / 0", "1"},  // lazy branches
      {"false ? 1 / 0 : 2", "2"},
      {"undefined ?: 7", "7"},
      {"error ?: 7", "error"},
      {"3 ?: 7", "3"},
      {"false ?: 7", "false"},
      {"\"\" ?: 7", "\"\""},
  };
  EXPECT_CASES(cases);
}

TEST(OperatorsArithmetic, NumbersAndPromotion) {
  const Case cases[] = {
      {"7 + 2", "9"},
      {"7 - 2.0", "5.000000000000000E+00"},
      {"0.1 * 0.1", "1.000000000000000E-02"},
      {"3 * 0", "0"},
      {"7 / 2", "3"},
      {"-7 / 2", "-3"},
      {"7 / -3", "-2"},
      {"7 / 2.0", "3.500000000000000E+00"},
      {"7 % 2", "1"},
      {"-7 % -2", "-1"},
      {"5.5 % 2", "error"},
      {"1 / 0", "error"},
      {"1 / 0.0", "error"},
      {"7 % 0", "error"},
      {"1.0e308 + 1.0e308", "error"},
      {"-7.0 - -7", "0.0"},
      {"0 * -0.0", "-0.0"},
      {"-7 - 2147483648", "-2147483655"},
      // Booleans promote to 0/1 in arithmetic (HTCONDOR coerceToNumber;
      // vector `(1 + true < 1 - -4) + (3 >= 3 == -4)` is 1).
      {"true + 1", "2"},
      {"true + true", "2"},
      {"false * 2.5", "0.0"},
      // ... but not under unary minus (vector `-true` is error).
      {"-true", "error"},
      {"-false", "error"},
      {"-(2.5)", "-2.500000000000000E+00"},
      {"+3", "3"},
      {"- -3", "3"},
  };
  EXPECT_CASES(cases);
}

TEST(OperatorsArithmetic, NonNumbersAreErrors) {
  // Reference: "If either operand is not a numerical type, the value of the
  // operation is ERROR."
  for (const char* op : {"+", "-", "*", "/", "%"}) {
    for (const char* v : {"\"s\"", "{ 1 }", "[ a = 1 ]"}) {
      std::string a = std::string(v) + " " + op + " 1";
      std::string b = std::string("2.5 ") + op + " " + v;
      EXPECT_EQ(eval_text(a), "error") << a;
      EXPECT_EQ(eval_text(b), "error") << b;
    }
  }
  const Case cases[] = {
      {"\"a\" + \"b\"", "error"}, {"3 * \"2\"", "error"},  {"-\"abc\"", "error"},
      {"-{ 1 }", "error"},        {"-[ a = 1 ]", "error"},
  };
  EXPECT_CASES(cases);
}

TEST(OperatorsArithmetic, Times) {
  // HTCONDOR operators.cpp doTimeArithmetic: abs+rel, rel+abs, rel+rel,
  // abs-abs, abs-rel, rel-rel, rel*num, rel/num, num*rel; all else ERROR.
  const Case cases[] = {
      {"absTime(\"2020-01-01T00:00:00Z\") - relTime(3600)",
       "absTime(\"2019-12-31T23:00:00-00:00\")"},
      {"absTime(\"2020-01-01T00:00:00Z\") + relTime(60)", "absTime(\"2020-01-01T00:01:00-00:00\")"},
      {"relTime(60) + absTime(\"2020-01-01T00:00:00Z\")", "absTime(\"2020-01-01T00:01:00-00:00\")"},
      {"absTime(\"2020-01-01T00:01:00Z\") - absTime(\"2020-01-01T00:00:00Z\")",
       "relTime(\"01:00\")"},
      {"relTime(60) - relTime(90)", "relTime(\"-30\")"},
      {"relTime(60) + relTime(3600)", "relTime(\"01:01:00\")"},
      {"relTime(60) * 2", "relTime(\"02:00\")"},
      {"2 * relTime(60)", "relTime(\"02:00\")"},
      {"relTime(60) / 2", "relTime(\"30\")"},
      {"relTime(60) * 1.5", "relTime(\"01:30\")"},
      {"absTime(0, 0) + absTime(0, 0)", "error"},
      {"relTime(1) - absTime(0, 0)", "error"},
      {"absTime(0, 0) + 1", "error"},
      {"relTime(60) + 1", "error"},
      {"absTime(0, 0) * 2", "error"},
      {"relTime(60) * relTime(2)", "error"},
      {"2 / relTime(60)", "error"},
      {"relTime(60) % 7", "error"},
      {"absTime(0, 0) + \"s\"", "error"},
  };
  EXPECT_CASES(cases);
}

// The corners of HTCondor's time arithmetic: the relative time added to an
// absolute one is cast to a C int (fractions dropped); booleans are not
// numbers for a time; a real on the left of `*` with a relative time gives
// relTime(0) (HTCondor's code reads each operand as the other's type).
TEST(OperatorsArithmetic, TimeCorners) {
  const Case cases[] = {
      {"absTime(10, 0) + relTime(5.9)", "absTime(\"1970-01-01T00:00:15-00:00\")"},
      {"absTime(10, 0) - relTime(5.9)", "absTime(\"1970-01-01T00:00:05-00:00\")"},
      {"relTime(3.5) + absTime(10, 0)", "absTime(\"1970-01-01T00:00:13-00:00\")"},
      {"relTime(10) * true", "error"},
      {"true * relTime(10)", "error"},
      {"relTime(10) / false", "error"},
      {"2.5 * relTime(10)", "relTime(\"00\")"},
      {"relTime(10) * 2.5", "relTime(\"25\")"},
      {"relTime(10) / 4.0", "relTime(\"2.5\")"},
  };
  EXPECT_CASES(cases);
}

TEST(OperatorsComparison, ByType) {
  const Case cases[] = {
      {"1 == 1.0", "true"},
      {"1 != 1.0", "false"},
      {"1 < 1.5", "true"},
      {"2.5 >= 2", "true"},
      {"true <= 2", "true"},
      {"true == 1", "true"},
      {"false < true", "true"},
      {"true > false", "true"},
      {"\"abc\" == \"ABC\"", "true"},  // case-insensitive
      {"\"abc\" < \"abd\"", "true"},
      {"\"B\" > \"a\"", "true"},
      {"\"abc\" != \"ABC\"", "false"},
      {"\"1\" == 1", "error"},
      {"\"b\" < 2.5", "error"},
      {"\"ABC\" > false", "error"},
      {"{ 1 } == { 1 }", "error"},
      {"[ a = 1 ] == [ a = 1 ]", "error"},
      {"[ a = 1 ] < 2", "error"},
      {"{1} <= false", "error"},
      {"relTime(5) == relTime(5.0)", "true"},
      {"relTime(5) < relTime(6)", "true"},
      {"relTime(60) == 60", "error"},
      {"relTime(5) > 1", "error"},
      {"absTime(\"2020-01-01T00:00:00Z\") == absTime(1577836800, 0)", "true"},
      {"absTime(0, 0) < absTime(1, 0)", "true"},
      {"absTime(\"2020-01-01T00:00:00Z\") == 1577836800", "error"},
      {"absTime(0, 0) == relTime(0)", "error"},
      {"\"s\" == relTime(0)", "error"},
  };
  EXPECT_CASES(cases);
}

TEST(OperatorsBitwise, IntegersOnly) {
  const Case cases[] = {
      {"5 & 3", "1"},
      {"6 | 3", "7"},
      {"6 ^ 3", "5"},
      {"~0", "-1"},
      {"1 << 3", "8"},
      {"-8 >> 1", "-4"},
      {"-8 >>> 1", "9223372036854775804"},
      {"8 >>> 2", "2"},
      {"6 & 3 == 2", "error"},  // == binds tighter: 6 & false
      {"true ^ true", "error"},
      {"2 | 1.0", "error"},
      {"1.5 << 1", "error"},
      {"~5.0", "error"},
      {"~\"s\"", "error"},
      {"~{ 1 }", "error"},
      {"\"a\" & 1", "error"},
      {"{ 1 } | 1", "error"},
      {"[ ] ^ 1", "error"},
      {"relTime(1) << 1", "error"},
      {"absTime(0, 0) & 1", "error"},
  };
  EXPECT_CASES(cases);
}

// The integer edges HTCondor defines in its operator code: the one quotient
// that overflows, INT64_MIN / -1, is INT64_MAX (and its remainder 0), never a
// trap or a wrap.
TEST(OperatorsArithmetic, Int64MinDividedByMinusOne) {
  const Case cases[] = {
      {"(-9223372036854775807 - 1) / -1", "9223372036854775807"},
      {"(-9223372036854775807 - 1) % -1", "0"},
      {"9223372036854775807 / -1", "-9223372036854775807"},
      {"-7 / -1", "7"},
      {"(-9223372036854775807 - 1) / 1", "-9223372036854775808"},
      {"(-9223372036854775807 - 1) / 0", "error"},
      {"(-9223372036854775807 - 1) % 0", "error"},
  };
  EXPECT_CASES(cases);
}

// Shift counts of 64 or more, or negative: HTCondor shifts with the
// machine's instruction, which uses the count's low six bits, except that a
// negative number shifted right with `>>` repeats a one-bit arithmetic
// shift min(count, 64) times (none for a count <= 0), and `>>>` of a
// negative number first shifts one bit clearing the sign, then by count - 1.
TEST(OperatorsBitwise, ShiftCountsOutOfRange) {
  const Case cases[] = {
      {"1 << 64", "1"},  // 64 & 63 = 0
      {"1 << 65", "2"},
      {"1 << -1", "-9223372036854775808"},  // -1 & 63 = 63
      {"3 << -62", "12"},                   // -62 & 63 = 2
      {"8 >> 64", "8"},
      {"8 >> 67", "1"},
      {"8 >> -1", "0"},
      {"-8 >> 64", "-1"},  // 64 sign-filling steps
      {"-8 >> 1000", "-1"},
      {"-8 >> 2", "-2"},
      {"-8 >> 0", "-8"},
      {"-8 >> -1", "-8"},  // no step for a negative count
      {"1 >>> 64", "1"},
      {"16 >>> 66", "4"},
      {"-1 >>> 63", "1"},
      {"-8 >>> 64", "0"},                    // (2^63 - 4) >> 63
      {"-8 >>> 65", "9223372036854775804"},  // (2^63 - 4) >> 0
      {"-8 >>> 0", "0"},                     // (2^63 - 4) >> (-1 & 63)
      {"-9223372036854775807 - 1 >>> 1", "4611686018427387904"},
  };
  EXPECT_CASES(cases);
}

TEST(OperatorsSubscript, ListsAndExceptional) {
  const Case cases[] = {
      {"{1, 2, 3}[0]", "1"},        {"{1, 2, 3}[-1]", "error"},    {"{1, 2, 3}[3]", "error"},
      {"{1, 2, 3}[true]", "error"}, {"{1, 2, 3}[\"1\"]", "error"}, {"{1, 2, 3}[error]", "error"},
      {"{}[0]", "error"},           {"undefined[0]", "undefined"}, {"{ 1, 1/0, 3 }[2]", "3"},
      {"[ a = 1 ].a", "1"},         {"[ a = 1 ].b", "undefined"},  {"\"str\".a", "error"},
      {"error.a", "error"},         {"[ a = 1 ].a.b", "error"},
  };
  EXPECT_CASES(cases);
}

}  // namespace
}  // namespace kite::classad
