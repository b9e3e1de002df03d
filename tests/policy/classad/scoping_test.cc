// Tests for attribute scoping: MY. and TARGET., unqualified names falling
// back to the match partner, nested ads and their parent scope, case
// insensitivity, and termination of self-references and deep recursion.
// HTCONDOR: classad-mechanism "Attribute References"; expected values come
// from the reference and the structure.tsv / extra.tsv vectors.
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

AdPtr ad_of(const std::string& text) {
  ParseError err;
  AdPtr ad = parse_classad(text, &err);
  EXPECT_TRUE(ad) << text << ": " << err.to_string();
  return ad;
}

// Evaluates `expr` with `left` as MY and `right` as TARGET.
std::string eval_match(const char* left, const char* right, const char* expr) {
  AdPtr l = ad_of(left);
  AdPtr r = ad_of(right);
  ExprPtr e = parse_expr(expr);
  if (!l || !r || !e) return "<bad test input>";
  MatchPair pair(*l, *r);
  return to_string(pair.evaluate_left(e.get()));
}

TEST(ScopingPrefixes, MyAndTarget) {
  EXPECT_EQ(eval_match("[x = 1]", "[x = 2]", "MY.x"), "1");
  EXPECT_EQ(eval_match("[x = 1]", "[x = 2]", "TARGET.x"), "2");
  EXPECT_EQ(eval_match("[x = 1]", "[x = 2]", "x"), "1");  // MY first
  EXPECT_EQ(eval_match("[x = 1]", "[y = z]", "TARGET.y"), "undefined");
  EXPECT_EQ(eval_match("[a = 1]", "[b = 4]", "my.a + target.b"), "5");
  EXPECT_EQ(eval_match("[]", "[]", "MY.x =?= TARGET.x"), "true");
  EXPECT_EQ(eval_match("[a = 1]", "[b = 4]", "MY.b"), "undefined");  // no fallback
  EXPECT_EQ(eval_match("[a = 1]", "[b = 4]", "TARGET.a"), "undefined");
}

TEST(ScopingPrefixes, NamesAreCaseInsensitive) {
  EXPECT_EQ(eval_match("[Memory = 1]", "[memory = 2]", "my.memory"), "1");
  EXPECT_EQ(eval_match("[x = 1]", "[X = 2]", "TARGET.x - x"), "1");
  EXPECT_EQ(eval_match("[MemorY = 3]", "[]", "MEMORY + memory"), "6");
}

TEST(ScopingPrefixes, TargetExpressionsEvaluateInTheTargetAd) {
  // TARGET.b is evaluated with the right ad as MY, so its own TARGET is
  // the left ad (scoping-040, scoping-013).
  EXPECT_EQ(eval_match("[a = 1]", "[b = TARGET.a * 10]", "TARGET.b"), "10");
  EXPECT_EQ(eval_match("[a = TARGET.b]", "[b = TARGET.c]", "a"), "undefined");
  EXPECT_EQ(eval_match("[a = 2; c = TARGET.b]", "[b = MY.a]", "c"), "undefined");
  EXPECT_EQ(eval_match("[a = 2; c = TARGET.b]", "[a = 7; b = a]", "c"), "7");
}

TEST(ScopingFallback, UnqualifiedNamesFallBackToThePartner) {
  // Reference: "Otherwise, if the attribute is defined in B, the value of
  // the reference is the value of the expression bound to the attribute
  // name in B."
  EXPECT_EQ(eval_match("[a = b]", "[b = 5]", "a"), "5");
  EXPECT_EQ(eval_match("[]", "[b = 5]", "b + 1"), "6");
  EXPECT_EQ(eval_match("[b = 1]", "[b = 5]", "b"), "1");
  EXPECT_EQ(eval_match("[]", "[]", "nothere"), "undefined");
  // In the partner's expressions the roles swap: the right ad's `d` falls
  // back to the left ad.
  EXPECT_EQ(eval_match("[d = 3]", "[c = d * 2]", "TARGET.c"), "6");
  // The job's Rank names the machine's attributes without TARGET
  // (symmetric-001 style).
  EXPECT_EQ(eval_match("[Rank = Memory > 4096]", "[Memory = 8192]", "MY.Rank"), "true");
}

TEST(ScopingFallback, NoFallbackWithoutAMatch) {
  AdPtr ad = ad_of("[a = b]");
  EXPECT_EQ(to_string(ad->evaluate_attr("a")), "undefined");
  ExprPtr e = parse_expr("TARGET.x");
  EXPECT_EQ(to_string(ad->evaluate_expr(e.get())), "undefined");
}

TEST(ScopingFallback, MatchPairRestoresPartners) {
  AdPtr l = ad_of("[a = b]");
  AdPtr r = ad_of("[b = 5]");
  {
    MatchPair pair(*l, *r);
    EXPECT_EQ(to_string(l->evaluate_attr("a")), "5");
  }
  EXPECT_EQ(l->partner(), nullptr);
  EXPECT_EQ(r->partner(), nullptr);
  EXPECT_EQ(to_string(l->evaluate_attr("a")), "undefined");
}

TEST(ScopingNested, ParentScope) {
  const struct {
    const char* expr;
    const char* expected;
  } cases[] = {
      {"[x = 1; a = [y = 2; b = x + y]].a.b", "3"},  // nested-ad-016
      {"[x = 1; a = [x = 2; b = x]].a.b", "2"},      // inner name shadows
      {"[a = [b = [c = 42]]].a.b.c", "42"},
      {"[a = [b = [c = 42]]].a.b.d", "undefined"},  // nested-ad-007
      {"[a = 1].a.b", "error"},                     // nested-ad-013
      {"[a = {[b = 1], [b = 2]}].a.b", "{ 1,2 }"},  // nested-ad-019
      {"{[a = 1], [a = 2], [b = 3]}.a", "{ 1,2,undefined }"},
      {"[x = 5; a = { [y = x] }].a[0].y", "5"},  // ads inside lists see the parent
      {"[x = 1; a = [y = z]].a.y", "undefined"},
  };
  for (const auto& c : cases) EXPECT_EQ(eval_text(c.expr), c.expected) << c.expr;
}

TEST(ScopingNested, NestedAdsInsideAMatch) {
  // scoping-079: f = g inside TARGET's nested ad finds TARGET's g, not MY's.
  EXPECT_EQ(eval_match("[g = 10]", "[d = [e = [f = g]]; g = 1]", "TARGET.d.e.f"), "1");
  EXPECT_EQ(eval_match("[a = 1]", "[b = [c = 4]]", "TARGET.b.c"), "4");
}

TEST(ScopingNested, ParentScopeSurvivesCopyAndInsert) {
  AdPtr outer = ad_of("[x = 7; n = [y = x * 2]]");
  AdPtr copy(outer->copy());
  outer = AdPtr();  // the copy must not point into the freed original
  ExprPtr e = parse_expr("n.y");
  EXPECT_EQ(to_string(copy->evaluate_expr(e.get())), "14");
  copy->insert_value("x", Value::integer(1));
  EXPECT_EQ(to_string(copy->evaluate_expr(e.get())), "2");
}

// HTCondor evaluates the element a subscript picks in the scope of the ad
// that holds the list (the element's parent scope), not in the ad of the
// expression doing the subscript.
TEST(ScopingNested, ListElementsResolveInTheAdHoldingTheList) {
  EXPECT_EQ(eval_text("[x = 5; l = {x, x + 1}].l[1]"), "6");
  EXPECT_EQ(eval_text("[x = 5; l = {x, [y = x]}].l[1].y"), "5");
  EXPECT_EQ(eval_text("[x = 5; a = [x = 7; l = {x}]; l = a.l].l[0]"), "7");
  EXPECT_EQ(eval_text("[x = 5; l = {{x}}].l[0][0]"), "5");
  // The partner's list: its names are the partner's.
  EXPECT_EQ(eval_match("[x = 1]", "[x = 3; l = {x, x * 10}]", "TARGET.l[1]"), "30");
  EXPECT_EQ(eval_match("[x = 1; l = {x, x + 1}]", "[x = 3]", "l[1]"), "2");
  // A list written in the expression itself: the expression's own ad.
  EXPECT_EQ(eval_match("[x = 1]", "[x = 3]", "{x}[0]"), "1");
  EXPECT_EQ(eval_text("{x}[0]"), "undefined");
  // An ad subscripted by a name looks in that ad alone.
  EXPECT_EQ(eval_text("[x = 1; n = [y = 2]].n[\"y\"]"), "2");
  EXPECT_EQ(eval_text("[x = 1; n = [y = 2]].n[\"x\"]"), "undefined");
  EXPECT_EQ(eval_text("[x = 1; n = [y = x]].n[\"Y\"]"), "1");
  // The index is read as a C int: only its low 32 bits count.
  EXPECT_EQ(eval_text("{1, 2, 3}[4294967297]"), "2");
  EXPECT_EQ(eval_text("{1, 2, 3}[4294967296]"), "1");
}

// In a match HTCondor places each ad in a context ad that defines `target`
// and `other` as the partner; names the ad itself (or an ad it is nested
// in) defines come first.
TEST(ScopingPrefixes, OtherIsTheMatchPartner) {
  EXPECT_EQ(
      eval_match("[Requirements = other.Memory >= 512]", "[Memory = 1024]", "MY.Requirements"),
      "true");
  EXPECT_EQ(eval_match("[]", "[Memory = 1024]", "other.Memory"), "1024");
  EXPECT_EQ(eval_match("[]", "[Memory = 1024]", "OTHER.Memory"), "1024");
  EXPECT_EQ(eval_match("[x = 1]", "[y = other.x]", "TARGET.y"), "1");
  EXPECT_EQ(eval_match("[other = [Memory = 2]]", "[Memory = 1024]", "other.Memory"), "2");
  EXPECT_EQ(eval_text("other.Memory"), "undefined");  // no match: nothing defines it
  AdPtr ad = ad_of("[x = other.Memory]");
  EXPECT_EQ(to_string(ad->evaluate_attr("x")), "undefined");
}

// A selection chain looks TARGET up from the selected ad: MY.TARGET is the
// partner, TARGET.TARGET is MY again; an ad that defines TARGET (or one it
// is nested in) keeps its own.
TEST(ScopingPrefixes, ChainsThroughTarget) {
  const char* left = "[x = 1; n = [TARGET = [x = 7]; y = TARGET.x; z = MY.TARGET.x; w = x]]";
  const char* right = "[x = 3; Memory = 512]";
  EXPECT_EQ(eval_match(left, right, "MY.TARGET.x"), "3");
  EXPECT_EQ(eval_match(left, right, "TARGET.TARGET.x"), "1");
  EXPECT_EQ(eval_match(left, right, "TARGET.MY.x"), "3");
  EXPECT_EQ(eval_match(left, right, "MY.other.x"), "3");
  EXPECT_EQ(eval_match(left, right, "TARGET.other.x"), "1");
  EXPECT_EQ(eval_match(left, right, "TARGET.other.Memory"), "undefined");
  EXPECT_EQ(eval_match(left, right, "n.y"), "7");
  EXPECT_EQ(eval_match(left, right, "n.z"), "7");
  EXPECT_EQ(eval_match(left, right, "n.TARGET.x"), "7");
  EXPECT_EQ(eval_match("[n = [m = 1]]", right, "n.TARGET.Memory"), "512");
  EXPECT_EQ(eval_text("[TARGET = [x = 3]].TARGET.x"), "3");
  EXPECT_EQ(eval_text("[a = 1].TARGET"), "undefined");
}

TEST(ScopingCycles, SelfReferencesAreUndefined) {
  // Vectors: `[ a = a + 1 ].a` is undefined (HTCondor's evaluator returns
  // UNDEFINED for a reference to an attribute being evaluated).
  EXPECT_EQ(eval_text("[ a = a + 1 ].a"), "undefined");
  EXPECT_EQ(eval_text("[ a = b; b = a ].a"), "undefined");
  EXPECT_EQ(eval_text("[ a = b + 1; b = c + 1; c = a + 1 ].b"), "undefined");
  // A list element is evaluated after the attribute holding the list is
  // done, in that attribute's ad: `a` there is the list again, not a cycle.
  EXPECT_EQ(eval_text("[ a = { a } ].a[0]"), "{ a }");
  // An element that subscripts its own list never ends: HTCondor's depth
  // limit turns it into ERROR.
  EXPECT_EQ(eval_text("[ a = { a[0] } ].a[0]"), "error");
  AdPtr ad = ad_of("[ s = s ]");
  EXPECT_EQ(to_string(ad->evaluate_attr("s")), "undefined");
  // A cycle through the match partner.
  EXPECT_EQ(eval_match("[a = TARGET.b]", "[b = TARGET.a]", "a"), "undefined");
  EXPECT_EQ(eval_match("[a = b]", "[b = a]", "a"), "undefined");
}

TEST(ScopingCycles, NonCyclicRepeatsAreFine) {
  // The same attribute used twice in one expression is not a cycle.
  EXPECT_EQ(eval_text("[ a = 2; b = a * a + a ].b"), "6");
  EXPECT_EQ(eval_text("[ a = 2; b = a; c = b + b ].c"), "4");
  // b names the outer a, which is the nested ad itself: a path, not a cycle.
  EXPECT_EQ(eval_text("[ a = [ b = a ] ].a.b.b.b"), "[ b = a ]");
}

TEST(ScopingCycles, DeepRecursionTerminates) {
  // A chain a0 = a1 + 1, ..., aN = 0: short chains evaluate exactly; very
  // long ones stop at the evaluator's limit with an exceptional value
  // instead of overflowing the stack.
  auto chain = [](int n) {
    std::string text = "[";
    for (int i = 0; i < n; ++i)
      text += " a" + std::to_string(i) + " = a" + std::to_string(i + 1) + " + 1;";
    text += " a" + std::to_string(n) + " = 0 ]";
    return text;
  };
  AdPtr shortc = ad_of(chain(50));
  EXPECT_EQ(to_string(shortc->evaluate_attr("a0")), "50");
  AdPtr longc = ad_of(chain(5000));
  Value v = longc->evaluate_attr("a0");
  EXPECT_TRUE(v.is_exceptional()) << to_string(v);

  // Deeply nested ads referring outward (within the parser's nesting limit).
  std::string nested = "[x = 1; a = ";
  for (int i = 0; i < 100; ++i) nested += "[b = ";
  nested += "x";
  for (int i = 0; i < 100; ++i) nested += "]";
  nested += "]";
  AdPtr deep = ad_of(nested);
  ASSERT_TRUE(deep);
  std::string path = "a";
  for (int i = 0; i < 100; ++i) path += ".b";
  ExprPtr e = parse_expr(path);
  ASSERT_TRUE(e);
  EXPECT_EQ(to_string(deep->evaluate_expr(e.get())), "1");
}

// HTCondor's old-ClassAd semantics (its default) treat self/MY, parent,
// root/toplevel and CurrentTime specially when the current ad does not define
// them, resolving them at once without searching enclosing ads
// (classad-mechanism "Attribute References"; HTCondor's LookupInScope).
TEST(ScopingSpecialNames, SelfParentRootAndCurrentTime) {
  EXPECT_EQ(eval_text("[ a = 1; n = [ b = parent.a ] ].n.b"), "1");
  EXPECT_EQ(eval_text("[ a = 1; n = [ b = root.a ] ].n.b"), "1");
  EXPECT_EQ(eval_text("[ a = 1; n = [ b = toplevel.a ] ].n.b"), "1");
  EXPECT_EQ(eval_text("[ a = 1; n = [ a = 2; b = self.a ] ].n.b"), "2");
  // A special name is not looked up in enclosing ads: MY inside n is n.
  EXPECT_EQ(eval_text("[ my = 5; n = [ y = my.z; z = 7 ] ].n.y"), "7");
  // An ad that defines the name keeps its own value.
  EXPECT_EQ(eval_text("[ CurrentTime = 5 ].CurrentTime"), "5");
  EXPECT_EQ(eval_text("[ parent = 3 ].parent"), "3");
}

TEST(ScopingSpecialNames, CurrentTimeFollowsTheContextsClock) {
  const int64_t now = 1700000000;
  const EvalEnv env = fixed_time_env(&now);
  EXPECT_EQ(eval_text("CurrentTime", &env), "1700000000");
  EXPECT_EQ(eval_text("CurrentTime == time()", &env), "true");
  AdPtr ad = ad_of("[ age = CurrentTime - 1699999400 ]");
  EXPECT_EQ(to_string(ad->evaluate_attr("age", &env)), "600");
}

}  // namespace
}  // namespace kite::classad
