// `kite submit -dry-run`: procs in order with one blank line between them, warnings and errors
// on stderr only, exit codes, condor_submit's `-dry-run OUTFILE FILE` form, the user override.
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "tests/policy/submit/submit_helpers.h"

namespace kite::submit::testing {
namespace {

struct CliRun {
  int status = -1;
  std::string out;
  std::string err;
};

class SubmitCli : public SubmitTest {
 protected:
  void SetUp() override {
    if (KITE_NODE_ONLY) GTEST_SKIP() << "node-only build: no `kite submit` command";
    SubmitTest::SetUp();
  }
  CliRun kite(const std::string& args) {
    std::string cmd = "cd '" + dir_ + "' && KITE_SUBMIT_USER=carol " KITE_BINARY " submit " + args +
                      " > cli.out 2> cli.err";
    CliRun r;
    int rc = std::system(cmd.c_str());
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = slurp("cli.out");
    r.err = slurp("cli.err");
    return r;
  }
  std::string slurp(const std::string& name) {
    std::ifstream in(dir_ + "/" + name);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
};

TEST_F(SubmitCli, QueueFromACommandRunsItInTheSubmitDirectory) {
  write("list.sh", "#!/bin/sh\nls *.in\n", 0755);
  write("a.in", "");
  write("b.in", "");
  write("cmd.sub", "executable = job.sh\narguments = $(f)\nqueue f from ./list.sh |\n");
  CliRun r = kite("-dry-run - cmd.sub");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Args = \"a.in\"\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Args = \"b.in\"\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("ProcId = 2\n"), std::string::npos) << r.out;
}

TEST_F(SubmitCli, PrintsEveryProcInOrderSeparatedByABlankLine) {
  write("two.sub", "executable = job.sh\naccounting_group = g\nfoo = 1\nqueue 2\n");
  CliRun r = kite("-dry-run two.sub");
  EXPECT_EQ(r.status, 0) << r.err;
  size_t p0 = r.out.find("ProcId = 0\n");
  size_t gap = r.out.find("\n\n");
  size_t p1 = r.out.find("ProcId = 1\n");
  ASSERT_NE(p0, std::string::npos) << r.out;
  ASSERT_NE(p1, std::string::npos) << r.out;
  EXPECT_LT(p0, gap);
  EXPECT_LT(gap, p1);
  EXPECT_EQ(r.out.find("\n\n", gap + 2), std::string::npos);  // exactly one separator
  EXPECT_NE(r.out.find("AccountingGroup = \"g.carol\"\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("WARNING: the line 'foo = 1' was unused by condor_submit. Is it a typo?"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos);
}

TEST_F(SubmitCli, ErrorsExitOneWithNothingOnStdout) {
  write("bad.sub", "arguments = 1\nqueue\n");
  CliRun r = kite("-dry-run bad.sub");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("ERROR: No 'executable' parameter was provided"), std::string::npos)
      << r.err;
  CliRun missing = kite("-dry-run nothere.sub");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("nothere.sub"), std::string::npos) << missing.err;
}

TEST_F(SubmitCli, CondorSubmitsOutfileForm) {
  write("one.sub", "executable = job.sh\nqueue\n");
  CliRun r = kite("-dry-run ads.txt one.sub");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(slurp("ads.txt").find("JobUniverse = 5\n"), std::string::npos);
  CliRun dash = kite("-dry-run - one.sub");
  EXPECT_NE(dash.out.find("JobUniverse = 5\n"), std::string::npos);
}

TEST_F(SubmitCli, UsageErrors) {
  EXPECT_EQ(kite("").status, 2);
  EXPECT_EQ(kite("-bogus x.sub").status, 2);
  CliRun no_dry = kite("x.sub");
  EXPECT_EQ(no_dry.status, 2);
  EXPECT_NE(no_dry.err.find("-dry-run"), std::string::npos);
}

}  // namespace
}  // namespace kite::submit::testing
