// The agent reads its boolean and integer settings with the configuration's one typed reader
// (policy/config/typed.h): every boolean word, expressions for numbers, and errors naming the
// file and line of a bad value.
#include <gtest/gtest.h>

#include "agent/startd/agent_config.h"

namespace kite::agent {
namespace {

TEST(AgentConfigWords, BooleansAndIntegersReadAsEverywhere) {
  config::Config cfg;
  ASSERT_TRUE(cfg.load_string("USE_PID_NAMESPACES = yes\nALLOW_ROOT_JOBS = T\n"
                              "JOB_PIDS_LIMIT = 5 * 10\nLOCAL_CLAIM_IDLE_TIME = 7.9\n",
                              "a.conf")
                  .ok);
  AgentConfig ac;
  std::string err;
  ASSERT_TRUE(agent_config_read(cfg, true, &ac, &err)) << err;
  EXPECT_TRUE(ac.use_pid_namespaces);
  EXPECT_TRUE(ac.allow_root_jobs);
  EXPECT_EQ(ac.pids_limit, 50);
  EXPECT_EQ(ac.local_claim_idle, 7);
}

std::string error_of(const char* text) {
  config::Config cfg;
  EXPECT_TRUE(cfg.load_string(text, "a.conf").ok);
  AgentConfig ac;
  std::string err;
  EXPECT_FALSE(agent_config_read(cfg, true, &ac, &err)) << text;
  return err;
}

TEST(AgentConfigWords, BadValuesNameFileAndLine) {
  EXPECT_EQ(error_of("\nALLOW_ROOT_JOBS = perhaps\n")
                .rfind("a.conf, line 2: ALLOW_ROOT_JOBS = perhaps: not a boolean", 0),
            0u);
  EXPECT_EQ(error_of("STARTER_UPDATE_INTERVAL = 0\n"),
            "a.conf, line 1: STARTER_UPDATE_INTERVAL = 0: out of range (1 to "
            "9223372036854775807)");
  EXPECT_EQ(error_of("MAX_AGENT_LOG = 99999999999999999999\n"),
            "a.conf, line 1: MAX_AGENT_LOG = 99999999999999999999: integer out of range (more "
            "than 64 bits)");
}

}  // namespace
}  // namespace kite::agent
