// Macros, include, if/elif/else/endif, every queue form, errors naming file and line, and the
// unused-command warning.
#include "tests/policy/submit/submit_helpers.h"

namespace kite::submit::testing {
namespace {

TEST_F(SubmitTest, MacrosExpandWithDefaultsAndNesting) {
  Result r =
      run("executable = job.sh\nbase = data\nname = $(base)/x\n+A = \"$(name)\"\n"
          "+B = \"$(missing:fallback)\"\n+C = \"[$(missing)]\"\n+D = \"$(BASE)\"\nqueue\n");
  EXPECT_EQ(attr(r, 0, "A"), "\"data/x\"");
  EXPECT_EQ(attr(r, 0, "B"), "\"fallback\"");
  EXPECT_EQ(attr(r, 0, "C"), "\"[]\"");
  EXPECT_EQ(attr(r, 0, "D"), "\"data\"");  // names are case-insensitive
}

// condor_submit expands with the configuration's expand_macro: a default replaces an empty
// value too, and $ENV of an unset variable without a default is "UNDEFINED".
TEST_F(SubmitTest, DefaultsReplaceEmptyValuesAndEnvOfNothingIsUndefined) {
  ::unsetenv("KITE_TEST_NO_SUCH_VARIABLE");
  Result r =
      run("executable = job.sh\nE =\n+A = \"$(E:def)|$ENV(KITE_TEST_NO_SUCH_VARIABLE)|"
          "$ENV(KITE_TEST_NO_SUCH_VARIABLE:x)\"\nqueue\n");
  EXPECT_EQ(attr(r, 0, "A"), "\"def|UNDEFINED|x\"");
}

TEST_F(SubmitTest, MacrosAreExpandedAtQueueTimeWithTheLatestValue) {
  Result r = run("executable = job.sh\n+V = \"$(x)\"\nx = 1\nqueue\nx = 2\nqueue\n");
  EXPECT_EQ(attr(r, 0, "V"), "\"1\"");
  EXPECT_EQ(attr(r, 1, "V"), "\"2\"");
}

TEST_F(SubmitTest, ARecursiveDefinitionUsesTheValueSoFar) {
  Result r =
      run("executable = job.sh\nfoo = bar\nfoo = snap $(foo)\nfoo = $(FOO) end\n"
          "+F = \"$(foo)\"\nqueue\n");
  EXPECT_EQ(attr(r, 0, "F"), "\"snap bar end\"");
  EXPECT_NE(error("executable = job.sh\nfoo = $(foo) bar\n+F = \"$(foo)\"\nqueue\n")
                .find("refers to itself"),
            std::string::npos);
}

// condor_submit's table of submit macro defaults (submit_utils.cpp SubmitMacroDefaults):
// IsLinux "1", IsWindows "0", JobId "$(ClusterId).$(ProcId)", JobListId "$(ClusterId)",
// TaskId "0", Request_Memory "$(RequestMemory)", VM_MEMORY "$(Request_Memory)".
TEST_F(SubmitTest, AutomaticVariables) {
  Result r =
      run("executable = job.sh\n+A = \"$(OPSYS)/$(IsLinux)/$(IsWindows)/$(DOLLAR)x\"\n"
          "+S = \"$(SUBMIT_FILE)\"\n+J = \"$(JobId) $(JobListId) $(TaskId)\"\n"
          "+M = \"[$(Request_Memory)] [$(VM_MEMORY)] [$(Request_CPUs)]\"\nRequestMemory = 300\n"
          "queue 2\n");
  EXPECT_EQ(attr(r, 0, "A"), "\"LINUX/1/0/$x\"");
  EXPECT_EQ(attr(r, 0, "J"), "\"1.0 1 0\"");
  EXPECT_EQ(attr(r, 1, "J"), "\"1.1 1 0\"");
  EXPECT_EQ(attr(r, 0, "M"), "\"[300] [300] []\"");
  EXPECT_EQ(attr(r, 0, "S"), "\"" + dir_ + "/test.sub\"");
  // Unlike Cluster and Process, Step and friends may be set by the file.
  Result s =
      run("executable = job.sh\nStep = fixed\nProcess = 9\n+V = \"$(Step)$(Process)\"\n"
          "queue 2\n");
  EXPECT_EQ(attr(s, 1, "V"), "\"fixed1\"");
}

TEST_F(SubmitTest, EnvFunctionMacro) {
  setenv("KITE_SUBMIT_TEST_VAR", "from-env", 1);
  Result r =
      run("executable = job.sh\n+A = \"$ENV(KITE_SUBMIT_TEST_VAR)\"\n"
          "+B = \"$ENV(KITE_SUBMIT_TEST_UNSET:dflt)\"\nqueue\n");
  EXPECT_EQ(attr(r, 0, "A"), "\"from-env\"");
  EXPECT_EQ(attr(r, 0, "B"), "\"dflt\"");
}

TEST_F(SubmitTest, MultiLineValues) {
  Result r =
      run("executable = job.sh\nrequirements @=end\n  Memory > 10 &&\n  Cpus > 1\n@end\n"
          "queue\n");
  EXPECT_EQ(attr(r, 0, "Requirements").rfind("(Memory > 10 && Cpus > 1) && ", 0), 0u)
      << attr(r, 0, "Requirements");
  expect_error("executable = job.sh\n\nx @=end\nvalue\nqueue\n", "on Line 3 of test.sub");
}

TEST_F(SubmitTest, MatchTimeMacrosAreKept) {
  EXPECT_EQ(one("executable = job.sh\n+M = \"$$(Memory)\"\nqueue\n", "M"), "\"$$(Memory)\"");
}

TEST_F(SubmitTest, SelfReferenceIsAnError) {
  expect_error("executable = job.sh\na = $(b)\nb = $(a)\n+X = \"$(a)\"\nqueue\n",
               "refers to itself");
}

TEST_F(SubmitTest, FunctionMacros) {
  Result r =
      run("executable = job.sh\nn = 7\nr = 2.5\nlist = red,green,blue\nf = /a/b/file.tar.gz\n"
          "+I = $INT(n)\n+P = \"$INT(n,%03d)\"\n+R = $REAL(r)\n+C = \"$CHOICE(1,list)\"\n"
          "+Fn = \"$Fn(f)\"\n+Fx = \"$Fx(f)\"\n+Fp = \"$Fp(f)\"\n+Fnx = \"$Fnx(f)\"\nqueue\n");
  expect_attrs(r, 0,
               {{"I", "7"},
                {"P", "\"007\""},
                {"R", "2.5"},
                {"C", "\"green\""},
                {"Fn", "\"file.tar\""},
                {"Fx", "\".gz\""},
                {"Fp", "\"/a/b/\""},
                {"Fnx", "\"file.tar.gz\""}});
}

TEST_F(SubmitTest, ClusterAndProcessMacros) {
  Result r =
      run("executable = job.sh\noutput = o.$(Cluster).$(Process)\n+N = $(ProcId)\nqueue 3\n");
  ASSERT_EQ(r.procs.size(), 3u);
  EXPECT_EQ(attr(r, 2, "Out"), "\"o.1.2\"");
  EXPECT_EQ(attr(r, 1, "N"), "1");
  opts_.cluster = 42;
  EXPECT_EQ(attr(run("executable = job.sh\n+C = $(Cluster)\nqueue\n"), 0, "C"), "42");
  EXPECT_EQ(attr(run("executable = job.sh\n+C = $(Cluster)\nqueue\n"), 0, "ClusterId"), "42");
}

TEST_F(SubmitTest, QueueInGivesItemStepItemIndexAndProcess) {
  Result r =
      run("executable = job.sh\n+V = \"$(Item)/$(Step)/$(ItemIndex)/$(Row)/$(Process)\"\n"
          "queue 2 in (a, b)\n");
  ASSERT_EQ(r.procs.size(), 4u);
  EXPECT_EQ(attr(r, 0, "V"), "\"a/0/0/0/0\"");
  EXPECT_EQ(attr(r, 1, "V"), "\"a/1/0/0/1\"");
  EXPECT_EQ(attr(r, 2, "V"), "\"b/0/1/1/2\"");
  EXPECT_EQ(attr(r, 3, "V"), "\"b/1/1/1/3\"");
}

TEST_F(SubmitTest, QueueInWithAVariableAndAListOverLines) {
  Result r =
      run("executable = job.sh\n+V = \"$(color)\"\nqueue color in (\n  red\n  green blue\n)\n");
  ASSERT_EQ(r.procs.size(), 3u);
  EXPECT_EQ(attr(r, 0, "V"), "\"red\"");
  EXPECT_EQ(attr(r, 1, "V"), "\"green\"");
  EXPECT_EQ(attr(r, 2, "V"), "\"blue\"");
}

// condor_submit (SubmitForeachArgs::split_item) cuts a row at its first comma, blank or tab
// and trims blanks, not commas, around the cut, so "1 , x" is "1", "" and "x"; the last
// variable takes the rest of the row. Lines starting with '#' are skipped; an empty row
// assigns no variable, so they keep the previous row's values (select_rowdata).
TEST_F(SubmitTest, QueueFromInlineSplitsOnCommasAndBlanksTheLastTakingTheRest) {
  Result r =
      run("executable = job.sh\n+V = \"$(a)|$(b)|$(c)\"\nqueue a, b, c from (\n  1, x y , z\n"
          "# a comment\n\n  2, w\n  p q r s\n  1 , x\n)\n");
  ASSERT_EQ(r.procs.size(), 5u);
  EXPECT_EQ(attr(r, 0, "V"), "\"1|x|y , z\"");
  EXPECT_EQ(attr(r, 1, "V"), "\"1|x|y , z\"");
  EXPECT_EQ(attr(r, 2, "V"), "\"2|w|\"");
  EXPECT_EQ(attr(r, 3, "V"), "\"p|q|r s\"");
  EXPECT_EQ(attr(r, 4, "V"), "\"1||x\"");
}

// $(ItemIndex) and $(Row) are the item's index in the whole list, before the slice
// (condor_submit's qslice::translate maps the proc's sequence number to the row number).
TEST_F(SubmitTest, ASlicedListKeepsEachItemsIndexInTheWholeList) {
  Result r =
      run("executable = job.sh\n+V = \"$(Item)/$(Step)/$(ItemIndex)/$(Row)/$(Process)\"\n"
          "queue 2 in [1::2] (a b c d e)\n");
  ASSERT_EQ(r.procs.size(), 4u);
  EXPECT_EQ(attr(r, 0, "V"), "\"b/0/1/1/0\"");
  EXPECT_EQ(attr(r, 1, "V"), "\"b/1/1/1/1\"");
  EXPECT_EQ(attr(r, 2, "V"), "\"d/0/3/3/2\"");
  EXPECT_EQ(attr(r, 3, "V"), "\"d/1/3/3/3\"");
}

TEST_F(SubmitTest, CommentLinesInAMultiLineListAreSkipped) {
  Result r = run(
      "executable = job.sh\n+V = \"$(Item)\"\nqueue in (a\n# not an item\n  b # c\n) ignored\n");
  ASSERT_EQ(r.procs.size(), 4u);
  EXPECT_EQ(attr(r, 0, "V"), "\"a\"");
  EXPECT_EQ(attr(r, 1, "V"), "\"b\"");
  EXPECT_EQ(attr(r, 2, "V"), "\"#\"");  // only whole-line comments
  EXPECT_EQ(attr(r, 3, "V"), "\"c\"");
}

TEST_F(SubmitTest, QueueListsEndAtALineBeginningWithAParen) {
  Result r = run("executable = job.sh\n+V = \"$(a)\"\nqueue a from (\n  x(1)\n  y\n)\nqueue\n");
  ASSERT_EQ(r.procs.size(), 3u);
  EXPECT_EQ(attr(r, 0, "V"), "\"x(1)\"");
  EXPECT_EQ(attr(r, 1, "V"), "\"y\"");
}

TEST_F(SubmitTest, QueueFromFileAndSlice) {
  write("items.txt", "alpha 1\nbeta 2\ngamma 3\ndelta 4\n");
  Result r = run("executable = job.sh\n+V = \"$(n)-$(k)\"\nqueue n k from items.txt\n");
  ASSERT_EQ(r.procs.size(), 4u);
  EXPECT_EQ(attr(r, 3, "V"), "\"delta-4\"");
  Result s = run("executable = job.sh\n+V = \"$(n)\"\nqueue n from [1::2] items.txt\n");
  ASSERT_EQ(s.procs.size(), 2u);
  EXPECT_EQ(attr(s, 0, "V"), "\"beta 2\"");
  EXPECT_EQ(attr(s, 1, "V"), "\"delta 4\"");
}

TEST_F(SubmitTest, QueueFromACommandsOutput) {
  // `queue VARS from COMMAND |`: the command's output lines are the items (condor_submit runs
  // it; here the caller's runner does).
  std::vector<std::string> ran;
  opts_.run_command = [&](const std::string& command, std::string* out) {
    ran.push_back(command);
    if (command != "/usr/bin/seq 3") return Status::Error("command terminated with exit code 1");
    *out = "1\n2\n3\n";
    return Status::Ok();
  };
  Result r = run("executable = job.sh\n+V = \"$(n)\"\nqueue n from /usr/bin/seq 3 |\n");
  ASSERT_EQ(r.procs.size(), 3u);
  EXPECT_EQ(attr(r, 2, "V"), "\"3\"");
  EXPECT_EQ(ran, (std::vector<std::string>{"/usr/bin/seq 3"}));
  expect_error("executable = job.sh\nqueue n from /bin/false |\n",
               "queue from /bin/false |: command terminated with exit code 1");
  opts_.run_command = nullptr;
  expect_error("executable = job.sh\nqueue n from /usr/bin/seq 3 |\n",
               "running a command is not supported here");
}

TEST_F(SubmitTest, IncludeACommandsOutput) {
  // `include : COMMAND |` and `include command : COMMAND` read the output as submit text; a
  // queue statement there is refused as in an included file; ifexist skips a failing command.
  opts_.run_command = [](const std::string& command, std::string* out) {
    if (command == "gen") *out = "+From = \"gen\"\n";
    if (command == "gen-queue") *out = "queue\n";
    return command == "fail" ? Status::Error("command terminated with exit code 3") : Status::Ok();
  };
  EXPECT_EQ(one("executable = job.sh\ninclude : gen |\nqueue\n", "From"), "\"gen\"");
  EXPECT_EQ(one("executable = job.sh\ninclude command : gen\nqueue\n", "From"), "\"gen\"");
  EXPECT_EQ(one("executable = job.sh\ninclude ifexist command : fail\n+X = 1\nqueue\n", "X"), "1");
  expect_error("executable = job.sh\ninclude : fail |\nqueue\n",
               "include: fail: command terminated with exit code 3");
  expect_error("executable = job.sh\ninclude : gen-queue |\nqueue\n",
               "Queue statement not allowed in include file or command");
}

TEST_F(SubmitTest, QueueMatchingFiles) {
  write("a.dat", "1");
  write("b.dat", "2");
  Result r = run("executable = job.sh\ninput = $(Item)\nqueue matching files *.dat\n");
  ASSERT_EQ(r.procs.size(), 2u);
  EXPECT_EQ(attr(r, 0, "In"), "\"a.dat\"");
  EXPECT_EQ(attr(r, 1, "In"), "\"b.dat\"");
  Result dirs = run("executable = job.sh\n+D = \"$(d)\"\nqueue d matching dirs [1:] *\n");
  ASSERT_EQ(dirs.procs.size(), 1u);  // bin and sub, less the first (bin)
  EXPECT_EQ(attr(dirs, 0, "D"), "\"sub\"");
}

TEST_F(SubmitTest, QueueCountsAndSeveralQueueStatements) {
  Result r = run("executable = job.sh\nn = 2\nqueue $(n) * 2\nqueue 0\nqueue\n");
  ASSERT_EQ(r.procs.size(), 5u);
  EXPECT_EQ(r.procs[4].id, 4);
  EXPECT_EQ(attr(r, 4, "ProcId"), "4");
}

TEST_F(SubmitTest, QueueVariablesAreForgottenAfterTheirStatement) {
  Result r = run("executable = job.sh\n+V = \"[$(x)]\"\nqueue x in (a)\nqueue\n");
  EXPECT_EQ(attr(r, 1, "V"), "\"[]\"");
}

TEST_F(SubmitTest, BadQueueLinesNameFileAndLine) {
  std::string a = error("executable = job.sh\n\nqueue banana\n");
  EXPECT_NE(a.find("on Line 3 of test.sub"), std::string::npos) << a;
  expect_error("executable = job.sh\nqueue x in (a, b\n", "on Line 2 of test.sub");
  expect_error("executable = job.sh\nqueue x from missing.txt\n", "missing.txt");
  EXPECT_EQ(error("executable = job.sh\nqueue -1\n"),
            "on Line 2 of test.sub: Queue count out of range");
  EXPECT_EQ(a, "on Line 3 of test.sub: Invalid Queue count expression");
}

TEST_F(SubmitTest, ConditionalsDefinedVersionBooleansAndElif) {
  Result r =
      run("executable = job.sh\nflag = yes\nif defined flag\n+A = 1\nelse\n+A = 2\nendif\n"
          "if defined nothing\n+B = 1\nelif $(flag)\n+B = 2\nelse\n+B = 3\nendif\n"
          "if version >= 25.0\n+C = 1\nendif\nif version < 9.0\n+D = 1\nendif\n"
          "if false\n+E = 1\nelif 0\n+E = 2\nelse\n+E = 3\nendif\nif ! defined nothing\n+F = 1\n"
          "endif\nqueue\n");
  expect_attrs(r, 0,
               {{"A", "1"}, {"B", "2"}, {"C", "1"}, {"D", "<absent>"}, {"E", "3"}, {"F", "1"}});
}

TEST_F(SubmitTest, VersionComparisonsUseTheComponentsGiven) {
  // Kite reads submit files as condor_submit 25.14.0 does.
  auto holds = [this](const char* cond) {
    Result r =
        run(std::string("executable = job.sh\nif version ") + cond + "\n+T = 1\nendif\nqueue\n");
    return attr(r, 0, "T") == "1";
  };
  EXPECT_TRUE(holds("== 25.14"));
  EXPECT_TRUE(holds("== 25.14.0"));
  EXPECT_FALSE(holds("== 25.13"));
  EXPECT_TRUE(holds("!= 24.0"));
  EXPECT_TRUE(holds("> 25.13.9"));
  EXPECT_FALSE(holds("> 25.14.0"));
  EXPECT_TRUE(holds("<= 25.14.0"));
  EXPECT_TRUE(holds("< 26.0"));
  EXPECT_NE(error("executable = job.sh\nif version ~ 25.0\nendif\nqueue\n").find("Line 2"),
            std::string::npos);
}

TEST_F(SubmitTest, NestedConditionalsInsideAFalseBranchAreSkipped) {
  Result r = run(
      "executable = job.sh\nif false\n  if $(x) == y\n    +A = 1\n  endif\nelse\n+A = 2\nendif\n"
      "queue\n");
  EXPECT_EQ(attr(r, 0, "A"), "2");
}

// condor_submit's messages (config.cpp ConfigIfStack::line_is_if, Evaluate_config_if,
// Parse_macros; submit.cpp "ERROR: on Line %d of %s: %s").
TEST_F(SubmitTest, ConditionalErrorsNameFileAndLine) {
  EXPECT_EQ(error("executable = job.sh\nmode = gpu\nif $(mode) == gpu\nendif\nqueue\n"),
            "on Line 3 of test.sub: $(mode) == gpu is not a valid if condition because complex "
            "conditionals are not supported");
  EXPECT_EQ(error("executable = job.sh\nmode = gpu\nif $(mode)\nendif\nqueue\n"),
            "on Line 3 of test.sub: $(mode) is not a valid if condition because expression is "
            "not a conditional");
  EXPECT_EQ(error("executable = job.sh\nqueue\nif true\n+A = 1\n"),
            "on Line 4 of test.sub: endif(s) not found before end-of-file");
  EXPECT_EQ(error("executable = job.sh\nendif\nqueue\n"),
            "on Line 2 of test.sub: endif without matching if");
  EXPECT_EQ(error("executable = job.sh\nif true\nelse\nelse\nendif\nqueue\n"),
            "on Line 4 of test.sub: else is not allowed after else");
  expect_error("executable = job.sh\nif version >= banana\nendif\nqueue\n", "on Line 2");
}

// condor_submit stops reading at a queue statement and goes on with a new if-stack, so an if
// left open before the queue is forgotten: its endif has no matching if.
TEST_F(SubmitTest, AQueueStatementEndsTheOpenIfs) {
  Result r = run("executable = job.sh\nif true\n+A = 1\nqueue\n");
  EXPECT_EQ(attr(r, 0, "A"), "1");
  EXPECT_EQ(error("executable = job.sh\nif true\nqueue\nendif\n"),
            "on Line 4 of test.sub: endif without matching if");
}

TEST_F(SubmitTest, IncludeReadsAnotherFile) {
  write("common.inc", "request_cpus = 2\n+From = \"inc\"\n");
  Result r = run("executable = job.sh\ninclude : common.inc\nqueue\n");
  EXPECT_EQ(attr(r, 0, "RequestCpus"), "2");
  EXPECT_EQ(attr(r, 0, "From"), "\"inc\"");
  Result e = run("executable = job.sh\ninclude ifexist : nope.inc\nqueue\n");
  EXPECT_EQ(e.procs.size(), 1u);
}

TEST_F(SubmitTest, MissingIncludeAndErrorsInsideIncludesNameTheirFileAndLine) {
  std::string missing = error("executable = job.sh\n\ninclude : nope.inc\nqueue\n");
  EXPECT_NE(missing.find("on Line 3 of test.sub"), std::string::npos) << missing;
  EXPECT_NE(missing.find("nope.inc"), std::string::npos) << missing;
  write("bad.inc", "x = 1\nthis is not a command\n");
  std::string inner = error("executable = job.sh\ninclude : bad.inc\nqueue\n");
  EXPECT_EQ(inner.substr(0, inner.find('\n')), "on Line 2 of test.sub: ") << inner;
  EXPECT_NE(inner.find("on Line 2 of bad.inc"), std::string::npos) << inner;
  write("q.inc", "queue 2\n");
  expect_error("executable = job.sh\ninclude : q.inc\n",
               "Queue statement not allowed in include file or command");
}

TEST_F(SubmitTest, ContinuationLinesAndComments) {
  Result r =
      run("# comment\nexecutable = \\\n  job.sh\n  # indented comment\n+A = 1 + \\\n2\nqueue\n");
  EXPECT_EQ(attr(r, 0, "Cmd"), "\"" + dir_ + "/job.sh\"");
  EXPECT_EQ(attr(r, 0, "A"), "1 + 2");
}

// condor_submit's argument and environment syntax errors (condor_arglist.cpp, env.cpp): a value
// whose first character is a double quote is V2 and must close it with nothing after; a V1
// value may not hold an unescaped double quote; an environment entry needs NAME=; SetEnv's own
// "ERROR: " comes after the one condor_submit prints.
TEST_F(SubmitTest, ArgumentAndEnvironmentQuotingErrors) {
  EXPECT_EQ(error("executable = job.sh\narguments = \"a b\nqueue\n"), "Unterminated double-quote.");
  EXPECT_EQ(error("executable = job.sh\narguments = \"a\" b\nqueue\n"),
            "Unexpected characters following double-quote.  Did you forget to escape the "
            "double-quote by repeating it?  Here is the quote and trailing characters: \" b");
  EXPECT_EQ(error("executable = job.sh\narguments = a \"b\nqueue\n"),
            "Found illegal unescaped double-quote: \"b");
  EXPECT_EQ(attr(run("executable = job.sh\narguments = a \\\"b\\\" c\nqueue\n"), 0, "Args"),
            "\"a \\\"b\\\" c\"");
  EXPECT_EQ(error("executable = job.sh\nenvironment = \"A=1 B='x\"\nqueue\n"),
            "Unbalanced quote starting here: 'x");
  EXPECT_EQ(error("executable = job.sh\nenvironment = \"A=1 B\nqueue\n"),
            "Unterminated double-quote.");
  EXPECT_EQ(error("executable = job.sh\nenvironment = \"A=1 B\"\nqueue\n"),
            "ERROR: Missing '=' after environment variable 'B'.");
  EXPECT_EQ(error("executable = job.sh\nenvironment = A=1;B\nqueue\n"),
            "ERROR: Missing '=' after environment variable 'B'.");
  EXPECT_EQ(error("executable = job.sh\nenvironment = \"A=1 =2\"\nqueue\n"),
            "ERROR: missing variable in '=2'.");
  EXPECT_EQ(attr(run("executable = job.sh\nenvironment = \"A=\"\"q\"\" B$$(x)\"\nqueue\n"), 0,
                 "Environment"),
            "\"A=\\\"q\\\" B$$(x)\"");
}

TEST_F(SubmitTest, SubmitErrors) {
  EXPECT_EQ(error("arguments = 1\nqueue\n"), "No 'executable' parameter was provided");
  expect_error("executable = nothere.sh\nqueue\n", dir_ + "/nothere.sh");
  EXPECT_EQ(error("executable = job.sh\narguments = \"a 'b c\"\nqueue\n"),
            "Unbalanced quote starting here: 'b c");
  expect_error("executable = job.sh\ninitialdir = nodir\nqueue\n", "nodir");
  std::string plus = error("executable = job.sh\n+Bad = (1 +\nqueue\n");
  EXPECT_EQ(plus.rfind("Parse error in expression:", 0), 0u) << plus;
  EXPECT_NE(plus.find("(test.sub, line 2)"), std::string::npos) << plus;
  std::string req = error("executable = job.sh\nrequirements = Memory >\nqueue\n");
  EXPECT_EQ(req.rfind("Parse error in expression:", 0), 0u) << req;
  EXPECT_NE(error("executable = job.sh\nuniverse = docker\nqueue\n").find("vanilla"),
            std::string::npos);
  EXPECT_NE(error("executable = job.sh\n").find("queue"), std::string::npos);
  EXPECT_NE(error("executable = job.sh\njunk line\nqueue\n").find("on Line 2 of test.sub"),
            std::string::npos);
}

TEST_F(SubmitTest, MisspeltCommandWarnsAndTheSubmitGoesOn) {
  Result r = run("executable = job.sh\noutptu = out.txt\nqueue\n");
  ASSERT_EQ(r.procs.size(), 1u);
  EXPECT_EQ(attr(r, 0, "Out"), "\"/dev/null\"");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "WARNING: the line 'outptu = out.txt' was unused by condor_submit. Is it a typo?");
}

TEST_F(SubmitTest, UsedMacrosKnownCommandsAndQueueVariablesDoNotWarn) {
  Result r =
      run("executable = job.sh\nmydir = out\noutput = $(mydir)/o\ngetenv = true\n"
          "cron_window = 5\n+X = 1\nqueue v in (a)\n");
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
}

}  // namespace
}  // namespace kite::submit::testing
