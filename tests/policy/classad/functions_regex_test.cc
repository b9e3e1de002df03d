// Tests of the regex built-ins (regexp, regexps, replace, replaceAll,
// regexpMember, stringList_regexpMember). Expected values come from the
// reference documentation and HTCondor 25's conformance vectors.
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

TEST(FunctionsRegex, TableListsEveryName) {
  for (const char* name : {"regexp", "regexps", "replace", "replaceAll", "replaceall",
                           "regexpMember", "stringList_regexpMember"}) {
    EXPECT_NE(function_find(name), nullptr) << name;
  }
}

TEST(FunctionsRegex, Regexp) {
  EXPECT_EQ(Eval(R"(regexp("^a.c$", "abc"))"), "true");
  EXPECT_EQ(Eval(R"(regexp("b", "abc"))"), "true");  // unanchored search
  EXPECT_EQ(Eval(R"(regexp("", ""))"), "true");
  EXPECT_EQ(Eval(R"(regexp("\\d{3}", "x123"))"), "true");
  EXPECT_EQ(Eval(R"(regexp(".*\\.cs\\.wisc\\.edu", "beak.csXwisc.edu"))"), "false");
}

TEST(FunctionsRegex, RegexpOptions) {
  EXPECT_EQ(Eval(R"(regexp("o+", "Hello\nWorld foo", "i"))"), "true");
  EXPECT_EQ(Eval(R"(regexp("^c", "ab\ncd", "m"))"), "true");
  EXPECT_EQ(Eval(R"(regexp("^World", "Hello\nWorld foo"))"), "false");
  EXPECT_EQ(Eval(R"(regexp("foo$", "Hello\nWorld foo", "s"))"), "true");
  EXPECT_EQ(Eval(R"(regexp("Hello.World", "Hello\nWorld foo", "m"))"), "false");
  EXPECT_EQ(Eval(R"(regexp("(?i)hello", "Hello\nWorld foo", "m"))"), "true");
  // The reference only honours lower-case option letters here.
  EXPECT_EQ(Eval(R"(regexp("a", "A", "I"))"), "false");
  EXPECT_EQ(Eval(R"(regexps("a b", "ab", "X", "x"))"), "\"X\"");
}

TEST(FunctionsRegex, RegexpExceptionalArguments) {
  EXPECT_EQ(Eval(R"(regexp("[a-", "abc"))"), "error");  // invalid pattern
  EXPECT_EQ(Eval(R"(regexp("[", "x", "z"))"), "error");
  EXPECT_EQ(Eval(R"(regexp("a", undefined))"), "undefined");
  EXPECT_EQ(Eval(R"(regexp(1, "1"))"), "error");
  EXPECT_EQ(Eval(R"(regexp("a"))"), "error");
  EXPECT_EQ(Eval(R"(regexp("a", "a", "i", "x"))"), "error");
}

TEST(FunctionsRegex, Regexps) {
  EXPECT_EQ(Eval(R"(regexps("o", "foo boo", "0"))"), "\"0\"");
  EXPECT_EQ(Eval(R"(regexps("x", "foo", "y"))"), "\"\"");
  EXPECT_EQ(Eval(R"(regexps("", "abc", "-"))"), "\"-\"");
  EXPECT_EQ(Eval(R"(regexps("a", "aaa", "\\0\\0"))"), "\"aa\"");
  EXPECT_EQ(Eval(R"(regexps("O", "foo", "0", "i"))"), "\"0\"");
  EXPECT_EQ(Eval(R"(regexps("[", "a", "b"))"), "error");
  EXPECT_EQ(Eval(R"(regexps("a", undefined, "b"))"), "undefined");
  EXPECT_EQ(Eval(R"(regexps(1, "1", "2"))"), "error");
  EXPECT_EQ(Eval(R"(regexps("a", "a", "b", "i", "x"))"), "error");
}

TEST(FunctionsRegex, Replace) {
  EXPECT_EQ(Eval(R"(replace("o", "foo boo", "0"))"), "\"f0o boo\"");
  EXPECT_EQ(Eval(R"(replace("x", "foo", "y"))"), "\"foo\"");
  EXPECT_EQ(Eval(R"(replace("", "abc", "-"))"), "\"-abc\"");
  EXPECT_EQ(Eval(R"(replace("a", "aaa", "\\0\\0"))"), "\"aaaa\"");
  EXPECT_EQ(Eval(R"(replace("O", "foo", "0", "i"))"), "\"f0o\"");
  EXPECT_EQ(Eval(R"(replace("[", "a", "b"))"), "error");
  EXPECT_EQ(Eval(R"(replace("a", undefined, "b"))"), "undefined");
  EXPECT_EQ(Eval(R"(replace(1, "1", "2"))"), "error");
  EXPECT_EQ(Eval(R"(replace("a", "a"))"), "error");
}

TEST(FunctionsRegex, ReplaceAll) {
  EXPECT_EQ(Eval(R"(replaceAll("o", "foo boo", "0"))"), "\"f00 b00\"");
  EXPECT_EQ(Eval(R"(replaceAll("x", "foo", "y"))"), "\"foo\"");
  EXPECT_EQ(Eval(R"(replaceAll("a", "aaa", "\\0\\0"))"), "\"aaaaaa\"");
  EXPECT_EQ(Eval(R"(replaceAll("O", "foo", "0", "i"))"), "\"f00\"");
  // An empty match at the end of the target is an error in the reference.
  EXPECT_EQ(Eval(R"(replaceAll("", "abc", "-"))"), "error");
  EXPECT_EQ(Eval(R"(replaceAll("a", undefined, "b"))"), "undefined");
  EXPECT_EQ(Eval(R"(replaceAll(1, "1", "2"))"), "error");
  EXPECT_EQ(Eval(R"(replaceAll("a", "a", "b", "i", "x"))"), "error");
}

TEST(FunctionsRegex, RegexpMember) {
  EXPECT_EQ(Eval(R"(regexpMember("^a", { "abc","xyz" }))"), "true");
  EXPECT_EQ(Eval(R"(regexpMember("q", { "abc","xyz" }))"), "false");
  EXPECT_EQ(Eval(R"(regexpMember("a$", { "x\na" }))"), "true");
  EXPECT_EQ(Eval(R"(regexpMember("a", { 1,"a" }))"), "error");
  EXPECT_EQ(Eval(R"(regexpMember("a", { "b",undefined }))"), "undefined");
  EXPECT_EQ(Eval(R"(regexpMember("a", undefined))"), "undefined");
  EXPECT_EQ(Eval(R"(regexpMember(undefined, { "a" }))"), "undefined");
  EXPECT_EQ(Eval(R"(regexpMember("a", { "a" }, "i", 1))"), "error");
  EXPECT_EQ(Eval(R"(regexpMember("a", "a"))"), "error");
}

TEST(FunctionsRegex, StringListRegexpMember) {
  EXPECT_EQ(Eval(R"(stringList_regexpMember("^a", "abc,xyz"))"), "true");
  EXPECT_EQ(Eval(R"(stringList_regexpMember("q", "abc,xyz"))"), "false");
  EXPECT_EQ(Eval(R"(stringList_regexpMember("^x", "abc, xyz"))"), "true");
  EXPECT_EQ(Eval(R"(stringList_regexpMember("^b$", "a b c"))"), "true");
  EXPECT_EQ(Eval(R"(stringList_regexpMember("a"))"), "error");
  EXPECT_EQ(Eval(R"(stringList_regexpMember(error, "a"))"), "error");
  EXPECT_EQ(Eval(R"(stringList_regexpMember("a", "a", 1))"), "error");
  EXPECT_EQ(Eval(R"(stringList_regexpMember("a", { "a" }))"), "error");
  EXPECT_EQ(Eval(R"(stringList_regexpMember("[", "a"))"), "error");  // invalid pattern
}

}  // namespace
}  // namespace kite::classad
