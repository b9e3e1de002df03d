// Tests for unparsing: canonical text of expressions, values and ads as
// HTCondor's unparser writes them (forms from the extra.tsv x-unparse,
// x-strlit and x-reallit vectors), and parse/unparse round trips.
#include "policy/classad/unparse.h"

#include <gtest/gtest.h>

#include <string>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"

namespace kite::classad {
namespace {

std::string reparsed(const std::string& text) {
  ParseError err;
  ExprPtr e = parse_expr(text, &err);
  if (!e) return "<parse error: " + err.to_string() + ">";
  return to_string(e.get());
}

std::string value_text(const std::string& text) {
  ExprPtr e = parse_expr(text);
  if (!e) return "<parse error>";
  return to_string(evaluate(e.get()));
}

TEST(UnparseExpr, CanonicalForms) {
  const struct {
    const char* in;
    const char* out;
  } cases[] = {
      {"a + b * c", "a + b * c"},
      {"a - b - c", "a - b - c"},
      {"~a", " ~a"},
      {"+a", " +a"},
      {"!a", " !a"},
      {"a || b && c", "a || b && c"},
      {"a << 2 >> 1 >>> 3", "a << 2 >> 1 >>> 3"},
      {"a is b", "a is b"},
      {"a isnt b", "a isnt b"},
      // HTCondor's unparser prints both spellings of the meta-comparisons as
      // `is` / `isnt` (the reference's prose says the opposite; its
      // unparser and its vectors, such as x-unparse-016, say this).
      {"a =?= b", "a is b"},
      {"a =!= b", "a isnt b"},
      {"a IS b", "a is b"},
      {"a[1][2]", "a[1][2]"},
      {"1.5", "1.500000000000000E+00"},
      {"true && false", "true && false"},
      {"a % b / c", "a % b / c"},
      {"'strange name' + 1", "'strange name' + 1"},
      {"x.'y z'", "x.y z"},  // HTCondor prints a selected name unquoted
      {"real(\"INF\")", "real(\"INF\")"},
      {".a", ".a"},
      {"(1)", "(1)"},
      {"true ? 1 : 2", "true ? 1 : 2"},
      {"a ?: b", "a ?: b"},
      {"{1, 2, {3}}", "{ 1,2,{ 3 } }"},
      {"{}", "{  }"},
      {"[a = 1]", "[ a = 1 ]"},
      {"[a = 1 + 1; b = {1, \"x\"}]", "[ a = 1 + 1; b = { 1,\"x\" } ]"},
      {"[ 'a b' = 3 ]", "[ 'a b' = 3 ]"},
      {"strcat(\"a\", b)", "strcat(\"a\",b)"},
      {"MY.x + TARGET.y", "MY.x + TARGET.y"},
      {"TRUE || FALSE || UNDEFINED || ERROR", "true || false || undefined || error"},
  };
  for (const auto& c : cases) EXPECT_EQ(reparsed(c.in), c.out) << c.in;
}

TEST(UnparseValue, StringsAndEscapes) {
  const struct {
    const char* in;
    const char* out;
  } cases[] = {
      {"\"a\\nb\"", "\"a\\nb\""},
      {"\"a\\\\b\"", "\"a\\\\b\""},
      {"\"\\77\"", "\"?\""},
      {"\"\\u0041\"", "\"u0041\""},
      {"\"\\b\\f\\v\"", "\"\\b\\f\\v\""},
      {"\"\\'\"", "\"'\""},
      {"\"tab\there\"", "\"tab\\there\""},
      {"\"a\\ b\"", "\"a b\""},
      {"\"\\\"\\\"\"", "\"\\\"\\\"\""},
      {"\"\\e\"", "\"e\""},
  };
  for (const auto& c : cases) EXPECT_EQ(value_text(c.in), c.out) << c.in;
}

TEST(UnparseValue, Reals) {
  const struct {
    const char* in;
    const char* out;
  } cases[] = {
      {"1e10", "1.000000000000000E+10"},
      {"1e-10", "1.000000000000000E-10"},
      {"0.0", "0.0"},
      {"1e309", "real(\"INF\")"},
      {"1e-400", "0.0"},
      {"real(\"-INF\")", "real(\"-INF\")"},
      {"2.0 / 3", "6.666666666666666E-01"},
      {"100.0", "1.000000000000000E+02"},
      {"-1.5e-5", "-1.500000000000000E-05"},
      {"-(0.0 / 0.0)", "real(\"NaN\")"},
      {"1.7976931348623157e308", "1.797693134862316E+308"},
      {"0 * -0.0", "-0.0"},
  };
  for (const auto& c : cases) EXPECT_EQ(value_text(c.in), c.out) << c.in;
}

TEST(UnparseValue, TimesAndSpecials) {
  EXPECT_EQ(value_text("absTime(\"2020-01-01T00:00:00Z\")"),
            "absTime(\"2020-01-01T00:00:00-00:00\")");
  EXPECT_EQ(value_text("relTime(3661)"), "relTime(\"01:01:01\")");
  EXPECT_EQ(value_text("relTime(1000000)"), "relTime(\"11+13:46:40\")");
  EXPECT_EQ(to_string(Value::undefined()), "undefined");
  EXPECT_EQ(to_string(Value::error()), "error");
  EXPECT_EQ(to_string(Value::boolean(false)), "false");
  EXPECT_EQ(to_string(Value::integer(-42)), "-42");
  EXPECT_EQ(to_string(Value::string("q\"")), "\"q\\\"\"");
}

TEST(UnparseAd, AttributeOrder) {
  // HTCondor prints shorter names first, then case-insensitive alphabetical
  // (vector: splitTime(...) prints Day, Type, Year, Hours, Month, Offset,
  // Minutes, Seconds).
  AdPtr ad = parse_classad(
      "[ Seconds = 1; Minutes = 2; Offset = 3; month = 4; Hours = 5; "
      "Year = 6; type = 7; Day = 8 ]");
  ASSERT_TRUE(ad);
  std::string out;
  unparse_classad(out, *ad);
  EXPECT_EQ(out,
            "[ Day = 8; type = 7; Year = 6; Hours = 5; month = 4; Offset = 3; "
            "Minutes = 2; Seconds = 1 ]");
}

TEST(UnparseAd, EmptyAndNested) {
  std::string out;
  AdPtr empty = parse_classad("[]");
  ASSERT_TRUE(empty);
  unparse_classad(out, *empty);
  EXPECT_EQ(out, "[  ]");
  EXPECT_EQ(value_text("[a = [b = 1]]"), "[ a = [ b = 1 ] ]");
}

// HTCondor's unparser quotes an attribute name that is not a plain
// identifier ([A-Za-z_][A-Za-z0-9_]*) or that is one of its reserved words
// (error, false, is, isnt, parent, true, undefined, in any case); a name
// selected from a base (`x.name`) prints as it is.
TEST(UnparseAd, QuotedNames) {
  EXPECT_EQ(value_text("[ 'true' = 1 ]"), "[ 'true' = 1 ]");
  EXPECT_EQ(value_text("[ 'FALSE' = 1 ]"), "[ 'FALSE' = 1 ]");
  EXPECT_EQ(value_text("[ 'Undefined' = 1 ]"), "[ 'Undefined' = 1 ]");
  EXPECT_EQ(value_text("[ 'error' = 1 ]"), "[ 'error' = 1 ]");
  EXPECT_EQ(value_text("[ 'is' = 1 ]"), "[ 'is' = 1 ]");
  EXPECT_EQ(value_text("[ 'isnt' = 1 ]"), "[ 'isnt' = 1 ]");
  EXPECT_EQ(value_text("[ 'Parent' = 1 ]"), "[ 'Parent' = 1 ]");
  EXPECT_EQ(value_text("[ 'TrueName' = 1 ]"), "[ TrueName = 1 ]");
  EXPECT_EQ(value_text("[ '1x' = 1 ]"), "[ '1x' = 1 ]");
  EXPECT_EQ(value_text("[ 'a.b' = 1 ]"), "[ 'a.b' = 1 ]");
  EXPECT_EQ(value_text("[ '_a1' = 1 ]"), "[ _a1 = 1 ]");
  EXPECT_EQ(reparsed("'true' + 'is'"), "'true' + 'is'");
  EXPECT_EQ(reparsed("parent.x"), "'parent'.x");
  EXPECT_EQ(reparsed("x.'true'"), "x.true");
  EXPECT_EQ(reparsed(".'undefined'"), ".'undefined'");
}

// absTime("...") and relTime("...") with one string literal are constants
// that HTCondor's parser makes while reading, so they print in the value's
// canonical form: an absolute time with its offset (a zero offset as
// "-00:00"), a relative time as [days+]hh:mm:ss.
TEST(UnparseExpr, TimeLiteralsPrintCanonically) {
  EXPECT_EQ(reparsed("absTime(\"2020-01-01T00:00:00Z\")"),
            "absTime(\"2020-01-01T00:00:00-00:00\")");
  EXPECT_EQ(reparsed("ABSTIME(\"2020-01-01T01:02:03+01:30\")"),
            "absTime(\"2020-01-01T01:02:03+01:30\")");
  EXPECT_EQ(reparsed("relTime(\"1d\")"), "relTime(\"1+00:00:00\")");
  EXPECT_EQ(reparsed("relTime(\"90\") + 1"), "relTime(\"01:30\") + 1");
  // Anything else stays a call as written.
  EXPECT_EQ(reparsed("absTime(0)"), "absTime(0)");
  EXPECT_EQ(reparsed("absTime(\"2020-01-01T00:00:00Z\", 0)"),
            "absTime(\"2020-01-01T00:00:00Z\",0)");
  EXPECT_EQ(reparsed("relTime(x)"), "relTime(x)");
  EXPECT_EQ(value_text("[ e = absTime(\"1970-01-01T00:00:00Z\") ]"),
            "[ e = absTime(\"1970-01-01T00:00:00-00:00\") ]");
}

TEST(UnparsePretty, ListsOnIndentedLines) {
  // x-unparse-019: unparse() of a nested list.
  ExprPtr e = parse_expr("{ 1,2,{ 3 } }");
  ASSERT_TRUE(e);
  std::string out;
  unparse_pretty(out, e.get());
  EXPECT_EQ(out, "\n   {\n      1,\n      2,\n      \n         {\n            3\n         }\n   }");
}

TEST(UnparseRoundTrip, TextIsStable) {
  // Canonical text parses back to a tree with the same canonical text.
  const char* exprs[] = {
      "a + b * c - d / e % f",
      "(a + b) * (c - d)",
      "a ? b ? c : d : e ?: f",
      "!a && ~b || -c",
      "- -a",
      "a =?= b && c =!= d && e is f && g isnt h",
      "x.y.z[0][\"k\"]",
      "{ 1, 2.5, \"s\", true, undefined, error, { }, [ a = 1; b = { 2 } ] }",
      "[ a = [ b = [ c = .x ] ]; 'odd name' = MY.a; t = TARGET.b ]",
      "strcat(\"a\\n\\t\\\"\", toUpper(b), size({}))",
      "1e300 * 1e300",
      "real(\"NaN\")",
      "absTime(\"2020-01-01T00:00:00Z\") + relTime(\"1+00:00:00\")",
      "0x10 + 010 + 1.5e3",
      "a.b",
      "'a b'",
  };
  for (const char* text : exprs) {
    std::string once = reparsed(text);
    EXPECT_EQ(reparsed(once), once) << text;
    // And the values agree.
    EXPECT_EQ(value_text(once), value_text(text)) << text;
  }
}

// Was a bug (fixed): the parser read `-1` as unary minus applied to 1, so
// `[ a = -1 ]` unparsed as `[ a =  -1 ]`. HTCondor's lexer
// reads a '-' followed by a digit as part of a numeric literal unless the
// previous token ends an operand (lexer.cpp tokenizeNumber), so HTCondor
// prints `[ a = -1 ]` and `{ -1 }`; `1 - -1` prints as `1 - -1`.
TEST(UnparseNegativeLiterals, LexedAsLiterals) {
  EXPECT_EQ(reparsed("[ a = -1 ]"), "[ a = -1 ]");
  EXPECT_EQ(reparsed("{ -1, -2.5 }"), "{ -1,-2.500000000000000E+00 }");
  EXPECT_EQ(reparsed("1 - -1"), "1 - -1");
}

}  // namespace
}  // namespace kite::classad
