// Unit tests for the list predicates (functions_list.cc). Expected values
// come from HTCondor 25's own results (the conformance vectors).
#include <gtest/gtest.h>

#include <string>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "tests/policy/classad/eval_helpers.h"

namespace kite::classad {
namespace {

std::string Eval(const char* text) {
  return eval_text(text);
}

TEST(FunctionsList, Member) {
  EXPECT_EQ(Eval("member(1, {1, 2})"), "true");
  EXPECT_EQ(Eval("member(1, {1.0})"), "true");
  EXPECT_EQ(Eval("member(true, {1})"), "true");
  EXPECT_EQ(Eval("member(\"A\", { 1,\"a\",2.5 })"), "true");
  EXPECT_EQ(Eval("member(2, {1, 1 + 1})"), "true");
  EXPECT_EQ(Eval("member(1, {error})"), "false");
  EXPECT_EQ(Eval("member(undefined, { 1.0,true,\"A\",undefined })"), "undefined");
  EXPECT_EQ(Eval("member(1, undefined)"), "undefined");
  EXPECT_EQ(Eval("member(1, 1)"), "error");
  EXPECT_EQ(Eval("member({ 1 }, { { 1 } })"), "error");
  EXPECT_EQ(Eval("member([a = 1], {[a = 1]})"), "error");
  EXPECT_EQ(Eval("member(1)"), "error");
}

TEST(FunctionsList, IdenticalMember) {
  EXPECT_EQ(Eval("identicalMember(\"x\", {\"y\", \"x\"})"), "true");
  EXPECT_EQ(Eval("identicalMember(\"a\", {\"A\", \"b\"})"), "false");
  EXPECT_EQ(Eval("identicalMember(1, {true})"), "false");
  EXPECT_EQ(Eval("identicalMember(undefined, { 1.0,true,\"A\",undefined })"), "true");
  EXPECT_EQ(Eval("identicalMember(1, {})"), "false");
  EXPECT_EQ(Eval("identicalMember(1, undefined)"), "undefined");
  EXPECT_EQ(Eval("identicalMember(1, 1)"), "error");
  EXPECT_EQ(Eval("identicalMember({1}, {{1}})"), "error");
  EXPECT_EQ(Eval("identicalMember(1)"), "error");
}

TEST(FunctionsList, AnyCompare) {
  EXPECT_EQ(Eval("anyCompare(\"<\", { 1,2,3 }, 2)"), "true");
  EXPECT_EQ(Eval("anyCompare(\"<=\", { }, 2)"), "false");
  EXPECT_EQ(Eval("anyCompare(\"isnt\", { 1,2,3 }, 2)"), "true");
  EXPECT_EQ(Eval("anyCompare(\"<\", { \"a\",\"b\" }, \"B\")"), "true");
  EXPECT_EQ(Eval("anyCompare(\"==\", { 1,\"1\",2.0,undefined }, 2)"), "error");
  EXPECT_EQ(Eval("anyCompare(\"==\", { 1,\"1\",2.0,undefined }, undefined)"), "false");
  EXPECT_EQ(Eval("anyCompare(\"==\", undefined, 1)"), "undefined");
  EXPECT_EQ(Eval("anyCompare(\"==\", 1, 1)"), "error");
  EXPECT_EQ(Eval("anyCompare(\"==\", { 1 }, error)"), "error");
  EXPECT_EQ(Eval("anyCompare(\"=?=\", { 1,2,3 }, 2)"), "error");
  EXPECT_EQ(Eval("anyCompare(\"EQ\", { 1 }, 1)"), "error");
  EXPECT_EQ(Eval("anyCompare(\"bogus\", { }, 2)"), "error");
  EXPECT_EQ(Eval("anyCompare(\"<\", { 1 })"), "error");
}

TEST(FunctionsList, AllCompare) {
  EXPECT_EQ(Eval("allCompare(\"<\", { 1,2,3 }, 2)"), "false");
  EXPECT_EQ(Eval("allCompare(\"<=\", { }, 2)"), "true");
  EXPECT_EQ(Eval("allCompare(\"==\", { 1,\"1\",2.0,undefined }, 2)"), "false");
  EXPECT_EQ(Eval("allCompare(\"==\", { 1,\"1\",2.0,undefined }, \"2\")"), "error");
  EXPECT_EQ(Eval("allCompare(\"==\", { \"a\",\"B\",\"c\" }, undefined)"), "false");
  EXPECT_EQ(Eval("allCompare(\"<\", { \"a\",\"b\" }, \"B\")"), "false");
  EXPECT_EQ(Eval("allCompare(\"==\", undefined, 1)"), "undefined");
  EXPECT_EQ(Eval("allCompare(\"=!=\", { }, 2)"), "error");
  EXPECT_EQ(Eval("allCompare()"), "error");
}

}  // namespace
}  // namespace kite::classad
