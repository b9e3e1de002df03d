// End-to-end tests of `kite config-val`: runs the built binary and checks stdout, stderr and the
// exit status against condor_config_val's formats.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct CliResult {
  std::string out, err;
  int status = -1;
};

CliResult run(const std::string& args, const std::string& env = "") {
  char errpath[] = "/tmp/kite_cv_err_XXXXXX";
  int fd = mkstemp(errpath);
  EXPECT_GE(fd, 0);
  close(fd);
  std::string cmd = env + " " KITE_BINARY " config-val " + args + " 2>" + errpath;
  CliResult r;
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  FILE* e = fopen(errpath, "r");
  if (e) {
    while ((n = fread(buf, 1, sizeof buf, e)) > 0) r.err.append(buf, n);
    fclose(e);
  }
  remove(errpath);
  return r;
}

const std::string kData = KITE_SOURCE_DIR "/tests/data/config/";
const std::string kPolicy = kData + "startd_policy.conf";

TEST(ConfigValCli, PrintsExpandedValues) {
  CliResult r = run("-c " + kPolicy + " MAX_JOB_RUNTIME UPDATE_INTERVAL ORDER FROM_INCLUDE");
  EXPECT_EQ(r.status, 1);  // MAX_JOB_RUNTIME is not defined
  EXPECT_EQ(r.out, "60\n a b\nyes\n");
  EXPECT_EQ(r.err, "Not defined: MAX_JOB_RUNTIME\n");
  r = run("-c " + kPolicy + " NUM_SLOTS_TYPE_1 slot_type_1");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "1\n100%\n");
}

TEST(ConfigValCli, RawAndVerbose) {
  CliResult r = run("-c " + kPolicy + " -raw START");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "((KeyboardIdle > $(StartIdleTime)) && ( $(CPUIdle) || (State != \"Unclaimed\" && "
            "State != \"Owner\")) ) && (Owner != \"nobody\")\n");
  r = run("-c " + kPolicy + " -verbose WANT_HOLD KILL");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "WANT_HOLD = (JobUniverse != 1 && (isDefined(MemoryUsage) && MemoryUsage > "
            "RequestMemory))\n"
            " # at: " +
                kPolicy +
                ", line 5, use POLICY:WANT_HOLD_IF+7\n"
                " # raw: WANT_HOLD = (JobUniverse != 1 && $(MEMORY_EXCEEDED))\n"
                "\n"
                "KILL = False\n"
                " # at: <Default>\n"
                " # raw: KILL = False\n"
                "\n");
  r = run("-c " + kPolicy + " -raw -verbose STARTD_LATCH_EXPRS");
  EXPECT_EQ(r.out, "STARTD_LATCH_EXPRS =  CpuBusy\n # at: " + kPolicy +
                       ", line 2, use POLICY:DESKTOP+3\n\n");
}

TEST(ConfigValCli, SubsystemOption) {
  CliResult r = run("-c " + kPolicy + " -subsystem STARTD UPDATE_INTERVAL");
  EXPECT_EQ(r.out, "60\n");
  r = run("-c " + kPolicy + " -subsystem MASTER UPDATE_INTERVAL SUBSYSTEM");
  EXPECT_EQ(r.out, "300\nMASTER\n");
}

TEST(ConfigValCli, EmptyConfigDefaults) {
  CliResult r =
      run("-c " + kData + "empty.conf START PREEMPT MaxJobRetirementTime MINUTE SUBSYSTEM");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "True\nFalse\n0\n60\nSTARTD\n");
}

TEST(ConfigValCli, EnvironmentOverridesPath) {
  CliResult r = run("FROM_INCLUDE", "KITE_CONFIG=" + kPolicy);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "yes\n");
}

TEST(ConfigValCli, UnreadableConfigIsExit2WithFileAndLine) {
  CliResult r = run("-c " + kData + "bad_include.conf A");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("bad_include.conf, line 2: include: cannot read"), std::string::npos)
      << r.err;
  r = run("-c " + kData + "cycle.conf A");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cycle.conf, line "), std::string::npos) << r.err;
  r = run("-c /nonexistent/kite.conf START");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/nonexistent/kite.conf"), std::string::npos);
}

TEST(ConfigValCli, Dump) {
  CliResult r = run("-c " + kPolicy + " -dump");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("# Configuration from machine: ", 0), 0u);
  EXPECT_NE(r.out.find("\nSLOT1_START = False\n"), std::string::npos);
  EXPECT_NE(r.out.find("\nKILL = False\n"), std::string::npos);
  EXPECT_NE(r.out.find("# Contributing configuration file(s):\n#\t" + kPolicy + "\n"),
            std::string::npos);
  r = run("-c " + kPolicy + " -dump -verbose '^want_hold$'");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("# Parameters with names that match ^want_hold$:\n"
                       "WANT_HOLD = (JobUniverse != 1 && $(MEMORY_EXCEEDED))\n"
                       " # at: " +
                       kPolicy + ", line 5, use POLICY:WANT_HOLD_IF+7\n"),
            std::string::npos)
      << r.out;
}

TEST(ConfigValCli, UsageErrors) {
  EXPECT_EQ(run("").status, 2);
  EXPECT_EQ(run("-bogus START").status, 2);
  EXPECT_EQ(run("-c").status, 2);
}

}  // namespace
