// The examples of HTCondor's ClassAd function reference (classad-builtin-functions), each as
// the text gives it. Where the text and HTCondor 25 differ (the conformance vectors computed by
// HTCondor show it), HTCondor's value is expected and the comment says so.
#include <gtest/gtest.h>

#include "tests/policy/classad/eval_helpers.h"

namespace kite::classad {
namespace {

struct Case {
  const char* expr;
  const char* want;
};

void check(const Case* cases, size_t n) {
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ(eval_text(cases[i].expr), cases[i].want) << cases[i].expr;
}

TEST(ClassAdDocExamples, Quantize) {
  static const Case kCases[] = {
      {"quantize(3, 8)", "8"},
      {"quantize(3, 2)", "4"},
      {"quantize(0, 4)", "0"},
      {"quantize(1.5, 6.8)", "6.800000000000000E+00"},
      // "7.2": ceiling(6.8 / 1.2) * 1.2 in doubles.
      {"quantize(6.8, 1.2)", "7.199999999999999E+00"},
      {"quantize(10, 5.1)", "1.020000000000000E+01"},
      {"quantize(0, {4})", "4"},
      {"quantize(2, {1, 2, \"A\"})", "2"},
      {"quantize(3, {1, 2, 0.5})", "3.000000000000000E+00"},
      {"quantize(2.7, {1, 2, 0.5})", "3.000000000000000E+00"},
      {"quantize(3, {1, 2, \"A\"})", "error"},
  };
  check(kCases, sizeof kCases / sizeof kCases[0]);
}

TEST(ClassAdDocExamples, StringsAndLists) {
  static const Case kCases[] = {
      {"join(\", \", \"a\", \"b\", \"c\")", "\"a, b, c\""},
      {"join(split(\"a b c\"))", "\"abc\""},
      {"join(\";\", split(\"a b c\"))", "\"a;b;c\""},
      {"join(\",\", \"a\", undefined, \"b\")", "\"a,b\""},  // "Undefined arguments are skipped"
      {"splitUserName(\"user@domain\")", "{ \"user\",\"domain\" }"},
      {"splitUserName(\"username\")", "{ \"username\",\"\" }"},
      {"splitSlotName(\"slot1@machine\")", "{ \"slot1\",\"machine\" }"},
      {"splitSlotName(\"machinename\")", "{ \"\",\"machinename\" }"},
      {"size(\"abc\")", "3"},
      {"size({1, 2})", "2"},
      {"size([a = 1; b = 2])", "2"},
      {"size(1)", "error"},
      {"pow(2, -1)", "5.000000000000000E-01"},
      {"pow(0, 0)", "1"},
      {"pow(0.0, 0)", "1.000000000000000E+00"},
      {"round(2.5)", "2"},  // "the even valued integer is returned"
      {"round(3.5)", "4"},
      {"stricmp(\"ABC\", \"abc\")", "0"},
      {"sum({})", "0"},
      {"sum({1, 2.0})", "3.000000000000000E+00"},
      {"sum({1, \"a\"})", "error"},
      // "If the list has only Undefined values, the result is UNDEFINED": HTCondor gives 0.
      {"sum({undefined})", "0"},
      {"avg({})", "0"},
      {"avg({1, 2})", "1.500000000000000E+00"},
      {"min({})", "undefined"},
      {"max({1, 2.5, undefined})", "2.500000000000000E+00"},
      {"min({\"a\"})", "error"},
  };
  check(kCases, sizeof kCases / sizeof kCases[0]);
}

TEST(ClassAdDocExamples, IntervalAndContexts) {
  static const Case kCases[] = {
      {"interval(67)", "\"1:07\""},
      // The text says "17+1:02:03"; HTCondor pads the hours once there are days.
      {"interval(1472523)", "\"17+01:02:03\""},
      {"evalInEachContext(Prio > 2, { [Prio=3;], [Prio=1;] })", "{ true,false }"},
      {"evalInEachContext(Prio, { [Prio=3;], [Prio=1;] })", "{ 3,1 }"},
      // The text says ERROR for an undefined list; HTCondor gives undefined.
      {"evalInEachContext(Prio > 2, UNDEFINED)", "undefined"},
      {"countMatches(Prio > 2, { [Prio=3;], [Prio=1;] })", "1"},
      {"countMatches(Prio > 2, { [Prio=3;], UNDEFINED })", "1"},
      {"countMatches(Prio > 2, UNDEFINED)", "0"},
  };
  check(kCases, sizeof kCases / sizeof kCases[0]);
}

}  // namespace
}  // namespace kite::classad
