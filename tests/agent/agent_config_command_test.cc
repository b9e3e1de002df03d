// The agent and the configuration's commands (`include : COMMAND |`): run at start-up before
// the loop, and again on a reconfig as children of the loop, which keeps answering while they
// run; the new configuration applies when their output is in, and a failing command leaves the
// running configuration in place with a log line naming the file and line.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "agent/core/files.h"
#include "agent_harness.h"

namespace kite::test {
namespace {

// `kite ARGS --socket SOCK`: straight to the agent's socket, so the CLI does not read (and run
// the commands of) the configuration itself.
CmdResult on_socket(const TestAgent& a, std::vector<std::string> args) {
  std::vector<std::string> argv = kite_command();
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--socket", a.dir() + "/local/agent.sock"});
  return run_cmd(argv, 30000);
}

std::string start_of(const TestAgent& a) {
  CmdResult r = on_socket(a, {"status", "-af", "Start"});
  return r.status == 0 ? r.out : "(status failed: " + r.err + ")";
}

// A command that says it started, waits until the test lets it go on, then prints the
// configuration text in the file `value`.
std::string write_gated_command(const TestAgent& a) {
  std::string script = a.dir() + "/policy.sh", err;
  EXPECT_TRUE(core::write_file_atomic(script,
                                      "#!/bin/sh\ncd " + a.dir() +
                                          "\ntouch started\n"
                                          "while [ ! -e go ]; do sleep 0.05; done\n"
                                          "cat value\n",
                                      0755, &err))
      << err;
  return script;
}

TEST(AgentConfigCommand, StartUpRunsItAndReconfigRunsItAgainWithoutBlockingTheLoop) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err, script = write_gated_command(a);
  ASSERT_TRUE(core::write_file_atomic(a.dir() + "/value", "START = False\n", 0644, &err));
  ASSERT_TRUE(core::write_file_atomic(a.dir() + "/go", "", 0644, &err));
  ASSERT_TRUE(a.start("include : /bin/sh " + script + " |\n", &err)) << err;
  EXPECT_EQ(start_of(a), "false\n") << a.log();

  // The reconfig's command waits for "go": meanwhile the agent answers with the running
  // configuration, then applies the new one once the output is in.
  ASSERT_EQ(unlink((a.dir() + "/go").c_str()), 0);
  ASSERT_EQ(unlink((a.dir() + "/started").c_str()), 0);
  ASSERT_TRUE(core::write_file_atomic(a.dir() + "/value", "START = True\n", 0644, &err));
  CmdResult r = on_socket(a, {"reconfig"});
  ASSERT_EQ(r.status, 0) << r.err << a.log();
  EXPECT_EQ(r.out, "reconfig started: the configuration applies once its commands have run\n");
  ASSERT_TRUE(eventually([&] { return access((a.dir() + "/started").c_str(), F_OK) == 0; }, 10000))
      << a.log();
  EXPECT_EQ(start_of(a), "false\n") << a.log();
  // A second reconfig while the first waits is taken after it.
  EXPECT_EQ(on_socket(a, {"reconfig"}).status, 0);
  ASSERT_TRUE(core::write_file_atomic(a.dir() + "/go", "", 0644, &err));
  EXPECT_TRUE(eventually([&] { return start_of(a) == "true\n"; }, 10000)) << a.log();
  EXPECT_NE(a.log().find("reconfig: running 1 configuration command(s)"), std::string::npos)
      << a.log();

  // SIGHUP does the same.
  ASSERT_TRUE(core::write_file_atomic(a.dir() + "/value", "START = False\n", 0644, &err));
  kill(a.pid(), SIGHUP);
  EXPECT_TRUE(eventually([&] { return start_of(a) == "false\n"; }, 10000)) << a.log();
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentConfigCommand, AFailingCommandKeepsTheRunningConfigurationAndSaysWhere) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err, script = a.dir() + "/policy.sh";
  ASSERT_TRUE(core::write_file_atomic(
      script, "#!/bin/sh\nif [ -e " + a.dir() + "/fail ]; then exit 3; fi\necho START = False\n",
      0755, &err));
  ASSERT_TRUE(a.start("include : " + script + " |\n", &err)) << err;
  EXPECT_EQ(start_of(a), "false\n") << a.log();
  ASSERT_TRUE(core::write_file_atomic(a.dir() + "/fail", "", 0644, &err));
  ASSERT_EQ(on_socket(a, {"reconfig"}).status, 0);
  std::string conf = read_text(a.config());
  size_t at = conf.find("include :");
  ASSERT_NE(at, std::string::npos);
  std::string line = std::to_string(1 + std::count(conf.begin(), conf.begin() + at, '\n'));
  std::string want =
      "reconfig refused, keeping the running configuration: configuration error: " + a.config() +
      ", line " + line + ": include: " + script + ": command terminated with exit code 3";
  EXPECT_TRUE(eventually([&] { return a.log().find(want) != std::string::npos; }, 10000))
      << want << "\n"
      << a.log();
  // The agent goes on with the running configuration.
  EXPECT_EQ(start_of(a), "false\n");
  EXPECT_EQ(on_socket(a, {"status", "-af", "State"}).out, "Unclaimed\n");
  ASSERT_EQ(unlink((a.dir() + "/fail").c_str()), 0);  // (the harness's `kite off` reads it too)
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentConfigCommand, AFailingCommandAtStartUpNamesTheFileAndLine) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;  // (for its directory)
  std::string err, conf = a.dir() + "/bad.conf";
  ASSERT_TRUE(core::write_file_atomic(
      conf, "LOCAL_DIR = " + a.dir() + "/local\ninclude : /bin/false |\n", 0644, &err));
  std::vector<std::string> argv = kite_command();
  argv.insert(argv.end(), {"agent", "-c", conf, "--foreground"});
  CmdResult r = run_cmd(argv, 30000);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(conf + ", line 2: include: /bin/false: command terminated with exit code 1"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace kite::test
