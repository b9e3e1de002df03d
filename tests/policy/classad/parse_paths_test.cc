// Tests for the parser's fast paths: the old line syntax read in one pass,
// ads built from staged entries, tokens taken without a full scan, short
// reals converted without strtod, and trees hashed as they are built for
// sharing. Each must give exactly what the general path gives.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "policy/classad/expr_share.h"
#include "policy/classad/intern.h"
#include "policy/classad/parser.h"
#include "policy/classad/pool.h"
#include "policy/classad/unparse.h"

namespace kite::classad {
namespace {

std::string old_ad_text(const std::string& text) {
  ParseError err;
  AdPtr ad = parse_classad_old(text, &err);
  if (!ad) return "error: " + err.to_string();
  std::string out;
  unparse_classad(out, *ad);
  return out;
}

std::string new_ad_text(const std::string& text) {
  ParseError err;
  AdPtr ad = parse_classad(text, &err);
  if (!ad) return "error: " + err.to_string();
  std::string out;
  unparse_classad(out, *ad);
  return out;
}

TEST(ParserOldSyntax, LineEndsBlanksAndComments) {
  EXPECT_EQ(old_ad_text("A = 1\r\nB = \"x\"\r\n\r\nC = B\r\n"), "[ A = 1; B = \"x\"; C = B ]");
  EXPECT_EQ(old_ad_text("  # comment\n\t\nA = 1 // trailing\n   B   =   2   \n#last"),
            "[ A = 1; B = 2 ]");
  EXPECT_EQ(old_ad_text("A = 1"), "[ A = 1 ]");  // no final newline
  EXPECT_EQ(old_ad_text(""), "[  ]");
  EXPECT_EQ(old_ad_text("# only\n# comments\n"), "[  ]");
  EXPECT_EQ(old_ad_text("A = 1\nB.C = 2\nd.e = B.C"), "[ A = 1; 'B.C' = 2; 'd.e' = B.C ]");
  EXPECT_EQ(old_ad_text("A\t=\t-1\nB = - 1\nC = 3 -1\n"), "[ A = -1; B =  -1; C = 3 - 1 ]");
  EXPECT_EQ(old_ad_text("A = 'quoted name'\n"), "[ A = 'quoted name' ]");
}

// A backslash-quote is a quote unless only the line end follows it; the
// blanks a line ends with do not count as text.
TEST(ParserOldSyntax, EscapedQuoteNearTheLineEnd) {
  EXPECT_EQ(old_ad_text("A = \"abc\\\"   \nB = 2"), "[ A = \"abc\\\\\"; B = 2 ]");
  EXPECT_EQ(old_ad_text("A = \"abc\\\"\t\r\n"), "[ A = \"abc\\\\\" ]");
  EXPECT_EQ(old_ad_text("A = \"abc\\\"  x\"\nB = 2"), "[ A = \"abc\\\"  x\"; B = 2 ]");
  EXPECT_EQ(old_ad_text("A = \"a\\\"\\\"b\""), "[ A = \"a\\\"\\\"b\" ]");
}

// Old-syntax strings are searched a word at a time; the quote, an escaped
// quote or a NUL may fall anywhere in a word.
TEST(ParserOldSyntax, StringsAtEveryOffset) {
  for (size_t k = 0; k < 20; ++k) {
    std::string x(k, 'x');
    ParseError err;
    AdPtr ad = parse_classad_old("A = \"" + x + "\\\"yy\" \nB = \"" + x + "\"\n", &err);
    ASSERT_TRUE(ad) << k << ": " << err.to_string();
    std::string a, b;
    ASSERT_TRUE(ad->evaluate_string("A", a));
    ASSERT_TRUE(ad->evaluate_string("B", b));
    EXPECT_EQ(a, x + "\"yy") << k;
    EXPECT_EQ(b, x) << k;
    std::string with_nul = "A = \"" + x + std::string(1, '\0') + "z\"\n";
    EXPECT_EQ(old_ad_text(with_nul), "error: line 1, column 5: NUL character in string") << k;
    EXPECT_EQ(old_ad_text("A = \"" + x + "\nB = 1\n"),
              "error: line 1, column 5: unterminated string")
        << k;
  }
}

TEST(ParserOldSyntax, ErrorsNameTheirLineAndColumn) {
  const struct {
    const char* text;
    const char* error;
  } cases[] = {
      {"A = 1\nB = (2 +\n  3)\n", "line 2, column 9: unexpected end of input"},
      {"A = 1\nB = (1 +   \n", "line 2, column 9: unexpected end of input"},
      {"A = 1\nB =   \n", "line 2, column 4: unexpected end of input"},
      {"\n\n\nA = 1\n\n  Bad Name = 2\n", "line 6, column 3: bad attribute name"},
      {"A = 1\n\n\n  C = 1 2\n", "line 4, column 9: unexpected text after the expression"},
      {"A==1\n", "line 1, column 3: unexpected token"},
      {"A =?= 1\n", "line 1, column 4: unexpected token"},
      {"= 1\n", "line 1, column 1: bad attribute name"},
      {"# c\nA 1\n", "line 2, column 1: expected 'Name = expression'"},
  };
  for (const auto& c : cases) EXPECT_EQ(old_ad_text(c.text), std::string("error: ") + c.error);
}

// Lines do not continue: a string, a comment or a trailing backslash ends
// with its line.
TEST(ParserOldSyntax, NothingContinuesOntoTheNextLine) {
  EXPECT_EQ(old_ad_text("A = 1 \\\n + 2\n"), "error: line 1, column 7: unexpected character '\\'");
  EXPECT_EQ(old_ad_text("A = /* open\nB = 2 */ 3\n"),
            "error: line 1, column 12: unterminated comment");
  EXPECT_EQ(old_ad_text("A = \"open\nB = 2\"\n"), "error: line 1, column 5: unterminated string");
}

TEST(ParserOldSyntax, RepeatedNamesReplaceInPlace) {
  EXPECT_EQ(old_ad_text("A = 1\na = 2\nB = 3\nA = 4\n"), "[ A = 4; B = 3 ]");
  ParseError err;
  AdPtr ad = parse_classad_old("A = 1\nB = 3\na = 2\n", &err);
  ASSERT_TRUE(ad) << err.to_string();
  ASSERT_EQ(ad->size(), 2u);
  EXPECT_EQ(ad->entries()[0].name->view(), "a");  // the later spelling, the first place
  EXPECT_EQ(ad->entries()[1].name->view(), "B");
}

TEST(ParserAds, RepeatedNamesReplaceInPlace) {
  EXPECT_EQ(new_ad_text("[ a = 1; A = 2; b = 3; a = 4 ]"), "[ a = 4; b = 3 ]");
  EXPECT_EQ(new_ad_text("[ a = 1; n = [ a = 2; a = 3; b = a ]; a = 5 ]"),
            "[ a = 5; n = [ a = 3; b = a ] ]");
  // Many names, some repeated, across the size where ads index their names.
  std::string text = "[ ";
  for (int i = 0; i < 100; ++i)
    text += "x" + std::to_string(i % 37) + " = " + std::to_string(i) + "; ";
  text += "]";
  ParseError err;
  AdPtr ad = parse_classad(text, &err);
  ASSERT_TRUE(ad) << err.to_string();
  EXPECT_EQ(ad->size(), 37u);
  int64_t v = 0;
  EXPECT_TRUE(ad->evaluate_int("x0", v));
  EXPECT_EQ(v, 74);
  EXPECT_TRUE(ad->evaluate_int("X36", v));
  EXPECT_EQ(v, 73);
  EXPECT_EQ(ad->entries()[5].name->view(), "x5");  // first places kept
}

TEST(ParserAds, AssignmentIsNotAComparison) {
  for (const char* text : {"[ a == 1 ]", "[ a =?= 1 ]", "[ a =!= 1 ]"}) {
    EXPECT_EQ(new_ad_text(text),
              "error: line 1, column 5: expected '=' after attribute name, found token")
        << text;
  }
  EXPECT_EQ(new_ad_text("[ a =? 1 ]"), "error: line 1, column 6: unexpected token");
}

TEST(ParserAds, CommentsAndEmptyStatementsAroundValues) {
  EXPECT_EQ(new_ad_text("[ a /* c */ = 1 /* d */ ; b = 2 ]"), "[ a = 1; b = 2 ]");
  EXPECT_EQ(new_ad_text("[ a = 1 ;; ; b = \"x\" \"y\"; c = \"p\\tq\"; d = 'e f' ]"),
            "[ a = 1; b = \"xy\"; c = \"p\\tq\"; d = 'e f' ]");
  EXPECT_EQ(new_ad_text("[a=1;b=-2;c=\"s\"]"), "[ a = 1; b = -2; c = \"s\" ]");
}

TEST(ParserAds, ErrorsInsideAdsFreeWhatWasParsed) {
  // (Leaks would fail the sanitizer build.)
  EXPECT_EQ(new_ad_text("[ a = 1; b = ]"), "error: line 1, column 14: unexpected token");
  EXPECT_EQ(new_ad_text("[ a = 1 b = 2 ]"), "error: line 1, column 9: expected ';' or ']' in ad");
  EXPECT_EQ(new_ad_text("[ a = \"x\" "), "error: line 1, column 11: expected ';' or ']' in ad");
  EXPECT_EQ(new_ad_text("[ a = 1; n = [ b = 2; c = ]; d = 3 ]"),
            "error: line 1, column 27: unexpected token");
  EXPECT_EQ(old_ad_text("A = 1\nB = [ c = 1; d = 2 ]\nE = (\n"),
            "error: line 3, column 6: unexpected end of input");
}

TEST(ParserAds, NestedAdsPointAtTheirParent) {
  ParseError err;
  AdPtr outer = parse_classad("[ x = 7; n = [ y = x + 1 ]; l = { [ z = x ] } ]", &err);
  ASSERT_TRUE(outer) << err.to_string();
  int64_t v = 0;
  ASSERT_TRUE(outer->evaluate_int("n", v) == false);  // an ad, not an integer
  Value n = outer->evaluate_expr(parse_expr("n.y").get());
  ASSERT_TRUE(n.is_integer()) << to_string(n);
  EXPECT_EQ(n.as_integer(), 8);
  Value z = outer->evaluate_expr(parse_expr("l[0].z").get());
  ASSERT_TRUE(z.is_integer()) << to_string(z);
  EXPECT_EQ(z.as_integer(), 7);
  // A nested ad that outlives its parent no longer points at it.
  Value held = outer->evaluate_attr("n");
  ASSERT_TRUE(held.is_classad());
  EXPECT_EQ(held.as_classad()->parent(), outer.get());
  outer = AdPtr();
  EXPECT_EQ(held.as_classad()->parent(), nullptr);

  AdPtr old = parse_classad_old("x = 7\nn = [ y = x + 1 ]\n", &err);
  ASSERT_TRUE(old) << err.to_string();
  Value m = old->evaluate_expr(parse_expr("n.y").get());
  ASSERT_TRUE(m.is_integer()) << to_string(m);
  EXPECT_EQ(m.as_integer(), 8);
}

// Short reals are converted without strtod; the bits must be strtod's.
TEST(ParserNumbers, RealsHaveStrtodsBits) {
  std::vector<std::string> texts = {"0.1",
                                    "0.60",
                                    "4.80",
                                    "1.5e3",
                                    "1e22",
                                    "1e23",
                                    "0.3",
                                    ".5",
                                    "5.",
                                    "1E-5",
                                    "123.456e-7",
                                    "0.000000000000000000000001",
                                    "9007199254740993.0",
                                    "9007199254740992.5",
                                    "1.7976931348623157e308",
                                    "4.9e-324",
                                    "123456789012345678901234567890.5",
                                    "0e500",
                                    "2.5E+2"};
  // And a spread of generated ones.
  unsigned seed = 12345;
  for (int i = 0; i < 2000; ++i) {
    seed = seed * 1103515245 + 12345;
    unsigned digits = 1 + (seed >> 16) % 19;
    std::string m;
    for (unsigned d = 0; d < digits; ++d) {
      seed = seed * 1103515245 + 12345;
      m += static_cast<char>('0' + (seed >> 16) % 10);
    }
    seed = seed * 1103515245 + 12345;
    size_t dot = (seed >> 16) % (m.size() + 1);
    m.insert(dot, ".");
    seed = seed * 1103515245 + 12345;
    int exp = static_cast<int>((seed >> 16) % 61) - 30;
    if (exp % 3 == 0) m += "e" + std::to_string(exp);
    texts.push_back(m);
  }
  for (const std::string& text : texts) {
    for (const std::string& signed_text : {text, "-" + text}) {
      ParseError err;
      ExprPtr e = parse_expr(signed_text, &err);
      ASSERT_TRUE(e) << signed_text << ": " << err.to_string();
      ASSERT_EQ(e.get()->kind, ExprKind::kLiteral) << signed_text;
      const Value& v = as_literal(e.get())->value;
      ASSERT_TRUE(v.is_real()) << signed_text;
      double want = std::strtod(signed_text.c_str(), nullptr);
      double got = v.as_real();
      EXPECT_EQ(std::memcmp(&want, &got, sizeof want), 0) << signed_text;
    }
  }
}

TEST(ParserStrings, PlainEscapedAndJoined) {
  EXPECT_EQ(new_ad_text("[ a = \"plain\"; b = \"t\\\"q\"; c = \"x\" \"y\"; d = \"1\"\n \"2\" ]"),
            "[ a = \"plain\"; b = \"t\\\"q\"; c = \"xy\"; d = \"12\" ]");
  EXPECT_EQ(new_ad_text("[ e = \"line\nbreak\"; f = \"\\101\\x\" ]"),
            "[ e = \"line\\nbreak\"; f = \"Ax\" ]");
  EXPECT_EQ(new_ad_text("[ g = \"unterminated ]"), "error: line 1, column 7: unterminated string");
}

const char* kMachine =
    "[ MyType = \"Machine\"; Memory = 2048; LoadAvg = 0.25; HasDocker = true; "
    "UidDomain = \"example.org\"; FileSystemDomain = \"example.org\"; "
    "START = ((KeyboardIdle > 15 * 60) && ((LoadAvg - CondorLoadAvg) <= 0.3)); "
    "Rank = (TARGET.Department =?= MY.Department) * 10; Requirements = START; "
    "L = { 1, \"two\", 3.0 }; F = strcat(\"a\", Name) ]";

TEST(ParserSharing, EqualTreesAreSharedAcrossAds) {
  size_t before = expr_shared_count();
  {
    ParseError err;
    AdPtr a = parse_classad(kMachine, &err);
    ASSERT_TRUE(a) << err.to_string();
    size_t after_one = expr_shared_count();
    // "example.org" appears twice in the ad but is one shared tree.
    EXPECT_EQ(a->lookup("UidDomain"), a->lookup("FileSystemDomain"));
    AdPtr b = parse_classad(kMachine, &err);
    ASSERT_TRUE(b) << err.to_string();
    EXPECT_EQ(expr_shared_count(), after_one);  // nothing new
    for (size_t i = 0; i < a->size(); ++i) {
      EXPECT_EQ(a->entries()[i].expr, b->entries()[i].expr) << a->entries()[i].name->view();
    }
    AdPtr c = parse_classad_old(
        "MyType = \"Machine\"\nSTART = ((KeyboardIdle > 15 * 60) && ((LoadAvg - CondorLoadAvg) "
        "<= 0.3))\n",
        &err);
    ASSERT_TRUE(c) << err.to_string();
    EXPECT_EQ(c->lookup("START"), a->lookup("START"));
    EXPECT_EQ(c->lookup("MyType"), a->lookup("MyType"));
    // A tree parsed alone and shared through the general path meets them.
    Expr* rank = expr_share(parse_expr("(TARGET.Department =?= MY.Department) * 10").release());
    EXPECT_EQ(rank, a->lookup("Rank"));
    expr_unref(rank);
  }
  EXPECT_EQ(expr_shared_count(), before);  // dropped with the last ad
}

TEST(ParserSharing, DifferentTreesAreNotShared) {
  ParseError err;
  AdPtr ad = parse_classad(
      "[ a = x + y; b = (x + y); c = X + y; d = x + y + 0; e = 1; f = 1.0; g = \"1\"; "
      "h = true; i = 0; j = -0.0; k = 0.0; l = { x }; m = { y }; n = x.y; o = .y; p = y ]",
      &err);
  ASSERT_TRUE(ad) << err.to_string();
  std::vector<const Expr*> seen;
  for (const ClassAd::Entry& en : ad->entries()) {
    for (const Expr* other : seen) EXPECT_NE(en.expr, other) << en.name->view();
    seen.push_back(en.expr);
  }
}

TEST(ParserSharing, TreesWithAdLiteralsAreNotShared) {
  ParseError err;
  AdPtr a = parse_classad("[ n = [ x = 1 ]; l = { [ y = 2 ] } ]", &err);
  AdPtr b = parse_classad("[ n = [ x = 1 ]; l = { [ y = 2 ] } ]", &err);
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->lookup("n"), b->lookup("n"));
  EXPECT_NE(a->lookup("l"), b->lookup("l"));
}

// The hash the parser leaves in every node is the one a fresh walk over the
// finished tree computes.
TEST(ParserSharing, BuiltHashesMatchAFreshWalk) {
  for (const char* text :
       {"((KeyboardIdle > 15 * 60) && ((LoadAvg - CondorLoadAvg) <= 0.3))", "a.b.c[1][2]",
        " !(a && b)", " -(a + 1)", "f(1, \"x\", { 2, 3.5 })", "x ?: y", "a ? b : c", "((((x))))",
        ".y =?= undefined", "error", "a isnt b", "{ }", "\"\"", "1e22 / 3"}) {
    ExprPtr e = parse_expr(text);
    ASSERT_TRUE(e) << text;
    Expr* copy = expr_copy(e.get());  // copies keep the hashes
    uint32_t built = copy->hash;
    ASSERT_TRUE(expr_rehash_tree(copy)) << text;
    EXPECT_EQ(copy->hash, built) << text;
    expr_unref(copy);
  }
}

// Name lookups run inline against a view of the name table that the table
// republishes as it grows; every spelling keeps its id and its string.
TEST(ParserNames, LookupsSurviveTableGrowth) {
  std::vector<InternedName> first;
  for (int i = 0; i < 5000; ++i) first.push_back(intern_name("GrowthName" + std::to_string(i)));
  for (int i = 0; i < 5000; ++i) {
    InternedName again = intern_name("GrowthName" + std::to_string(i));
    EXPECT_EQ(again.id, first[i].id) << i;
    EXPECT_EQ(again.name, first[i].name) << i;
    InternedName upper = intern_name("GROWTHNAME" + std::to_string(i));
    EXPECT_EQ(upper.id, first[i].id) << i;  // same name in another case
    EXPECT_NE(upper.name, first[i].name) << i;
  }
  ParseError err;
  AdPtr ad = parse_classad("[ GrowthName4999 = 1; growthname17 = GROWTHNAME4999 + 1 ]", &err);
  ASSERT_TRUE(ad) << err.to_string();
  int64_t v = 0;
  EXPECT_TRUE(ad->evaluate_int("GrowthName17", v));
  EXPECT_EQ(v, 2);
}

// Parsing and freeing the same ad again and again reuses pool nodes.
TEST(ParserPool, ParseAndFreeReusesNodes) {
  for (int i = 0; i < 10; ++i) parse_classad(kMachine);
  size_t slabs = pool_slab_bytes();
  for (int i = 0; i < 1000; ++i) {
    AdPtr a = parse_classad(kMachine);
    AdPtr b = parse_classad_old("A = \"some text\"\nB = 1.5\nC = A + B\n");
    ASSERT_TRUE(a && b);
  }
  EXPECT_EQ(pool_slab_bytes(), slabs);
}

}  // namespace
}  // namespace kite::classad
