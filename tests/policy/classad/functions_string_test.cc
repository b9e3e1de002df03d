// Unit tests for the string built-ins (functions_string.cc). Expected values
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

TEST(FunctionsString, Strcat) {
  EXPECT_EQ(Eval("strcat()"), "\"\"");
  EXPECT_EQ(Eval("strcat(\"a\", 1)"), "\"a1\"");
  EXPECT_EQ(Eval("strcat(\"a\", {1})"), "\"a{ 1 }\"");
  EXPECT_EQ(Eval("strcat(false, 0.1)"), "\"false1.000000000000000E-01\"");
  EXPECT_EQ(Eval("strcat(\"a\", -0.0)"), "\"a-0.0\"");
  EXPECT_EQ(Eval("strcat(\"a\", undefined)"), "undefined");
  EXPECT_EQ(Eval("strcat(error, \"a\")"), "error");
}

TEST(FunctionsString, Join) {
  EXPECT_EQ(Eval("join(\", \", {\"a\", \"b\", \"c\"})"), "\"a, b, c\"");
  EXPECT_EQ(Eval("join({ \"a\",\"b\",\"c\" })"), "\"abc\"");
  EXPECT_EQ(Eval("join({ undefined,\"a\" })"), "\"a\"");
  EXPECT_EQ(Eval("join(\"-\", {})"), "\"\"");
  EXPECT_EQ(Eval("join(5)"), "\"\"");
  EXPECT_EQ(Eval("join(1, {\"a\", \"b\"})"), "\"a1b\"");
  EXPECT_EQ(Eval("join(undefined, { \"a\",\"b\" })"), "\"ab\"");
  EXPECT_EQ(Eval("join(\"-\", \"a\", undefined)"), "\"a\"");
  EXPECT_EQ(Eval("join(\", \", \"a\", \"b\", \"c\")"), "\"a, b, c\"");
  EXPECT_EQ(Eval("join(\"-\", true, false)"), "\"true-false\"");
  EXPECT_EQ(Eval("join(\"-\", {{1}})"), "\"{ 1 }\"");
  EXPECT_EQ(Eval("join(\"-\", undefined)"), "undefined");
  EXPECT_EQ(Eval("join(\"-\", error)"), "error");
}

TEST(FunctionsString, Substr) {
  EXPECT_EQ(Eval("substr(\"abcdef\", 0)"), "\"abcdef\"");
  EXPECT_EQ(Eval("substr(\"abcdef\", 6)"), "\"\"");
  EXPECT_EQ(Eval("substr(\"abcdef\", -3)"), "\"def\"");
  EXPECT_EQ(Eval("substr(\"abcdef\", -100)"), "\"abcdef\"");
  EXPECT_EQ(Eval("substr(\"abcdef\", 2, -1)"), "\"cde\"");
  EXPECT_EQ(Eval("substr(\"abcdef\", -3, 2)"), "\"de\"");
  EXPECT_EQ(Eval("substr(\"abcdef\", 1, 100)"), "\"bcdef\"");
  EXPECT_EQ(Eval("substr(\"abcdef\", 0, -6)"), "\"\"");
  EXPECT_EQ(Eval("substr(\"abcdef\", 3, -3)"), "\"\"");
  EXPECT_EQ(Eval("substr(\"abcdef\", -10, 3)"), "\"abc\"");
  EXPECT_EQ(Eval("substr(\"\", -1)"), "\"\"");
  EXPECT_EQ(Eval("substr(\"abcdef\", 0, undefined)"), "undefined");
  EXPECT_EQ(Eval("substr(\"abcdef\", 1, error)"), "error");
  EXPECT_EQ(Eval("substr(\"abcdef\", \"1\")"), "error");
  EXPECT_EQ(Eval("substr(\"abcdef\", true)"), "error");
  EXPECT_EQ(Eval("substr(12345, 1)"), "error");
  EXPECT_EQ(Eval("substr(\"abc\")"), "error");
}

TEST(FunctionsString, Size) {
  EXPECT_EQ(Eval("size(\"hello\")"), "5");
  EXPECT_EQ(Eval("size({ undefined })"), "1");
  EXPECT_EQ(Eval("size({{}})"), "1");
  EXPECT_EQ(Eval("size([ ])"), "0");
  EXPECT_EQ(Eval("size(undefined)"), "undefined");
  EXPECT_EQ(Eval("size(true)"), "error");
  EXPECT_EQ(Eval("size(error)"), "error");
  EXPECT_EQ(Eval("size()"), "error");
}

TEST(FunctionsString, ChangeCase) {
  EXPECT_EQ(Eval("toUpper(\"Hello World\")"), "\"HELLO WORLD\"");
  EXPECT_EQ(Eval("toUpper(true)"), "\"TRUE\"");
  EXPECT_EQ(Eval("toUpper({\"a\"})"), "\"{ \\\"A\\\" }\"");
  EXPECT_EQ(Eval("toLower([ a = 1 ])"), "\"[ a = 1 ]\"");
  EXPECT_EQ(Eval("toLower(5)"), "\"5\"");
  EXPECT_EQ(Eval("TOUPPER(\"x\")"), "\"X\"");
  EXPECT_EQ(Eval("toLower(undefined)"), "undefined");
  EXPECT_EQ(Eval("toUpper(error)"), "error");
  EXPECT_EQ(Eval("toUpper()"), "error");
}

TEST(FunctionsString, Compare) {
  EXPECT_EQ(Eval("strcmp(\"a\", \"B\")"), "1");
  EXPECT_EQ(Eval("strcmp(\"a\", \"b\")"), "-1");
  EXPECT_EQ(Eval("strcmp(\"1\", 1)"), "0");
  EXPECT_EQ(Eval("strcmp({1}, \"a\")"), "1");
  EXPECT_EQ(Eval("stricmp(\"a\", \"A\")"), "0");
  EXPECT_EQ(Eval("stricmp(\"a\", \"B\")"), "-1");
  EXPECT_EQ(Eval("strcmp(undefined, \"a\")"), "undefined");
  EXPECT_EQ(Eval("stricmp(\"a\", error)"), "error");
  EXPECT_EQ(Eval("strcmp(\"a\")"), "error");
}

TEST(FunctionsString, Versions) {
  EXPECT_EQ(Eval("versioncmp(\"1.2.3\", \"1.2.3\")"), "0");
  EXPECT_EQ(Eval("versioncmp(\"1.2\", \"1.2.0\")"), "-46");
  EXPECT_EQ(Eval("versioncmp(\"abc10\", \"abc9\")"), "1");
  EXPECT_EQ(Eval("versioncmp(\"\", \"1\")"), "-49");
  EXPECT_EQ(Eval("versioncmp(\"0010\", \"10\")"), "-2");
  EXPECT_EQ(Eval("versioncmp(\"1-rc1\", \"1-rc2\")"), "-1");
  EXPECT_EQ(Eval("versionGT(\"1.9\", \"1.10\")"), "false");
  EXPECT_EQ(Eval("versionGE(\"1.10\", \"1.9\")"), "true");
  EXPECT_EQ(Eval("versionLT(\"8.9.11\", \"10.0.0\")"), "true");
  EXPECT_EQ(Eval("versionLE(1, 2)"), "true");
  EXPECT_EQ(Eval("versionEQ(\"1.10\", \"1.9\")"), "false");
  EXPECT_EQ(Eval("versionEQ(undefined, \"1\")"), "undefined");
  EXPECT_EQ(Eval("versioncmp(error, \"1\")"), "error");
  EXPECT_EQ(Eval("versionLT(\"1\")"), "error");
  EXPECT_EQ(Eval("version_in_range(\"10.0\", \"9.0\", \"11.0\")"), "true");
  EXPECT_EQ(Eval("version_in_range(1, 0, 2)"), "true");
  EXPECT_EQ(Eval("version_in_range(\"1\", \"2\")"), "error");
}

TEST(FunctionsString, Split) {
  EXPECT_EQ(Eval("split(\"a b  c\")"), "{ \"a\",\"b\",\"c\" }");
  EXPECT_EQ(Eval("split(\"a,,b\")"), "{ \"a\",\"\",\"b\" }");
  EXPECT_EQ(Eval("split(\",a,\")"), "{ \"a\" }");
  EXPECT_EQ(Eval("split(\"a::b::c\", \":\")"), "{ \"a\",\"\",\"b\",\"\",\"c\" }");
  EXPECT_EQ(Eval("split(\"a, b ,c\", \", \")"), "{ \"a\",\"b\",\"\",\"c\" }");
  EXPECT_EQ(Eval("split(\"abc\", \"\")"), "{ \"abc\" }");
  EXPECT_EQ(Eval("split(\"a;b\", 1)"), "error");
  EXPECT_EQ(Eval("split(\"a\", undefined)"), "error");
  EXPECT_EQ(Eval("split(error)"), "error");
  EXPECT_EQ(Eval("split()"), "error");
}

TEST(FunctionsString, SplitAt) {
  EXPECT_EQ(Eval("splitUserName(\"alice@example.org\")"), "{ \"alice\",\"example.org\" }");
  EXPECT_EQ(Eval("splitUserName(\"a@b@c\")"), "{ \"a\",\"b@c\" }");
  EXPECT_EQ(Eval("splitSlotName(\"slot1_2@host\")"), "{ \"slot1_2\",\"host\" }");
  EXPECT_EQ(Eval("splitUserName(undefined)"), "error");
  EXPECT_EQ(Eval("splitSlotName(undefined)"), "error");
  EXPECT_EQ(Eval("splitSlotName(\"a\", \"b\")"), "error");
}

}  // namespace
}  // namespace kite::classad
