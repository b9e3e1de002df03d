// The defrag in `kite cm` with two real agents with partitionable slots on loopback: a policy
// that picks node-b drains node-b (quick, through the node-commands path) and never node-a,
// and the Defrag ad is in the collector for `kite status -any`.
#include <string>

#include "pool_harness.h"

namespace kite::test {
namespace {

const char kPartitionable[] =
    "NUM_SLOTS = 1\nNUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1 = 100%\nSLOT_TYPE_1_PARTITIONABLE = true\n";

TEST(CmDefrag, APolicyDrainsTheChosenMachineAndTheDefragAdIsQueryable) {
  REQUIRE_CM();
  Pool pool(
      "DEFRAG_INTERVAL = 1\n"
      "DEFRAG_DRAINING_MACHINES_PER_HOUR = 3600\n"
      "DEFRAG_WHOLE_MACHINE_EXPR = false\n"
      "DEFRAG_REQUIREMENTS = PartitionableSlot && Machine == \"node-b\" && "
      "LastDrainStartTime =?= undefined\n"
      "DEFRAG_SCHEDULE = quick\n"
      "DEFRAG_NAME = defrag@cm1\n");
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  TestAgent a, b;
  std::string err;
  ASSERT_TRUE(pool.start_agent(&a, "node-a", "node-a", &err, kPartitionable)) << err;
  ASSERT_TRUE(pool.start_agent(&b, "node-b", "node-b", &err, kPartitionable)) << err;
  ASSERT_TRUE(eventually(
      [&] {
        return pool.names() == std::set<std::string>{"slot1@node-a", "slot1@node-b"};
      },
      20000))
      << testing::PrintToString(pool.names());

  auto drained_at = [&](const std::string& machine) {
    return pool
        .status({"-constraint", "Machine == \"" + machine + "\"", "-af", "LastDrainStartTime"},
                "alice")
        .out;
  };
  EXPECT_TRUE(eventually([&] { return drained_at("node-b") != "undefined\n"; }, 20000))
      << drained_at("node-b") << pool.cm_log();
  EXPECT_NE(b.log().find("remote command drain from cm/defrag"), std::string::npos) << b.log();
  EXPECT_NE(pool.cm_log().find("defrag: draining node-b (quick)"), std::string::npos);

  // The Defrag ad: one drain started and accepted.
  std::string defrag;
  EXPECT_TRUE(eventually(
      [&] {
        defrag =
            pool.status({"-any", "-constraint", "MyType == \"Defrag\"", "-af", "Name",
                         "DrainedMachines", "DrainSuccesses", "DrainFailures", "DefragSchedule"},
                        "alice")
                .out;
        return defrag == "defrag@cm1 1 1 0 quick\n";
      },
      20000))
      << defrag;
  std::string avg = pool.status({"-any", "-constraint", "MyType == \"Defrag\"", "-af",
                                 "AvgDrainingBadput", "AvgDrainingUnclaimed"},
                                "alice")
                        .out;
  EXPECT_EQ(avg, "0.0 0.0\n");
  CmdResult table = pool.status({"-any"}, "alice");
  EXPECT_NE(table.out.find("\nDefrag             None               defrag@cm1"), std::string::npos)
      << table.out;

  // node-a is never chosen: the requirements leave it out.
  EXPECT_EQ(drained_at("node-a"), "undefined\n");
  EXPECT_EQ(a.log().find("remote command drain"), std::string::npos) << a.log();
}

}  // namespace
}  // namespace kite::test
