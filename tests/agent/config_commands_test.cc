// A reconfig's configuration commands on a libuv loop (agent/startd/config_commands.h): all
// run at once, each output or failure collected, a time limit, and the runner that serves the
// outputs to a configuration load.
#include "agent/startd/config_commands.h"

#include <gtest/gtest.h>
#include <uv.h>

namespace kite::agent {
namespace {

ConfigCommandOutputs run_all(const std::vector<std::string>& commands, uint64_t timeout_ms) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  ConfigCommandOutputs got;
  int calls = 0;
  {
    HookRunner hooks(&loop);
    run_config_commands(&hooks, commands, timeout_ms, [&](ConfigCommandOutputs outs) {
      ++calls;
      got = std::move(outs);
    });
    uv_run(&loop, UV_RUN_DEFAULT);
  }
  uv_loop_close(&loop);
  EXPECT_EQ(calls, 1);
  return got;
}

TEST(ConfigCommands, EachCommandsOutputOrFailureIsCollected) {
  ConfigCommandOutputs got = run_all(
      {"/bin/echo A = 1", "/bin/false", "/nonexistent/cmd", "/bin/echo A = 1", "/bin/sleep 5"},
      300);
  ASSERT_EQ(got.size(), 4u);  // the repeated command runs once
  EXPECT_TRUE(got["/bin/echo A = 1"].status.ok);
  EXPECT_EQ(got["/bin/echo A = 1"].output, "A = 1\n");
  EXPECT_EQ(got["/bin/false"].status.message, "command terminated with exit code 1");
  EXPECT_EQ(got["/nonexistent/cmd"].status.message, "not a valid command");
  EXPECT_EQ(got["/bin/sleep 5"].status.message, "command ran longer than 0.3 seconds");
  EXPECT_TRUE(run_all({}, 300).empty());
}

TEST(ConfigCommands, TheServerGivesOutputsAndNotesWhatIsMissing) {
  ConfigCommandOutputs outputs;
  outputs["/bin/gen"] = {config::Status::Ok(), "START = False\n"};
  outputs["/bin/bad"] = {config::Status::Error("command terminated with exit code 2"), ""};
  std::vector<std::string> used, missing;
  config::Config cfg;
  cfg.set_command_runner(config_command_server(&outputs, &used, &missing));
  ASSERT_TRUE(cfg.load_string("include : /bin/gen |\n", "a.conf").ok);
  std::string v;
  EXPECT_TRUE(cfg.get("START", &v));
  EXPECT_EQ(v, "False");
  config::Status st = cfg.load_string("\ninclude : /bin/bad |\n", "b.conf");
  EXPECT_EQ(st.message, "b.conf, line 2: include: /bin/bad: command terminated with exit code 2");
  EXPECT_FALSE(cfg.load_string("include : /bin/new arg |\n", "c.conf").ok);
  EXPECT_EQ(used, (std::vector<std::string>{"/bin/gen", "/bin/bad", "/bin/new arg"}));
  EXPECT_EQ(missing, (std::vector<std::string>{"/bin/new arg"}));
}

}  // namespace
}  // namespace kite::agent
