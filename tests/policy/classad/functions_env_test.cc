// Tests of the argument/environment syntaxes (policy/classad/args_env) and the built-ins over
// them: envV1ToV2, mergeEnvironment, argsToList, listToArgs, userHome. Expected strings follow
// HTCondor's rules: environments come out sorted by name, blanks and ' quoted one run at a
// time, '' for an empty word.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "policy/classad/args_env.h"
#include "policy/classad/functions.h"
#include "tests/policy/classad/eval_helpers.h"

namespace kite::classad {
namespace {

using Strings = std::vector<std::string>;

Strings split_v2(const std::string& s) {
  Strings v;
  std::string err;
  EXPECT_TRUE(args_split_v2(s, &v, &err)) << err;
  return v;
}

std::string join_v2(const Strings& words) {
  std::string s;
  for (const std::string& w : words) args_append_v2(w, &s);
  return s;
}

TEST(ArgsSyntax, V2Splitting) {
  // HTCONDOR: condor_submit "arguments", new syntax (as stored in the ad, outer quotes gone).
  EXPECT_EQ(split_v2("3 simple arguments"), (Strings{"3", "simple", "arguments"}));
  EXPECT_EQ(split_v2("one 'two with spaces' 3"), (Strings{"one", "two with spaces", "3"}));
  EXPECT_EQ(split_v2("one \"two\" 'spacey ''quoted'' argument'"),
            (Strings{"one", "\"two\"", "spacey 'quoted' argument"}));
  EXPECT_EQ(split_v2("  lead\ttab  \r\n"), (Strings{"lead", "tab"}));
  EXPECT_EQ(split_v2("a'b c'd ''"), (Strings{"ab cd", ""}));
  EXPECT_EQ(split_v2(""), Strings{});
  Strings v;
  std::string err;
  EXPECT_FALSE(args_split_v2("one 'unterminated", &v, &err));
  EXPECT_NE(err.find("unterminated single quote at offset 4"), std::string::npos) << err;
}

TEST(ArgsSyntax, V1SplitsOnBlanksOnly) {
  EXPECT_EQ(args_split_v1("a  b\t'c d'"), (Strings{"a", "b", "'c", "d'"}));
  EXPECT_EQ(args_split_v1(""), Strings{});
}

TEST(ArgsSyntax, V2QuotingOneRunAtATime) {
  EXPECT_EQ(join_v2({"a", "b c", ""}), "a b' 'c ''");
  EXPECT_EQ(join_v2({"a  b"}), "a'  'b");
  EXPECT_EQ(join_v2({"it's"}), "it''''s");
  EXPECT_EQ(join_v2({" lead"}), "' 'lead");
  EXPECT_EQ(join_v2({"x' y"}), "x''' 'y");
  EXPECT_EQ(join_v2({""}), "''");
  // Whatever is quoted comes back as it went in.
  Strings tricky{"", " ", "''", "a b'c", "\t\n", "end'"};
  EXPECT_EQ(split_v2(join_v2(tricky)), tricky);
}

TEST(ArgsSyntax, V1JoinRefusesBlanks) {
  std::string s, err;
  EXPECT_TRUE(args_join_v1({"a", "b"}, &s, &err));
  EXPECT_EQ(s, "a b");
  s.clear();
  EXPECT_FALSE(args_join_v1({"a", "b c"}, &s, &err));
  EXPECT_NE(err.find("'b c'"), std::string::npos) << err;
}

TEST(EnvironmentSyntax, SortedLaterWins) {
  Environment env;
  std::string err;
  ASSERT_TRUE(
      env.merge_v2("one=1 two=\"2\" three='spacey ''quoted'' value' empty= one=again", &err))
      << err;
  EXPECT_EQ(env.entries(),
            (Strings{"empty=", "one=again", "three=spacey 'quoted' value", "two=\"2\""}));
  EXPECT_EQ(env.to_v2(), "empty= one=again three=spacey' '''quoted''' 'value two=\"2\"");
  env.set_default("one", "ignored");
  env.set_default("Zed", "z");
  EXPECT_EQ(*env.get("one"), "again");
  EXPECT_EQ(env.vars().front().name, "Zed");  // bytewise order: upper case first
}

TEST(EnvironmentSyntax, V1Rules) {
  Environment env;
  std::string err;
  // Leading blanks go, trailing ones stay; empty entries are skipped; newline also separates.
  ASSERT_TRUE(env.merge_v1("A=1;B=x y; C=a=b ;;\nD=4", &err)) << err;
  EXPECT_EQ(env.entries(), (Strings{"A=1", "B=x y", "C=a=b ", "D=4"}));
  Environment piped;
  ASSERT_TRUE(piped.merge_v1("|A=1;2|B=3", &err)) << err;  // first character names '|'
  EXPECT_EQ(piped.entries(), (Strings{"A=1;2", "B=3"}));
  Environment macro;
  ASSERT_TRUE(macro.merge_v1("X=1;$$(Y)", &err)) << err;  // unexpanded $$() kept as is
  EXPECT_EQ(macro.to_v2(), "$$(Y) X=1");
  EXPECT_EQ(macro.entries(), (Strings{"X=1"}));
}

TEST(EnvironmentSyntax, BadEntriesNamed) {
  Environment env;
  std::string err;
  EXPECT_FALSE(env.merge_v2("A=1 NOEQUALS", &err));
  EXPECT_NE(err.find("missing '=' after environment variable 'NOEQUALS'"), std::string::npos)
      << err;
  EXPECT_FALSE(env.merge_v1("=x", &err));
  EXPECT_NE(err.find("missing variable name in '=x'"), std::string::npos) << err;
  EXPECT_FALSE(env.merge_v2("A='open", &err));
  EXPECT_FALSE(env.merge_v2("''", &err));
  EXPECT_NE(err.find("empty environment entry"), std::string::npos) << err;
}

TEST(FunctionsEnv, TableListsEveryName) {
  for (const char* name :
       {"envV1ToV2", "mergeEnvironment", "argsToList", "listToArgs", "userHome", "ENVV1TOV2"}) {
    EXPECT_NE(function_find(name), nullptr) << name;
  }
}

TEST(FunctionsEnv, EnvV1ToV2) {
  EXPECT_EQ(eval_text(R"(envV1ToV2("B=2;A=1"))"), R"("A=1 B=2")");
  EXPECT_EQ(eval_text(R"(envV1ToV2("PATH=/bin:/usr/bin;MSG=hello world"))"),
            R"("MSG=hello' 'world PATH=/bin:/usr/bin")");
  EXPECT_EQ(eval_text(R"(envV1ToV2(""))"), R"("")");
  EXPECT_EQ(eval_text(R"(envV1ToV2(undefined))"), "undefined");
  EXPECT_EQ(eval_text(R"(envV1ToV2(Env))"), "undefined");
  EXPECT_EQ(eval_text(R"(envV1ToV2("NOEQUALS"))"), "error");
  EXPECT_EQ(eval_text(R"(envV1ToV2(42))"), "error");
  EXPECT_EQ(eval_text(R"(envV1ToV2(error))"), "error");
  EXPECT_EQ(eval_text(R"(envV1ToV2("A=1", "B=2"))"), "error");
  EXPECT_EQ(eval_text(R"(envV1ToV2())"), "error");
}

TEST(FunctionsEnv, MergeEnvironment) {
  EXPECT_EQ(eval_text(R"(mergeEnvironment("A=1 B=2", "B=3 C='x y'"))"), R"("A=1 B=3 C=x' 'y")");
  EXPECT_EQ(eval_text(R"(mergeEnvironment(envV1ToV2(Env), Environment, "FOO=BAR"))"),
            R"("FOO=BAR")");
  EXPECT_EQ(eval_text(R"(mergeEnvironment())"), R"("")");
  EXPECT_EQ(eval_text(R"(mergeEnvironment(undefined))"), R"("")");
  EXPECT_EQ(eval_text(R"(mergeEnvironment("A=1", 2))"), "error");
  EXPECT_EQ(eval_text(R"(mergeEnvironment("A=1", error))"), "error");
  EXPECT_EQ(eval_text(R"(mergeEnvironment("A='open"))"), "error");
  EXPECT_EQ(eval_text(R"(mergeEnvironment("=1"))"), "error");
}

TEST(FunctionsEnv, ArgsToListAndBack) {
  EXPECT_EQ(eval_text(R"(argsToList("a 'b c' ''"))"), R"({ "a","b c","" })");
  EXPECT_EQ(eval_text(R"(argsToList("a 'b c'", 1))"), R"({ "a","'b","c'" })");
  EXPECT_EQ(eval_text(R"(argsToList("a 'b", 2))"), "error");
  EXPECT_EQ(eval_text(R"(argsToList("a", 3))"), "error");
  EXPECT_EQ(eval_text(R"(argsToList("a", "2"))"), "error");
  EXPECT_EQ(eval_text(R"(argsToList(undefined))"), "error");
  EXPECT_EQ(eval_text(R"(argsToList())"), "error");
  EXPECT_EQ(eval_text(R"(listToArgs({ "a", "b c", "" }))"), R"("a b' 'c ''")");
  EXPECT_EQ(eval_text(R"(listToArgs({ "a", "b" }, 1))"), R"("a b")");
  EXPECT_EQ(eval_text(R"(listToArgs({ "a", "b c" }, 1))"), "error");
  EXPECT_EQ(eval_text(R"(listToArgs({ "a", 1 }))"), "error");
  EXPECT_EQ(eval_text(R"(listToArgs("a b"))"), "error");
  EXPECT_EQ(eval_text(R"(listToArgs({}))"), R"("")");
  EXPECT_EQ(eval_text(R"(argsToList(listToArgs({ "x' y", "", "z" })))"), R"({ "x' y","","z" })");
}

TEST(FunctionsEnv, UserHomeAsHTCondorDefaultsIt) {
  // CLASSAD_ENABLE_USER_HOME defaults to false in HTCondor: no lookup is made.
  EXPECT_EQ(eval_text(R"(userHome("root"))"), "undefined");
  EXPECT_EQ(eval_text(R"(userHome("root", "/home/default"))"), R"("/home/default")");
  EXPECT_EQ(eval_text(R"(userHome(undefined))"), "undefined");
  EXPECT_EQ(eval_text(R"(userHome(undefined, "/d"))"), R"("/d")");
  EXPECT_EQ(eval_text(R"(userHome(1))"), "error");
  EXPECT_EQ(eval_text(R"(userHome(1, "/d"))"), R"("/d")");
  EXPECT_EQ(eval_text(R"(userHome(1, ""))"), "error");
  EXPECT_EQ(eval_text(R"(userHome("root", 5))"), "undefined");
  EXPECT_EQ(eval_text(R"(userHome())"), "error");
  EXPECT_EQ(eval_text(R"(userHome("a", "b", "c"))"), "error");
}

}  // namespace
}  // namespace kite::classad
