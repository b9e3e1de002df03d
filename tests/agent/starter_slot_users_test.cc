// Slot users under a real agent: with a pool of SLOT<N>_USER accounts, jobs running at the same
// time on dynamic slots of one partitionable slot each get a distinct account; when the pool is
// used up, SLOT_USER.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "agent/core/frame.h"
#include "agent_harness.h"

namespace kite::test {
namespace {

TEST(StarterSlotUsers, ConcurrentJobsGetDistinctAccountsFromThePool) {
  REQUIRE_AGENT_TESTS();
  for (const char* u : {"daemon", "bin", "nobody"}) {
    if (!getpwnam(u)) GTEST_SKIP() << "no account '" << u << "' on this machine";
  }
  TestAgent a;
  std::string err;
  ASSERT_TRUE(
      a.start("NUM_CPUS = 4\nSLOT1_USER = daemon\nSLOT2_USER = bin\nSLOT_USER = nobody\n", &err))
      << err;
  // Three jobs at once: each prints its account, then waits for the marker file so that all
  // three overlap.
  std::string marker = a.dir() + "/go";
  std::vector<pid_t> runs;
  for (int i = 0; i < 3; ++i) {
    runs.push_back(a.run_bg({"--cpus", "1", "--", "/bin/sh", "-c",
                             "id -un; while [ ! -e " + marker + " ]; do sleep 0.05; done"},
                            a.dir() + "/run" + std::to_string(i) + ".out"));
  }
  ASSERT_TRUE(eventually(
      [&] {
        int busy = 0;
        for (const char* s : {"slot1_1", "slot1_2", "slot1_3"})
          busy += a.slot_state(s) == "Claimed/Busy";
        return busy == 3;
      },
      20000))
      << a.log();
  ASSERT_EQ(run_cmd({"touch", marker}).status, 0);
  std::multiset<std::string> users;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(wait_bg(runs[static_cast<size_t>(i)], 20000), 0);
    core::Json ex = exit_json(read_text(a.dir() + "/run" + std::to_string(i) + ".out"));
    ASSERT_TRUE(ex) << read_text(a.dir() + "/run" + std::to_string(i) + ".out") << a.log();
    std::string out = ex.str("stdout");
    while (!out.empty() && out.back() == '\n') out.pop_back();
    users.insert(out);
  }
  EXPECT_EQ(users, (std::multiset<std::string>{"bin", "daemon", "nobody"}));
  EXPECT_NE(a.log().find("every SLOT<N>_USER account is in use"), std::string::npos) << a.log();
  EXPECT_EQ(a.stop(), 0) << a.log();
}

}  // namespace
}  // namespace kite::test
