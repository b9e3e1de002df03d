// Tests for the evaluator's contract (eval.h, classad.h): literals, lazy
// lists and branches, typed evaluation helpers, truth of policy values,
// and the time source. HTCONDOR: classad-mechanism "Evaluation Semantics".
#include "policy/classad/eval.h"

#include <gtest/gtest.h>

#include <cstdio>

#include <string>

#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "tests/policy/classad/eval_helpers.h"

namespace kite::classad {
namespace {

TEST(EvalLiterals, EvaluateToThemselves) {
  const char* literals[] = {"1",     "-0.0",    "\"s\"",     "true", "undefined",
                            "error", "{ 1,2 }", "[ a = 1 ]", "0.0"};
  for (const char* text : literals) EXPECT_EQ(eval_text(text), text) << text;
}

TEST(EvalLaziness, ListsAndBranches) {
  EXPECT_EQ(eval_text("{ 1, 1/0, 3 }[2]"), "3");
  EXPECT_EQ(eval_text("{ 1, 1/0, 3 }[1]"), "error");
  EXPECT_EQ(eval_text("true ? 1 : 1/0"), "1");
  EXPECT_EQ(eval_text("false && (1/0)"), "false");
  EXPECT_EQ(eval_text("true || (1/0)"), "true");
  EXPECT_EQ(eval_text("ifThenElse(true, 1, 1/0)"), "1");
  // A list value keeps its elements unevaluated: it prints as written.
  EXPECT_EQ(eval_text("[ x = 1; l = { x, x + 1 } ].l"), "{ x,x + 1 }");
}

TEST(EvalAttributes, TypedHelpers) {
  AdPtr ad = parse_classad(
      "[ i = 3; r = 2.5; b = true; s = \"str\"; u = undefined; e = 1/0; "
      "ie = i * 2; l = { 1 } ]");
  ASSERT_TRUE(ad);
  int64_t i = 0;
  double r = 0;
  bool b = false;
  std::string s;
  EXPECT_TRUE(ad->evaluate_int("i", i));
  EXPECT_EQ(i, 3);
  EXPECT_TRUE(ad->evaluate_int("ie", i));
  EXPECT_EQ(i, 6);
  EXPECT_TRUE(ad->evaluate_real("r", r));
  EXPECT_EQ(r, 2.5);
  EXPECT_TRUE(ad->evaluate_real("i", r));  // integers convert to real
  EXPECT_EQ(r, 3.0);
  EXPECT_TRUE(ad->evaluate_bool("b", b));
  EXPECT_TRUE(b);
  EXPECT_FALSE(ad->evaluate_int("b", i));  // booleans do not convert
  EXPECT_FALSE(ad->evaluate_real("b", r));
  EXPECT_FALSE(ad->evaluate_bool("i", b));
  EXPECT_TRUE(ad->evaluate_string("s", s));
  EXPECT_EQ(s, "str");
  EXPECT_FALSE(ad->evaluate_string("i", s));
  for (const char* name : {"u", "e", "missing", "l"}) {
    EXPECT_FALSE(ad->evaluate_int(name, i)) << name;
    EXPECT_FALSE(ad->evaluate_real(name, r)) << name;
    EXPECT_FALSE(ad->evaluate_bool(name, b)) << name;
    EXPECT_FALSE(ad->evaluate_string(name, s)) << name;
  }
  EXPECT_EQ(to_string(ad->evaluate_attr("missing")), "undefined");
  EXPECT_EQ(to_string(ad->evaluate_attr("E")), "error");  // names are case-insensitive
}

TEST(EvalTruth, PolicyReading) {
  // eval.h: boolean true or a non-zero number is true; all else is not.
  EXPECT_TRUE(value_is_true(Value::boolean(true)));
  EXPECT_TRUE(value_is_true(Value::integer(2)));
  EXPECT_TRUE(value_is_true(Value::real(0.5)));
  EXPECT_FALSE(value_is_true(Value::boolean(false)));
  EXPECT_FALSE(value_is_true(Value::integer(0)));
  EXPECT_FALSE(value_is_true(Value::real(0.0)));
  EXPECT_FALSE(value_is_true(Value::undefined()));
  EXPECT_FALSE(value_is_true(Value::error()));
  EXPECT_FALSE(value_is_true(Value::string("true")));
}

// Time reaches the evaluator through its context: two contexts with
// different clocks evaluate side by side, and one without reads the real one.
TEST(EvalTime, ClockComesFromTheContext) {
  const int64_t early = 1700000000, late = 1800000000;
  const EvalEnv at_early = fixed_time_env(&early);
  const EvalEnv at_late = fixed_time_env(&late);
  EXPECT_EQ(eval_text("time()", &at_early), "1700000000");
  EXPECT_EQ(eval_text("time() - 1699999400", &at_early), "600");
  EXPECT_EQ(eval_text("time()", &at_late), "1800000000");
  ExprPtr e = parse_expr("time()");
  AdPtr ad = parse_classad("[ t = time() ]");
  ASSERT_TRUE(e && ad);
  EvalContext a(ad.get(), &at_early), b(ad.get(), &at_late);
  EXPECT_EQ(to_string(a.eval(e.get())), "1700000000");
  EXPECT_EQ(to_string(b.eval(e.get())), "1800000000");
  EXPECT_EQ(to_string(ad->evaluate_attr("t", &at_late)), "1800000000");
  Value v = evaluate(e.get());
  ASSERT_TRUE(v.is_integer());
  EXPECT_GT(v.as_integer(), 1764000000);  // the real clock: after 2025-11-24
}

// random() draws from the context's stream: equal seeds give equal draws,
// and without a stream the process's own (seeded per process) is used.
TEST(EvalRandom, StreamComesFromTheContext) {
  ExprPtr e = parse_expr("random(1000000000)");
  ASSERT_TRUE(e);
  RandomStream s1(42), s2(42), s3(43);
  EvalEnv e1, e2, e3;
  e1.random = &s1;
  e2.random = &s2;
  e3.random = &s3;
  std::string a, b, c;
  for (int i = 0; i < 4; ++i) {
    a += to_string(evaluate(e.get(), &e1)) + ",";
    b += to_string(evaluate(e.get(), &e2)) + ",";
    c += to_string(evaluate(e.get(), &e3)) + ",";
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // The process stream: draws vary (four equal draws of 10^9 would be a
  // broken stream) and stay in range.
  bool all_same = true;
  Value first = evaluate(e.get());
  for (int i = 0; i < 4; ++i) {
    Value v = evaluate(e.get());
    ASSERT_TRUE(v.is_integer());
    EXPECT_GE(v.as_integer(), 0);
    EXPECT_LT(v.as_integer(), 1000000000);
    if (v.as_integer() != first.as_integer()) all_same = false;
  }
  EXPECT_FALSE(all_same);
}

// Each process seeds its own stream: three runs of `kite classad eval`
// do not all draw the same first number out of 10^9.
TEST(EvalRandom, EachProcessDrawsItsOwnSequence) {
  std::string draws[3];
  for (std::string& d : draws) {
    FILE* p = popen(KITE_BINARY " classad eval 'random(1000000000)'", "r");
    ASSERT_NE(p, nullptr);
    char buf[64] = {0};
    ASSERT_NE(std::fgets(buf, sizeof buf, p), nullptr);
    ASSERT_EQ(pclose(p), 0);
    d = buf;
  }
  EXPECT_FALSE(draws[0] == draws[1] && draws[1] == draws[2]) << draws[0];
}

TEST(EvalContextApi, EvalInAnotherScope) {
  AdPtr a = parse_classad("[ x = 1 ]");
  AdPtr b = parse_classad("[ x = 2 ]");
  ExprPtr e = parse_expr("x * 10");
  EvalContext ctx(a.get());
  EXPECT_EQ(to_string(ctx.eval(e.get())), "10");
  Value out;
  ctx.eval_in(b.get(), e.get(), out);
  EXPECT_EQ(to_string(out), "20");
  EXPECT_EQ(to_string(ctx.eval(e.get())), "10");  // scope restored
}

TEST(EvalContextApi, ResolveFindsTheBinding) {
  AdPtr ad = parse_classad("[ x = 1 + 2; n = [ y = x ] ]");
  ExprPtr ref = parse_expr("x");
  ASSERT_EQ(ref.get()->kind, ExprKind::kAttr);
  EvalContext ctx(ad.get());
  const ClassAd* where = nullptr;
  const Expr* bound = ctx.resolve(as_attr(ref.get()), &where);
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ(where, ad.get());
  EXPECT_EQ(to_string(bound), "1 + 2");
}

}  // namespace
}  // namespace kite::classad
