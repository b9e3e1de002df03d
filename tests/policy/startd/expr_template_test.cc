// Tests for ExprTemplate (policy/startd/expr_template.h): what it makes is the tree the parser
// gives for the printed text, numbers, hashes and all; negative numbers still come out right.
#include "policy/startd/expr_template.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "policy/classad/classad.h"
#include "policy/classad/expr_share.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::startd {
namespace {

constexpr const char* kPair = "ifThenElse(time() > %lld, time() - %lld, undefined)";

// The parser's tree for the text with these numbers.
classad::ExprPtr parsed(const char* format, long long a, long long b) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, a, b);
  return classad::parse_expr(buf);
}

std::string text(const classad::Expr* e) {
  std::string out;
  classad::unparse_expr(out, e);
  return out;
}

TEST(ExprTemplate, SameTreeAsParsingThePrintedText) {
  ExprTemplate shape(kPair, 2);
  for (int64_t v : {int64_t{0}, int64_t{7}, int64_t{86400}, int64_t{1} << 40}) {
    const int64_t nums[2] = {v, v};
    classad::ExprPtr made = shape.make(nums);
    classad::ExprPtr want = parsed(kPair, v, v);
    ASSERT_TRUE(made && want);
    EXPECT_TRUE(classad::expr_equal(made.get(), want.get())) << text(made.get());
    EXPECT_EQ(made.get()->hash, want.get()->hash);
    EXPECT_EQ(text(made.get()), text(want.get()));
  }
}

TEST(ExprTemplate, HolesTakeTheirOwnNumbers) {
  ExprTemplate shape("%lld + ifThenElse(Activity == \"Suspended\", time() - %lld, 0)", 2);
  const int64_t nums[2] = {12, 3400};
  classad::ExprPtr made = shape.make(nums);
  ASSERT_TRUE(made);
  EXPECT_EQ(text(made.get()), "12 + ifThenElse(Activity == \"Suspended\",time() - 3400,0)");
}

TEST(ExprTemplate, NegativeNumbersAsTheParserReadsThem) {
  ExprTemplate shape(kPair, 2);
  const int64_t nums[2] = {-5, -5};
  classad::ExprPtr made = shape.make(nums);
  classad::ExprPtr want = parsed(kPair, -5, -5);
  ASSERT_TRUE(made && want);
  EXPECT_TRUE(classad::expr_equal(made.get(), want.get())) << text(made.get());
  EXPECT_EQ(made.get()->hash, want.get()->hash);
}

TEST(ExprTemplate, EvaluatesWithItsNumbers) {
  ExprTemplate shape("%lld - %lld", 2);
  const int64_t nums[2] = {100, 58};
  classad::ExprPtr made = shape.make(nums);
  ASSERT_TRUE(made);
  classad::AdPtr ad(classad::ClassAd::make());
  classad::Value v = ad->evaluate_expr(made.get());
  ASSERT_TRUE(v.is_integer());
  EXPECT_EQ(v.as_integer(), 42);
}

TEST(ExprTemplate, EachMakeIsItsOwnTree) {
  ExprTemplate shape(kPair, 2);
  const int64_t a[2] = {1, 1}, b[2] = {2, 2};
  classad::ExprPtr first = shape.make(a);
  classad::ExprPtr second = shape.make(b);
  ASSERT_TRUE(first && second);
  EXPECT_NE(first.get(), second.get());
  EXPECT_EQ(text(first.get()), "ifThenElse(time() > 1,time() - 1,undefined)");
  EXPECT_EQ(text(second.get()), "ifThenElse(time() > 2,time() - 2,undefined)");
}

}  // namespace
}  // namespace kite::startd
