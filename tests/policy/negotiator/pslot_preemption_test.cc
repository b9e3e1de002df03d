// Partitionable-slot preemption and early preemption in the negotiator: ALLOW_PSLOT_PREEMPTION
// (dynamic slots added lowest CurrentRank first until the job fits, none with retirement left,
// none preempted directly), NEGOTIATOR_CONSIDER_EARLY_PREEMPTION and PREEMPTION_*_STABLE.
#include <gtest/gtest.h>

#include <string>

#include "policy/negotiator/negotiator.h"
#include "tests/policy/negotiator/negotiator_rig.h"

namespace kite::negotiator {
namespace {

using testing::ad;
using testing::config_of;
using testing::job;
using testing::submitter;

// slot1@big with `cpus` CPUs and `memory` MB left.
classad::AdPtr pslot(int cpus, int memory) {
  return ad(
      "Name = \"slot1@big\"\nMachine = \"big\"\nSlotID = 1\nState = \"Unclaimed\"\n"
      "Activity = \"Idle\"\nPartitionableSlot = true\nCpus = " +
      std::to_string(cpus) + "\nMemory = " + std::to_string(memory) +
      "\nDisk = 1000000\nStart = true\nRequirements = START\nRank = 0.0\n");
}

// Dynamic slot slot1_<n>@big of 1 CPU and 1024 MB running a job of `user`; the machine's RANK
// is 5 for every job.
classad::AdPtr dslot(int n, const std::string& user, double current_rank = 0,
                     const std::string& extra = "") {
  return ad("Name = \"slot1_" + std::to_string(n) +
            "@big\"\nMachine = \"big\"\nSlotID = 1\nParentSlotId = 1\nDynamicSlot = true\n"
            "State = \"Claimed\"\nActivity = \"Busy\"\nRemoteUser = \"" +
            user +
            "\"\nCpus = 1\nMemory = 1024\nDisk = 1000\nStart = true\n"
            "Requirements = START\nRank = 5.0\nCurrentRank = " +
            std::to_string(current_rank) + "\n" + extra);
}

// big: nothing left in its partitionable slot, four dynamic slots of bob's with CurrentRank 0,
// 0, 5, 0: the machine's RANK (5) prefers alice's job to bob's on slots 1, 2 and 4; on slot 3
// only priority can preempt (RANK not worse).
CycleInput four_busy(const config::Config* cfg, const std::string& request) {
  CycleInput in;
  in.cfg = cfg;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice", request)));
  in.other_users.push_back({"bob@pool", 100.0, 4});
  in.slots.push_back(pslot(0, 0));
  for (int n = 1; n <= 4; ++n) in.slots.push_back(dslot(n, "bob@pool", n == 3 ? 5.0 : 0.0));
  return in;
}

const std::string kTwoCpus = "RequestCpus = 2\nRequestMemory = 2048";

TEST(PslotPreemption, PreemptsDynamicSlotsLowestCurrentRankFirstUntilTheJobFits) {
  auto cfg = config_of("PREEMPTION_REQUIREMENTS = True\nALLOW_PSLOT_PREEMPTION = True\n");
  CycleResult r = negotiate(four_busy(cfg.get(), kTwoCpus));
  ASSERT_EQ(r.matches.size(), 1u);
  const Match& m = r.matches[0];
  EXPECT_EQ(m.slot, "slot1@big");
  EXPECT_TRUE(m.partitionable);
  EXPECT_TRUE(m.preempting);
  EXPECT_EQ(m.reason, "rank");
  EXPECT_EQ(m.preempted_user, "bob@pool");
  // Two slots give the 2 CPUs and 2048 MB.
  EXPECT_EQ(m.preempted_slots, (std::vector<std::string>{"slot1_1@big", "slot1_2@big"}));
}

TEST(PslotPreemption, TakesAsManyDynamicSlotsAsTheRequestNeeds) {
  auto cfg = config_of("PREEMPTION_REQUIREMENTS = True\nALLOW_PSLOT_PREEMPTION = True\n");
  CycleResult r = negotiate(four_busy(cfg.get(), "RequestCpus = 4\nRequestMemory = 4096"));
  ASSERT_EQ(r.matches.size(), 1u);
  // slot1_3 (CurrentRank 5) comes last, and is preempted by priority.
  EXPECT_EQ(r.matches[0].preempted_slots,
            (std::vector<std::string>{"slot1_1@big", "slot1_2@big", "slot1_4@big", "slot1_3@big"}));
  EXPECT_EQ(r.matches[0].reason, "priority");
  // Five CPUs are more than the partitionable slot and all its dynamic slots hold.
  EXPECT_TRUE(negotiate(four_busy(cfg.get(), "RequestCpus = 5")).matches.empty());
}

TEST(PslotPreemption, OffByDefaultAndThenNoJobBiggerThanOneDynamicSlotPreempts) {
  auto cfg = config_of("PREEMPTION_REQUIREMENTS = True\n");
  EXPECT_TRUE(negotiate(four_busy(cfg.get(), kTwoCpus)).matches.empty());
  // A job that fits one dynamic slot preempts it directly.
  CycleResult r = negotiate(four_busy(cfg.get(), "RequestMemory = 1024"));
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].slot, "slot1_1@big");
  EXPECT_TRUE(r.matches[0].preempted_slots.empty());
}

TEST(PslotPreemption, DynamicSlotsAreNotPreemptedDirectlyWhenItIsOn) {
  auto cfg = config_of("PREEMPTION_REQUIREMENTS = True\nALLOW_PSLOT_PREEMPTION = True\n");
  CycleResult r = negotiate(four_busy(cfg.get(), "RequestMemory = 1024"));
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].slot, "slot1@big");
  EXPECT_EQ(r.matches[0].preempted_slots, (std::vector<std::string>{"slot1_1@big"}));
}

TEST(PslotPreemption, NeedsTheUsualPreemptionRules) {
  // PREEMPTION_REQUIREMENTS False (the default): only the three slots whose RANK prefers the job.
  auto cfg = config_of("ALLOW_PSLOT_PREEMPTION = True\n");
  EXPECT_EQ(negotiate(four_busy(cfg.get(), "RequestCpus = 3\nRequestMemory = 3072")).matches.size(),
            1u);
  EXPECT_TRUE(negotiate(four_busy(cfg.get(), "RequestCpus = 4")).matches.empty());
  // bob's priority is better than alice's: slot1_3 is not preempted by priority either.
  auto prio = config_of("PREEMPTION_REQUIREMENTS = True\nALLOW_PSLOT_PREEMPTION = True\n");
  CycleInput in = four_busy(prio.get(), "RequestCpus = 4");
  EXPECT_EQ(negotiate(in).matches.size(), 1u);
  in.other_users[0].priority = 0.6;
  EXPECT_TRUE(negotiate(in).matches.empty());
}

TEST(PslotPreemption, DynamicSlotsWithRetirementLeftAreNeverEligible) {
  auto cfg = config_of(
      "PREEMPTION_REQUIREMENTS = True\nALLOW_PSLOT_PREEMPTION = True\n"
      "NEGOTIATOR_CONSIDER_EARLY_PREEMPTION = True\n");
  CycleInput in = four_busy(cfg.get(), kTwoCpus);
  in.slots[1] = dslot(1, "bob@pool", 0, "RetirementTimeRemaining = 100");
  in.slots[2] = dslot(2, "bob@pool", 0, "RetirementTimeRemaining = 100");
  CycleResult r = negotiate(in);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].preempted_slots, (std::vector<std::string>{"slot1_4@big", "slot1_3@big"}));
}

TEST(PslotPreemption, DynamicSlotsAlreadyRetiringAreNotPreemptedAgain) {
  auto cfg = config_of("PREEMPTION_REQUIREMENTS = True\nALLOW_PSLOT_PREEMPTION = True\n");
  CycleInput in = four_busy(cfg.get(), kTwoCpus);
  in.slots[1]->insert_value("Activity", classad::Value::string("Retiring"));
  CycleResult r = negotiate(in);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].preempted_slots, (std::vector<std::string>{"slot1_2@big", "slot1_4@big"}));
}

TEST(EarlyPreemption, NoMatchToASlotWithRetirementLeftUnlessConsidered) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice")));
  in.other_users.push_back({"bob@pool", 100.0, 1});
  in.slots.push_back(testing::slot(1, "node1",
                                   "State = \"Claimed\"\nActivity = \"Busy\"\n"
                                   "RemoteUser = \"bob@pool\"\nRetirementTimeRemaining = 30\n"));
  auto cfg = config_of("PREEMPTION_REQUIREMENTS = True\n");
  in.cfg = cfg.get();
  EXPECT_TRUE(negotiate(in).matches.empty());
  auto early =
      config_of("PREEMPTION_REQUIREMENTS = True\nNEGOTIATOR_CONSIDER_EARLY_PREEMPTION = True\n");
  in.cfg = early.get();
  ASSERT_EQ(negotiate(in).matches.size(), 1u);
  // Retirement over (0 left): matched without it.
  in.cfg = cfg.get();
  in.slots[0]->insert_value("RetirementTimeRemaining", classad::Value::integer(0));
  EXPECT_EQ(negotiate(in).matches.size(), 1u);
}

TEST(RemoteUser, WithoutItsDomainItIsStillTheAccountantsUser) {
  // A job ad without User gives the slot RemoteUser = its Owner: "bob" is bob@pool.
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice")));
  in.other_users.push_back({"bob@pool", 100.0, 1});
  in.slots.push_back(
      testing::slot(1, "n1", "State = \"Claimed\"\nActivity = \"Busy\"\nRemoteUser = \"bob\"\n"));
  auto cfg = config_of("PREEMPTION_REQUIREMENTS = True\n");
  in.cfg = cfg.get();
  ASSERT_EQ(negotiate(in).matches.size(), 1u);
  // "bo" is nobody the accountant knows: the best priority, never preempted by priority.
  in.slots[0] =
      testing::slot(1, "n1", "State = \"Claimed\"\nActivity = \"Busy\"\nRemoteUser = \"bo\"\n");
  EXPECT_TRUE(negotiate(in).matches.empty());
}

TEST(PreemptionStable, UnstableRequirementsSeeTheCyclesOwnMatches) {
  // alice may preempt only while she holds fewer than 2 slots, counting this cycle's matches:
  // with the values stable the list made for her first job is used for the second as well.
  const std::string rules = "PREEMPTION_REQUIREMENTS = TARGET.SubmitterUserResourcesInUse < 1\n";
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice"), job(1, 1, "alice")));
  in.other_users.push_back({"bob@pool", 100.0, 2});
  in.slots.push_back(testing::slot(
      1, "n1", "State = \"Claimed\"\nActivity = \"Busy\"\nRemoteUser = \"bob@pool\"\n"));
  in.slots.push_back(testing::slot(
      2, "n1", "State = \"Claimed\"\nActivity = \"Busy\"\nRemoteUser = \"bob@pool\"\n"));
  auto stable = config_of(rules);
  in.cfg = stable.get();
  EXPECT_EQ(negotiate(in).matches.size(), 2u);
  auto unstable = config_of(rules + "PREEMPTION_REQUIREMENTS_STABLE = False\n");
  in.cfg = unstable.get();
  EXPECT_EQ(negotiate(in).matches.size(), 1u);
}

}  // namespace
}  // namespace kite::negotiator
