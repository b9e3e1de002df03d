// Partitionable-slot preemption through the real central manager on loopback
// (ALLOW_PSLOT_PREEMPTION): a submitter of better priority whose 2-CPU job fits node-a's
// partitionable slot only without bob's two 1-CPU dynamic slots gets one match that preempts
// both; the agent's startd evicts them, carves the new dynamic slot, and the job runs there.
#include <map>
#include <sstream>

#include "../pool_harness.h"

namespace kite::test {
namespace {

const char* const kCm =
    "ALIVE_INTERVAL = 1\nMAX_CLAIM_ALIVES_MISSED = 8\nNEGOTIATOR_INTERVAL = 2\n"
    "PREEMPTION_REQUIREMENTS = True\nALLOW_PSLOT_PREEMPTION = True\n";
// One partitionable slot of 2 CPUs; preempted jobs get 1 s to vacate.
const char* const kNode =
    "ALIVE_INTERVAL = 1\nMAX_CLAIM_ALIVES_MISSED = 8\nNUM_CPUS = 2\nNUM_SLOTS_TYPE_1 = 1\n"
    "SLOT_TYPE_1 = 100%\nSLOT_TYPE_1_PARTITIONABLE = True\nMachineMaxVacateTime = 1\n"
    "FILESYSTEM_DOMAIN = kite-test\n";

std::string submit_file(Pool& pool, const std::string& name, int count, int cpus) {
  std::string path = pool.pki().dir + "/" + name, err;
  std::string body =
      "executable = /bin/sleep\narguments = 600\nrequest_cpus = " + std::to_string(cpus) +
      "\nrequest_memory = 16\nrequest_disk = 1024\n"
      "+FileSystemDomain = \"kite-test\"\nqueue " +
      std::to_string(count) + "\n";
  EXPECT_TRUE(core::write_file_atomic(path, body, 0644, &err)) << err;
  return path;
}

TEST(PslotPreemptionPool, ABetterPriorityTakesTheWholePartitionableSlotInOneMatch) {
  REQUIRE_AGENT_TESTS();
  if (!cm_available()) GTEST_SKIP() << "this build has no central manager (node-only)";
  Pool pool(kCm);
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  ASSERT_EQ(
      pool.run_as("root-admin", "userprio", {"-setfactor", "bob@localdomain", "100000"}).status, 0);
  ASSERT_EQ(pool.as("bob", {"submit", submit_file(pool, "b.sub", 2, 1)}).status, 0);
  TestAgent a;
  std::string err;
  ASSERT_TRUE(pool.start_agent(&a, "node-a", "node-a", &err, kNode)) << err;
  auto running = [&] {
    std::map<std::string, int> n;
    std::istringstream in(
        pool.as("root-admin", {"q", "-allusers", "-constraint", "JobStatus == 2", "-af", "Owner"})
            .out);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) n[line]++;
    return n;
  };
  auto logs = [&] {
    return pool.cm_log() + "\n--- node-a\n" + a.log() + "\n--- slots\n" +
           pool.status(
                   {"-af", "Name", "State", "Activity", "RemoteUser", "CurrentRank",
                    "RetirementTimeRemaining", "SlotID", "ParentSlotId", "Cpus", "Memory", "Disk"},
                   "alice")
               .out;
  };
  ASSERT_TRUE(eventually(
      [&] {
        return running() == std::map<std::string, int>{{"bob", 2}};
      },
      60000))
      << logs();
  ASSERT_EQ(pool.as("alice", {"submit", submit_file(pool, "a.sub", 1, 2)}).status, 0);
  ASSERT_TRUE(eventually(
      [&] {
        return running() == std::map<std::string, int>{{"alice", 1}};
      },
      60000))
      << logs();
  // One match preempted both dynamic slots; the new one was carved for it.
  EXPECT_NE(pool.cm_log().find("preempting bob by priority"), std::string::npos) << pool.cm_log();
  EXPECT_NE(a.log().find("claimed by the central manager (preempting dynamic slots)"),
            std::string::npos)
      << a.log();
  // bob's jobs are idle again, not lost.
  EXPECT_EQ(
      pool.as("root-admin", {"q", "-allusers", "-constraint", "JobStatus == 1", "-af", "Owner"})
          .out,
      "bob\nbob\n");
}

}  // namespace
}  // namespace kite::test
