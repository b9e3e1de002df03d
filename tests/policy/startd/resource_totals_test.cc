// Tests for the resource invariant (Startd::resources_balance) and the scenario step that
// checks it: the figures it reports, and a refused hostile claim that leaves them as they were.
#include <gtest/gtest.h>

#include <string>

#include "policy/startd/scenario.h"
#include "startd_rig.h"

namespace kite::startd {
namespace {

// One partitionable slot of 4 CPUs and 4096 MB (the rig's default disk and swap are 0).
TEST(ResourceTotals, DynamicSlotsAndThePartitionableSlotAddUp) {
  StartdRig r("", 4, 4096);
  std::string report;
  ASSERT_TRUE(r.sd->resources_balance(&report)) << report;
  EXPECT_NE(report.find("Cpus 4 of 4"), std::string::npos) << report;
  EXPECT_NE(report.find("Memory 4096 of 4096"), std::string::npos) << report;
  r.ev(EventKind::kClaim, "slot1", "[Owner=\"a\"; RequestCpus=1.5; RequestMemory=1000]");
  EXPECT_EQ(r.state("slot1_1"), "Claimed/Idle");
  EXPECT_EQ(r.attr("slot1_1", "Cpus"), 2);
  EXPECT_EQ(r.attr("slot1_1", "Memory"), 1024);
  EXPECT_EQ(r.attr("slot1", "Cpus"), 2);
  EXPECT_EQ(r.attr("slot1", "Memory"), 3072);
  EXPECT_TRUE(r.sd->resources_balance(&report)) << report;
  // A hostile claim is refused and changes nothing.
  r.ev(EventKind::kClaim, "slot1", "[Owner=\"b\"; RequestCpus=-100; RequestMemory=3072]");
  const Action* refused = r.find(ActionKind::kRefuse, "slot1");
  ASSERT_NE(refused, nullptr);
  EXPECT_NE(refused->detail.find("RequestCpus -100 is negative"), std::string::npos)
      << refused->detail;
  EXPECT_EQ(r.state("slot1_2"), "absent");
  EXPECT_EQ(r.attr("slot1", "Cpus"), 2);
  EXPECT_EQ(r.attr("slot1", "Memory"), 3072);
  EXPECT_TRUE(r.sd->resources_balance(&report)) << report;
}

TEST(ResourceTotals, ScenarioStepTakesNoArguments) {
  ScenarioResult res;
  scenario_run("NUM_CPUS = 1\n---\nat 0 expect-totals slot1\n", "t.scenario", &res);
  EXPECT_TRUE(res.error);
  EXPECT_NE(res.output.find("line 3: expect-totals: takes no arguments"), std::string::npos)
      << res.output;
  scenario_run("NUM_CPUS = 1\n---\nat 0 expect-totals\n", "t.scenario", &res);
  EXPECT_FALSE(res.error) << res.output;
  EXPECT_EQ(res.passed, 1) << res.output;
  EXPECT_EQ(res.failed, 0) << res.output;
}

}  // namespace
}  // namespace kite::startd
