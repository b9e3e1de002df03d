// Tests of the string-list built-ins (stringListSize ... stringListsIntersect).
// Expected values come from the reference documentation and HTCondor 25's
// conformance vectors.
#include <gtest/gtest.h>

#include <string>

#include "policy/classad/eval.h"
#include "policy/classad/functions.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "tests/policy/classad/eval_helpers.h"

namespace kite::classad {
namespace {

std::string Eval(const char* text) {
  return eval_text(text);
}

TEST(FunctionsStringList, TableListsEveryName) {
  for (const char* name :
       {"stringListSize", "stringListSum", "stringListAvg", "stringListMin", "stringListMax",
        "stringListMember", "stringListIMember", "stringListSubsetMatch", "stringListISubsetMatch",
        "stringListsIntersect", "STRINGLISTMEMBER"}) {
    EXPECT_NE(function_find(name), nullptr) << name;
  }
}

TEST(FunctionsStringList, Size) {
  EXPECT_EQ(Eval(R"(stringListSize(""))"), "0");
  EXPECT_EQ(Eval(R"(stringListSize(" , "))"), "0");
  EXPECT_EQ(Eval(R"(stringListSize("a, b,"))"), "2");
  EXPECT_EQ(Eval(R"(stringListSize(1))"), "error");
  EXPECT_EQ(Eval(R"(stringListSize(undefined))"), "error");
  EXPECT_EQ(Eval(R"(stringListSize())"), "error");
}

TEST(FunctionsStringList, SumAndAvg) {
  EXPECT_EQ(Eval(R"(stringListSum("1, 2, 3"))"), "6");
  EXPECT_EQ(Eval(R"(stringListSum("5"))"), "5");
  EXPECT_EQ(Eval(R"(stringListSum(" 4 ,5 "))"), "9");
  EXPECT_EQ(Eval(R"(stringListSum("1;2;3", ";"))"), "6");
  EXPECT_EQ(Eval(R"(stringListSum("a, 1"))"), "error");
  EXPECT_EQ(Eval(R"(stringListSum(undefined))"), "error");
  EXPECT_EQ(Eval(R"(stringListAvg("1, 2, 3"))"), "2");
  EXPECT_EQ(Eval(R"(stringListAvg(" 4 ,5 "))"), "4");
  EXPECT_EQ(Eval(R"(stringListAvg("1;2;3", ";"))"), "2");
  EXPECT_EQ(Eval(R"(stringListAvg("a, 1"))"), "error");
  EXPECT_EQ(Eval(R"(stringListAvg(undefined))"), "error");
  EXPECT_EQ(Eval(R"(stringListAvg(""))"), "0.0");  // documented: empty list is 0.0
}

TEST(FunctionsStringList, MinAndMax) {
  EXPECT_EQ(Eval(R"(stringListMin(""))"), "undefined");
  EXPECT_EQ(Eval(R"(stringListMin("-1.5, -2.5"))"), "-2.500000000000000E+00");
  EXPECT_EQ(Eval(R"(stringListMin("10, 2, 33"))"), "2");
  EXPECT_EQ(Eval(R"(stringListMin("1x"))"), "1.000000000000000E+00");
  EXPECT_EQ(Eval(R"(stringListMin("1;2;3"))"), "1.000000000000000E+00");
  EXPECT_EQ(Eval(R"(stringListMax("1, 2.5, 3"))"), "3.000000000000000E+00");
  EXPECT_EQ(Eval(R"(stringListMax("-5, -3"))"), "0");  // the reference starts at FLT_MIN
  EXPECT_EQ(Eval(R"(stringListMax("1e2, 3"))"), "1.000000000000000E+02");
  EXPECT_EQ(Eval(R"(stringListMax("0"))"), "0");
  EXPECT_EQ(Eval(R"(stringListMax(1))"), "error");
  EXPECT_EQ(Eval(R"(stringListMax("1", ",", 3))"), "error");
}

TEST(FunctionsStringList, Member) {
  EXPECT_EQ(Eval(R"(stringListMember("b", "a, b, c"))"), "true");
  EXPECT_EQ(Eval(R"(stringListMember("a", "a"))"), "true");
  EXPECT_EQ(Eval(R"(stringListMember(" b", "a, b"))"), "false");
  EXPECT_EQ(Eval(R"(stringListMember("b", "a;b;c"))"), "false");
  EXPECT_EQ(Eval(R"(stringListMember("b", "a;b;c", ";"))"), "true");
  EXPECT_EQ(Eval(R"(stringListMember("B", "a, b"))"), "false");
  EXPECT_EQ(Eval(R"(stringListMember(undefined, undefined))"), "undefined");
  EXPECT_EQ(Eval(R"(stringListMember(error, "a"))"), "error");
  EXPECT_EQ(Eval(R"(stringListMember(1, "1"))"), "error");
  EXPECT_EQ(Eval(R"(stringListMember("a"))"), "error");
}

TEST(FunctionsStringList, IMember) {
  EXPECT_EQ(Eval(R"(stringListIMember("vanilla", "VANILLA, docker"))"), "true");
  EXPECT_EQ(Eval(R"(stringListIMember("1", "1, 2"))"), "true");
  EXPECT_EQ(Eval(R"(stringListIMember("d", "a, b, c"))"), "false");
  EXPECT_EQ(Eval(R"(stringListIMember("", "a,,b"))"), "false");
  EXPECT_EQ(Eval(R"(stringListIMember("a b", "a b, c"))"), "false");
  EXPECT_EQ(Eval(R"(stringListIMember("a", undefined))"), "false");
  EXPECT_EQ(Eval(R"(stringListIMember("b", "a:b:c", ""))"), "false");
}

TEST(FunctionsStringList, SubsetMatch) {
  EXPECT_EQ(Eval(R"(stringListSubsetMatch("a,b", "a,b,c"))"), "true");
  EXPECT_EQ(Eval(R"(stringListSubsetMatch("", ""))"), "true");
  EXPECT_EQ(Eval(R"(stringListSubsetMatch("a b", "b,a"))"), "true");
  EXPECT_EQ(Eval(R"(stringListSubsetMatch("a,a", "a"))"), "true");
  EXPECT_EQ(Eval(R"(stringListSubsetMatch("a,d", "a,b"))"), "false");
  EXPECT_EQ(Eval(R"(stringListSubsetMatch("A", "a"))"), "false");
  EXPECT_EQ(Eval(R"(stringListSubsetMatch(undefined, "a"))"), "true");
  EXPECT_EQ(Eval(R"(stringListSubsetMatch("a", undefined))"), "false");
  EXPECT_EQ(Eval(R"(stringListSubsetMatch(undefined, undefined))"), "undefined");
  EXPECT_EQ(Eval(R"(stringListSubsetMatch(1, "1"))"), "error");
  EXPECT_EQ(Eval(R"(stringListSubsetMatch({ "a" }, "a"))"), "error");
}

TEST(FunctionsStringList, ISubsetMatch) {
  EXPECT_EQ(Eval(R"(stringListISubsetMatch("", "a"))"), "true");
  EXPECT_EQ(Eval(R"(stringListISubsetMatch("A,B", "a,b,c"))"), "true");
  EXPECT_EQ(Eval(R"(stringListISubsetMatch("a;b", "b;a;c", ","))"), "false");
  EXPECT_EQ(Eval(R"(stringListISubsetMatch("a"))"), "error");
  EXPECT_EQ(Eval(R"(stringListISubsetMatch(error, "a"))"), "error");
  EXPECT_EQ(Eval(R"(stringListISubsetMatch("a", "a", ",", 1))"), "error");
}

TEST(FunctionsStringList, ListsIntersect) {
  EXPECT_EQ(Eval(R"(stringListsIntersect("a,b,c", "c,d"))"), "true");
  EXPECT_EQ(Eval(R"(stringListsIntersect("", ""))"), "false");
  EXPECT_EQ(Eval(R"(stringListsIntersect("a;b", "b;c", ";"))"), "true");
  EXPECT_EQ(Eval(R"(stringListsIntersect("1,2", "2.0"))"), "false");
  EXPECT_EQ(Eval(R"(stringListsIntersect("a", undefined))"), "undefined");
  EXPECT_EQ(Eval(R"(stringListsIntersect("a", error))"), "error");
  EXPECT_EQ(Eval(R"(stringListsIntersect("a", 1))"), "error");
  EXPECT_EQ(Eval(R"(stringListsIntersect("a"))"), "error");
  EXPECT_EQ(Eval(R"(stringListsIntersect("a", "a", ",", 1))"), "error");
}

}  // namespace
}  // namespace kite::classad
