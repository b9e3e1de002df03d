// The runner of the configuration's `include : COMMAND |`: arguments split as HTCondor's
// V1-raw form (at blanks), no shell, standard output collected, a non-zero exit an error.
#include "agent/core/config_command.h"

#include <gtest/gtest.h>

namespace kite::agent {
namespace {

TEST(ConfigCommand, RunsWithoutAShellAndCollectsStandardOutput) {
  std::string out;
  ASSERT_TRUE(run_config_command("/bin/echo X = 1", &out).ok);
  EXPECT_EQ(out, "X = 1\n");
  // No shell: the quotes are arguments' characters, not quoting.
  ASSERT_TRUE(run_config_command("/bin/echo 'a b'", &out).ok);
  EXPECT_EQ(out, "'a b'\n");
}

TEST(ConfigCommand, FailuresAreErrors) {
  std::string out;
  config::Status st = run_config_command("/bin/false", &out);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.message, "command terminated with exit code 1");
  EXPECT_FALSE(run_config_command("/nonexistent/command", &out).ok);
  EXPECT_FALSE(run_config_command("", &out).ok);
}

}  // namespace
}  // namespace kite::agent
