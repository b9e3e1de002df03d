// Tests for the ClassAd parsers: errors carry line and column for bad input
// in both ad syntaxes, operator precedence and associativity as the
// reference defines them (classad-mechanism "ClassAd Syntax"), and
// regression inputs found by the fuzzers (tests/fuzz).
#include "policy/classad/parser.h"

#include <gtest/gtest.h>

#include <string>

#include "policy/classad/eval.h"
#include "policy/classad/unparse.h"
#include "tests/policy/classad/eval_helpers.h"

namespace kite::classad {
namespace {

struct BadInput {
  const char* text;
  int line;
  int column;
};

TEST(ParserErrors, ExpressionsNameLineAndColumn) {
  const BadInput cases[] = {
      {"1 +", 1, 4},      // end of input where an operand should be
      {"(1", 1, 3},       // missing ')'
      {"1 2", 1, 3},      // text after a complete expression
      {"f(1,", 1, 5},     // unfinished argument list
      {"{1, 2", 1, 6},    // unfinished list
      {"a.", 1, 3},       // no name after '.'
      {"1 + * 2", 1, 5},  // operator where an operand should be
      {"a ? b", 1, 6},    // ternary without ':'
      {"1 +\n  (2 *\n   )", 3, 4},
      {"x == \n\n   ]", 3, 4},
  };
  for (const BadInput& c : cases) {
    ParseError err;
    EXPECT_FALSE(parse_expr(c.text, &err)) << c.text;
    EXPECT_EQ(err.line, c.line) << c.text << " -> " << err.to_string();
    EXPECT_EQ(err.column, c.column) << c.text << " -> " << err.to_string();
    EXPECT_FALSE(err.message.empty()) << c.text;
  }
}

TEST(ParserErrors, UnterminatedTokens) {
  for (const char* text : {"\"abc", "'abc", "\"abc\\\"", "/* comment"}) {
    ParseError err;
    EXPECT_FALSE(parse_expr(text, &err)) << text;
    EXPECT_EQ(err.line, 1) << text << " -> " << err.to_string();
    EXPECT_GE(err.column, 1) << text << " -> " << err.to_string();
  }
}

TEST(ParserErrors, NewSyntaxAdsNameLineAndColumn) {
  const BadInput cases[] = {
      {"[ a = 1; b = ]", 1, 14}, {"[ a = 1 b = 2 ]", 1, 9}, {"[ 1 = 2 ]", 1, 3},
      {"[ a 1 ]", 1, 5},         {"[ a = 1", 1, 8},         {"[\n  a = 1;\n  b = 2 +;\n]", 3, 10},
      {"[ a = 1 ] x", 1, 11},    {"  \n  a = 1", 2, 3},  // not an ad at all
  };
  for (const BadInput& c : cases) {
    ParseError err;
    EXPECT_FALSE(parse_classad(c.text, &err)) << c.text;
    EXPECT_EQ(err.line, c.line) << c.text << " -> " << err.to_string();
    EXPECT_EQ(err.column, c.column) << c.text << " -> " << err.to_string();
    EXPECT_FALSE(err.message.empty()) << c.text;
  }
}

TEST(ParserErrors, OldSyntaxAdsNameLineAndColumn) {
  const BadInput cases[] = {
      {"A = 1\nB 2\n", 2, 1},       // no '='
      {"A = 1\nB = (1 +\n", 2, 9},  // expression error, column within the line
      {"# c\n\nA = 1\n  C = 1 2\n", 4, 9},
      {"A = 1\nB-C = 2\n", 2, 1},  // bad attribute name
  };
  for (const BadInput& c : cases) {
    ParseError err;
    EXPECT_FALSE(parse_classad_old(c.text, &err)) << c.text;
    EXPECT_EQ(err.line, c.line) << c.text << " -> " << err.to_string();
    EXPECT_EQ(err.column, c.column) << c.text << " -> " << err.to_string();
    EXPECT_FALSE(err.message.empty()) << c.text;
  }
}

TEST(ParserErrors, ToStringNamesThePlace) {
  ParseError err;
  EXPECT_FALSE(parse_expr("1 +", &err));
  EXPECT_EQ(err.to_string().rfind("line 1, column 4: ", 0), 0u) << err.to_string();
}

TEST(ParserAds, BothSyntaxesGiveTheSameAd) {
  ParseError err;
  AdPtr a = parse_classad("[ A = 1; B = \"x\"; C = A + 1 ]", &err);
  ASSERT_TRUE(a) << err.to_string();
  AdPtr b = parse_classad_old("A = 1\n# comment\n\nB = \"x\"\nC = A + 1\n", &err);
  ASSERT_TRUE(b) << err.to_string();
  AdPtr c = parse_classad_any("  \n[ A = 1; B = \"x\"; C = A + 1 ]", &err);
  ASSERT_TRUE(c) << err.to_string();
  std::string sa, sb, sc;
  unparse_classad(sa, *a);
  unparse_classad(sb, *b);
  unparse_classad(sc, *c);
  EXPECT_EQ(sa, sb);
  EXPECT_EQ(sa, sc);
  EXPECT_EQ(sa, "[ A = 1; B = \"x\"; C = A + 1 ]");
}

TEST(ParserAds, EmptyStatementsAndNesting) {
  ParseError err;
  AdPtr ad = parse_classad("[ ; a = 1;; b = [ c = { 1, [ d = 2 ] } ]; ]", &err);
  ASSERT_TRUE(ad) << err.to_string();
  EXPECT_EQ(ad->size(), 2u);
}

TEST(ParserPrecedence, BindingOrder) {
  // Lowest to highest: ?:, ||, &&, |, ^, &, == != =?= =!=, < <= > >=,
  // << >> >>>, + -, * / %, unary, then . and [] (reference "ClassAd Syntax").
  const struct {
    const char* expr;
    const char* expected;
  } cases[] = {
      {"1 + 2 * 3", "7"},
      {"(1 + 2) * 3", "9"},
      {"2 * 3 % 4", "2"},   // left to right
      {"1 - 2 - 3", "-4"},  // left to right
      {"2 * 3 / 4", "1"},
      {"10 - 2 + 3", "11"},
      {"1 << 2 + 1", "8"},  // + above shifts
      {"2 + 3 << 1", "10"},
      {"8 >> 1 + 1", "2"},
      {"1 < 2 == true", "true"},           // relational above equality
      {"6 & 3 == 2", "error"},             // equality above &: 6 & false
      {"1 | 2 ^ 3 & 1", "3"},              // & above ^ above |
      {"true || false && false", "true"},  // && above ||
      {"false && true || true", "true"},
      {"1 + 2 == 3 && 4 > 3 || false", "true"},
      {"false ? 1 : true ? 2 : 3", "2"},  // ?: groups to the right
      {"true ? false ? 1 : 2 : 3", "2"},
      {"!true == false", "true"},  // unary above binary
      {"-2 * -3", "6"},
      {"- 2 * 3", "-6"},
      {"~1 & 3", "2"},
      {"{1, 2, 3}[1] + 1", "3"},  // subscript above +
      {"[a = [b = 5]].a.b * 2", "10"},
      {"\"a\" == \"A\" =?= true", "true"},  // same level, left to right
      {"undefined ?: 1 + 1", "2"},
      {"1 ?: 2 ? 3 : 4", "1"},
  };
  for (const auto& c : cases) EXPECT_EQ(eval_text(c.expr), c.expected) << c.expr;
}

TEST(ParserPrecedence, UnparseKeepsTheTreeShape) {
  // Unparse prints no parentheses it was not given; the shape survives
  // because the text re-parses with the same precedence. (Unary operators
  // print with a leading space, as in the vectors: `unparse(e)` is " ~a".)
  for (const char* text :
       {"a + b * c", "(a + b) * c", "a || b && c", "(a || b) && c", "a ? b : c ? d : e",
        "(a ? b : c) ? d : e", "a - (b - c)", " !(a && b)", " -(a + 1)", "a.b.c[1][2]"}) {
    ExprPtr e = parse_expr(text);
    ASSERT_TRUE(e) << text;
    EXPECT_EQ(to_string(e.get()), text);
  }
}

TEST(ParserLimits, DeepNestingIsAnErrorNotACrash) {
  for (const char* open : {"(", "{", "[a=", "-", "!", "f("}) {
    std::string deep;
    for (int i = 0; i < 100000; ++i) deep += open;
    deep += "1";
    ParseError err;
    EXPECT_FALSE(parse_expr(deep, &err)) << open;
    EXPECT_FALSE(err.message.empty()) << open;
  }
}

TEST(ParserLimits, LongFlatInputsParse) {
  std::string sum = "0";
  for (int i = 0; i < 500; ++i) sum += " + 1";
  ExprPtr e = parse_expr(sum);
  ASSERT_TRUE(e);
  EXPECT_EQ(to_string(evaluate(e.get())), "500");

  // A tree deeper than the parser's height limit (1000) is refused with an
  // error instead of being built: every walk over a tree (evaluation,
  // unparse, copy, free) then has a bounded recursion depth.
  for (int i = 0; i < 20000; ++i) sum += " + x";
  ParseError err;
  e = parse_expr(sum, &err);
  EXPECT_FALSE(e);
  EXPECT_NE(err.message.find("nested too deeply"), std::string::npos) << err.message;

  std::string list = "{";
  for (int i = 0; i < 20000; ++i) list += "1,";
  list += "1}";
  EXPECT_TRUE(parse_expr(list));
}

// Fuzz regressions (tests/fuzz): inputs that once broke an invariant.
TEST(ParserFuzzRegression, UnparsedSelectionOnANumber) {
  // expr_fuzz crash-0433...: `1 .Imagz=?= 0` unparses as `1.Imagz =?= 0`,
  // which does not lex (HTCondor's unparser prints the same text). Parsing
  // and evaluating must still be safe.
  ExprPtr e = parse_expr("1 .Imagz=?= 0");
  ASSERT_TRUE(e);
  EXPECT_EQ(to_string(evaluate(e.get())), "false");
}

TEST(ParserFuzzRegression, ArbitraryBytesNeverCrash) {
  const std::string inputs[] = {
      std::string("'\xfa\xff"
                  "a\x04r\x93\x93\x93\x93'''''  '.['\x9f'''\xb0 1 ' 0",
                  31),
      std::string("1.7976931348623157e308"),
      std::string("MY && TsET.tsMY && TsET.'stritring", 34),
      std::string("\"\\", 2),
      std::string("'", 1),
      std::string("[", 1),
      std::string("{,}", 3),
      std::string("f(,)", 4),
      std::string("a[", 2),
      std::string("0x", 2),
      std::string("1e", 2),
      std::string(".", 1),
      std::string("\0", 1),
  };
  for (const std::string& in : inputs) {
    ParseError err;
    ExprPtr e = parse_expr(in, &err);
    if (e) {
      (void)evaluate(e.get());
      (void)to_string(e.get());
    } else {
      EXPECT_GE(err.line, 1);
    }
  }
}

// Was a bug (fixed): the lexer accepted a NUL byte inside a
// string literal or quoted name, both raw and as the escape "\0". HTCondor's
// lexer rejects them (convert_escapes marks "\0" invalid; a raw NUL ends its
// input), and such strings cannot be written as HTCondor JSON. Found by
// ad_fuzz (crash-0744..., crash-e202...: `[ MyType = "Job\0" ]`).
TEST(ParserFuzzRegression, NulInStringIsAnError) {
  for (std::string_view text : {std::string_view("\"a\\0b\""), std::string_view("\"a\0b\"", 5),
                                std::string_view("'a\0b'", 5)}) {
    ParseError err;
    EXPECT_FALSE(parse_expr(text, &err)) << text;
  }
}

// Was a bug (fixed): the parser accepted an empty quoted
// attribute name, `[ '' = 66 ]`. HTCondor's ClassAd::Insert refuses an empty
// name, so its parser fails on this ad; Kite's JSON reader refuses it too,
// so such an ad cannot round-trip through JSON. Found by ad_fuzz
// (crash-60228f94...).
TEST(ParserFuzzRegression, EmptyAttributeNameIsAnError) {
  EXPECT_FALSE(parse_classad("[ '' = 66 ]"));
}

TEST(ParserFuzzRegression, EmptyAttributeNameOldSyntax) {
  EXPECT_FALSE(parse_classad_old("'' = 66"));
  EXPECT_FALSE(parse_classad_old(" = 66"));
}

// Old line syntax keeps HTCondor's old string rules (lexer.cpp
// tokenizeStringOld): a backslash is an ordinary character, except that a
// backslash-quote inside the text stands for a quote.
TEST(ParserOldSyntax, StringsKeepBackslashes) {
  AdPtr ad = parse_classad_old(
      "A = \"C:\\temp\\new\"\n"
      "B = \"say \\\"hi\\\" now\"\n"
      "C = \"ends\\\"\n");
  ASSERT_TRUE(ad);
  std::string a, b, c;
  ASSERT_TRUE(ad->evaluate_string("A", a));
  ASSERT_TRUE(ad->evaluate_string("B", b));
  ASSERT_TRUE(ad->evaluate_string("C", c));
  EXPECT_EQ(a, "C:\\temp\\new");
  EXPECT_EQ(b, "say \"hi\" now");
  EXPECT_EQ(c, "ends\\");
}

// With HTCondor's default (old-ClassAd) semantics integer literals are read
// in base 10 (lexer.cpp tokenizeNumber): 010 is 10, 0x10 stops at the x and
// is 0, and a leading-zero literal with an 8 or 9 is a syntax error.
TEST(ParserNumbers, IntegersAreDecimal) {
  EXPECT_EQ(to_string(evaluate(parse_expr("010").get())), "10");
  EXPECT_EQ(to_string(evaluate(parse_expr("0x10").get())), "0");
  EXPECT_EQ(to_string(evaluate(parse_expr("-010").get())), "-10");
  EXPECT_FALSE(parse_expr("09"));
  EXPECT_FALSE(parse_expr("0x"));
}

// HTCondor's lexer joins string literals (and quoted names) separated only
// by whitespace (lexer.cpp tokenizeString).
TEST(ParserStrings, AdjacentLiteralsJoin) {
  EXPECT_EQ(to_string(evaluate(parse_expr("\"a\" \"b\"").get())), "\"ab\"");
  EXPECT_EQ(to_string(evaluate(parse_expr("\"a\"\n  \"b\" == \"AB\"").get())), "true");
  AdPtr ad = parse_classad("[ 'it''s' = 5 ]");
  ASSERT_TRUE(ad);
  EXPECT_NE(ad->lookup("its"), nullptr);
}

}  // namespace
}  // namespace kite::classad
