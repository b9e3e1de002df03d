// The negotiation cycle: order of submitters and jobs, autoclusters, both-side Requirements,
// preemption, the rank chain, partitionable slots, limits and determinism.
#include "policy/negotiator/negotiator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/policy/negotiator/negotiator_rig.h"

namespace kite::negotiator {
namespace {

using testing::ad;
using testing::config_of;
using testing::job;
using testing::pairs;
using testing::slot;
using testing::submitter;

TEST(Negotiator, BetterPrioritySubmitterNegotiatesFirstAndWinsTheOnlySlot) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 10.0, job(1, 0, "alice")));
  in.submitters.push_back(submitter("bob@pool", 1.0, job(2, 0, "bob")));
  in.slots.push_back(slot(1));
  CycleResult r = negotiate(in);
  ASSERT_EQ(r.submitters.size(), 2u);
  EXPECT_EQ(r.submitters[0].name, "bob@pool");
  EXPECT_EQ(r.submitters[1].name, "alice@pool");
  EXPECT_EQ(pairs(r), std::vector<std::string>{"2.0->slot1@node1"});
  EXPECT_EQ(r.matches[0].submitter, "bob@pool");
  EXPECT_EQ(r.matches[0].reason, "idle");
  EXPECT_FALSE(r.matches[0].preempting);
  EXPECT_EQ(r.submitters[0].matched, 1);
  EXPECT_EQ(r.submitters[1].matched, 0);
}

TEST(Negotiator, JobPrioFirstThenOlderQDateThenClusterAndProc) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice", "", 300),
                                    job(2, 0, "alice", "JobPrio = 5", 900),
                                    job(3, 1, "alice", "", 100), job(3, 0, "alice", "", 100),
                                    job(4, 0, "alice", "JobPrio = -1", 1)));
  for (int i = 1; i <= 4; ++i) in.slots.push_back(slot(i));
  CycleResult r = negotiate(in);
  EXPECT_EQ(pairs(r), (std::vector<std::string>{"2.0->slot1@node1", "3.0->slot2@node1",
                                                "3.1->slot3@node1", "1.0->slot4@node1"}));
}

TEST(Negotiator, PreJobPrioComesBeforeJobPrioAndPostJobPrioAfter) {
  // job-classad-attributes: PreJobPrio1, PreJobPrio2, JobPrio, PostJobPrio1, PostJobPrio2.
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice", "JobPrio = 10"),
                                    job(2, 0, "alice", "PreJobPrio1 = 1"),
                                    job(3, 0, "alice", "JobPrio = 10\nPostJobPrio1 = 3"),
                                    job(4, 0, "alice", "PreJobPrio1 = 1\nPreJobPrio2 = 2")));
  for (int i = 1; i <= 4; ++i) in.slots.push_back(slot(i));
  CycleResult r = negotiate(in);
  EXPECT_EQ(pairs(r), (std::vector<std::string>{"4.0->slot1@node1", "2.0->slot2@node1",
                                                "3.0->slot3@node1", "1.0->slot4@node1"}));
}

TEST(Negotiator, FailedAutoclusterIsSkippedForTheRestOfTheCycle) {
  CycleInput in;
  std::vector<IdleJob> jobs;
  for (int p = 0; p < 3; ++p) jobs.push_back(job(1, p, "alice", "RequestMemory = 4096"));
  jobs.push_back(job(2, 0, "alice", "", 2000));
  in.submitters.push_back(submitter("alice@pool", 1.0, std::move(jobs)));
  in.slots.push_back(slot(1));
  in.slots.push_back(slot(2));
  CycleResult r = negotiate(in);
  EXPECT_EQ(pairs(r), std::vector<std::string>{"2.0->slot1@node1"});
  EXPECT_EQ(r.autoclusters, 2);
  EXPECT_EQ(r.submitters[0].rejected, 1);  // the group of three fails once

  auto cfg = config_of("NEGOTIATE_ALL_JOBS_IN_CLUSTER = True\n");
  in.cfg = cfg.get();
  r = negotiate(in);
  EXPECT_EQ(pairs(r), std::vector<std::string>{"2.0->slot1@node1"});
  EXPECT_EQ(r.submitters[0].rejected, 3);  // every job of the group is tried
}

TEST(Negotiator, JobsDifferingOnlyInInsignificantAttributesShareAnAutocluster) {
  CycleInput in;
  std::vector<IdleJob> jobs;
  for (int p = 0; p < 5; ++p)
    jobs.push_back(job(1, p, "alice", "Args = \"run " + std::to_string(p) + "\""));
  jobs.push_back(job(2, 0, "alice", "RequestMemory = 256"));
  in.submitters.push_back(submitter("alice@pool", 1.0, std::move(jobs)));
  for (int i = 1; i <= 6; ++i) in.slots.push_back(slot(i));
  CycleResult r = negotiate(in);
  EXPECT_EQ(r.matches.size(), 6u);
  EXPECT_EQ(r.autoclusters, 2);
}

TEST(Negotiator, SlotAttributesTheSlotsReferToAreSignificant) {
  // START looks at the job's Department: jobs that differ there are different groups, and the
  // failed group does not hide the other.
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice", "Department = \"chem\""),
                                    job(1, 1, "alice", "Department = \"phys\"")));
  in.slots.push_back(slot(1, "node1", "Start = TARGET.Department == \"phys\""));
  CycleResult r = negotiate(in);
  EXPECT_EQ(pairs(r), std::vector<std::string>{"1.1->slot1@node1"});
  EXPECT_EQ(r.autoclusters, 2);
}

TEST(Negotiator, BothRequirementsMustAccept) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0,
                                    job(1, 0, "alice", "Requirements = TARGET.Arch == \"ARM\""),
                                    job(2, 0, "alice")));
  in.submitters.push_back(submitter("bob@pool", 2.0, job(3, 0, "bob")));
  in.slots.push_back(slot(1, "x86", "Arch = \"X86_64\"\nStart = TARGET.Owner == \"bob\""));
  in.slots.push_back(slot(2, "arm", "Arch = \"ARM\"\nStart = TARGET.Owner == \"alice\""));
  CycleResult r = negotiate(in);
  std::vector<std::string> got = pairs(r);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"1.0->slot2@arm", "3.0->slot1@x86"}));
}

TEST(Negotiator, JobRequirementsAreAnsweredPerSlotValues) {
  // Slots alternate between values the job refuses and accepts, and one computes its Memory.
  CycleInput in;
  std::vector<IdleJob> jobs;
  for (int p = 0; p < 6; ++p) jobs.push_back(job(1, p, "alice", "RequestMemory = 1024"));
  in.submitters.push_back(submitter("alice@pool", 1.0, std::move(jobs)));
  for (int i = 1; i <= 4; ++i)
    in.slots.push_back(slot(i, "n", i % 2 ? "Memory = 512" : "Memory = 2048"));
  in.slots.push_back(slot(5, "n", "Memory = 1024 * 2"));
  in.slots.push_back(slot(6, "n", "Memory = 1000 + 23"));
  std::vector<std::string> got = pairs(negotiate(in));
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"1.0->slot2@n", "1.1->slot4@n", "1.2->slot5@n"}));
}

// A slot running bob's job whose machine RANK prefers alice.
classad::AdPtr running_slot(int n, const std::string& user, const std::string& extra = "") {
  return slot(n, "busy",
              "State = \"Claimed\"\nActivity = \"Busy\"\nRemoteUser = \"" + user +
                  "\"\nRemoteOwner = \"" + user + "\"\n" + extra);
}

TEST(Negotiator, MachineRankPreemptsWhenNoIdleSlotIsLeft) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 5.0, job(1, 0, "alice"), job(1, 1, "alice")));
  in.slots.push_back(
      running_slot(1, "bob@pool", "Rank = TARGET.Owner == \"alice\"\nCurrentRank = 0.0"));
  in.slots.push_back(running_slot(2, "bob@pool", "CurrentRank = 0.0"));
  CycleResult r = negotiate(in);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].slot, "slot1@busy");
  EXPECT_TRUE(r.matches[0].preempting);
  EXPECT_EQ(r.matches[0].reason, "rank");
  EXPECT_EQ(r.matches[0].preempted_user, "bob@pool");
}

TEST(Negotiator, ClaimedIdleSlotsAreNotOffered) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice")));
  in.slots.push_back(slot(1, "node1",
                          "State = \"Claimed\"\nActivity = \"Idle\"\nRemoteUser = \"bob@pool\"\n"
                          "Rank = 10"));
  EXPECT_TRUE(negotiate(in).matches.empty());
}

TEST(Negotiator, PriorityPreemptionIsOffByDefaultAndFollowsPreemptionRequirements) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice")));
  in.other_users.push_back({"bob@pool", 100.0, 1});
  in.slots.push_back(running_slot(1, "bob@pool"));
  EXPECT_TRUE(negotiate(in).matches.empty());

  auto cfg =
      config_of("PREEMPTION_REQUIREMENTS = RemoteUserPrio > TARGET.SubmitterUserPrio * 1.2\n");
  in.cfg = cfg.get();
  CycleResult r = negotiate(in);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].reason, "priority");
  EXPECT_EQ(r.matches[0].preempted_user, "bob@pool");

  in.other_users[0].priority = 1.1;  // not worse by 20%: the requirement refuses
  EXPECT_TRUE(negotiate(in).matches.empty());
  in.other_users[0].priority = 0.9;  // bob's priority is better: never preempted for priority
  auto always = config_of("PREEMPTION_REQUIREMENTS = True\n");
  in.cfg = always.get();
  EXPECT_TRUE(negotiate(in).matches.empty());
}

TEST(Negotiator, PriorityPreemptionNeedsMachineRankNotWorse) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice")));
  in.other_users.push_back({"bob@pool", 100.0, 1});
  in.slots.push_back(
      running_slot(1, "bob@pool", "Rank = TARGET.Owner == \"bob\"\nCurrentRank = 1.0"));
  auto cfg = config_of("PREEMPTION_REQUIREMENTS = True\n");
  in.cfg = cfg.get();
  EXPECT_TRUE(negotiate(in).matches.empty());
}

TEST(Negotiator, IdleSlotBeatsPreemptionWhenRanksTie) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice")));
  in.other_users.push_back({"bob@pool", 100.0, 1});
  in.slots.push_back(running_slot(1, "bob@pool"));
  in.slots.push_back(slot(2));
  auto cfg = config_of(
      "PREEMPTION_REQUIREMENTS = True\nNEGOTIATOR_PRE_JOB_RANK =\nNEGOTIATOR_POST_JOB_RANK =\n");
  in.cfg = cfg.get();
  CycleResult r = negotiate(in);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].slot, "slot2@node1");
  EXPECT_EQ(r.matches[0].reason, "idle");
}

TEST(Negotiator, CandidatesSortByPreJobRankThenJobRankThenPostJobRank) {
  // The reference's example shape: PRE_JOB_RANK decides, job Rank breaks its ties, then
  // POST_JOB_RANK.
  CycleInput in;
  in.submitters.push_back(
      submitter("alice@pool", 1.0, job(1, 0, "alice", "Rank = TARGET.JR"),
                job(1, 1, "alice", "Rank = TARGET.JR"), job(1, 2, "alice", "Rank = TARGET.JR"),
                job(1, 3, "alice", "Rank = TARGET.JR"), job(1, 4, "alice", "Rank = TARGET.JR")));
  in.slots.push_back(slot(1, "n", "Pre = 1\nJR = 9\nPost = 9"));
  in.slots.push_back(slot(2, "n", "Pre = 2\nJR = 1\nPost = 1"));
  in.slots.push_back(slot(3, "n", "Pre = 2\nJR = 5\nPost = 0"));
  in.slots.push_back(slot(4, "n", "Pre = 2\nJR = 1\nPost = 7"));
  in.slots.push_back(slot(5, "n", "Pre = 3\nJR = 0\nPost = 0"));
  auto cfg = config_of("NEGOTIATOR_PRE_JOB_RANK = MY.Pre\nNEGOTIATOR_POST_JOB_RANK = MY.Post\n");
  in.cfg = cfg.get();
  CycleResult r = negotiate(in);
  EXPECT_EQ(pairs(r), (std::vector<std::string>{"1.0->slot5@n", "1.1->slot3@n", "1.2->slot4@n",
                                                "1.3->slot2@n", "1.4->slot1@n"}));
}

TEST(Negotiator, DefaultRankChainPrefersSmallerSlots) {
  // HTCondor 25's NEGOTIATOR_PRE_JOB_RANK: - (100000 * Cpus) - Memory.
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice")));
  in.slots.push_back(slot(1, "n", "Cpus = 8\nMemory = 16384"));
  in.slots.push_back(slot(2, "n", "Cpus = 1\nMemory = 4096"));
  in.slots.push_back(slot(3, "n", "Cpus = 1\nMemory = 2048"));
  CycleResult r = negotiate(in);
  EXPECT_EQ(pairs(r), std::vector<std::string>{"1.0->slot3@n"});
}

classad::AdPtr pslot(const std::string& machine, int cpus, int memory,
                     const std::string& extra = "") {
  return ad("Name = \"slot1@" + machine + "\"\nMachine = \"" + machine +
            "\"\nSlotID = 1\nState = \"Unclaimed\"\nActivity = \"Idle\"\nPartitionableSlot = "
            "true\nSlotType = \"Partitionable\"\nCpus = " +
            std::to_string(cpus) + "\nMemory = " + std::to_string(memory) +
            "\nDisk = 1000000\nGPUs = 2\nMachineResources = \"Cpus Memory Disk Swap GPUs\"\n"
            "Start = true\nWithinResourceLimits = MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus "
            "&& MY.Memory > 0 && TARGET.RequestMemory <= MY.Memory\n"
            "Requirements = Start && WithinResourceLimits\nRank = 0.0\n" +
            extra);
}

TEST(Negotiator, SeveralJobsFitOnePartitionableSlot) {
  CycleInput in;
  std::vector<IdleJob> jobs;
  for (int p = 0; p < 6; ++p) jobs.push_back(job(1, p, "alice", "RequestMemory = 1024"));
  in.submitters.push_back(submitter("alice@pool", 1.0, std::move(jobs)));
  in.slots.push_back(pslot("big", 4, 8192));
  CycleResult r = negotiate(in);
  ASSERT_EQ(r.matches.size(), 4u);  // Cpus run out first
  for (const Match& m : r.matches) {
    EXPECT_EQ(m.slot, "slot1@big");
    EXPECT_TRUE(m.partitionable);
  }
  // The caller's ad still says what the slot had.
  int64_t cpus = 0;
  ASSERT_TRUE(in.slots[0]->evaluate_int("Cpus", cpus));
  EXPECT_EQ(cpus, 4);
}

TEST(Negotiator, PartitionableSlotTakesRoundedRequests) {
  // RequestMemory 1000 is carved as 1024 (quantize(RequestMemory, {128})): three fit in 4000 MB,
  // although four raw requests (4000) would.
  CycleInput in;
  std::vector<IdleJob> jobs;
  for (int p = 0; p < 4; ++p) jobs.push_back(job(1, p, "alice", "RequestMemory = 1000"));
  in.submitters.push_back(submitter("alice@pool", 1.0, std::move(jobs)));
  in.slots.push_back(pslot("big", 16, 4000));
  EXPECT_EQ(negotiate(in).matches.size(), 3u);
}

TEST(Negotiator, PartitionableSlotCountsCustomResources) {
  CycleInput in;
  std::vector<IdleJob> jobs;
  for (int p = 0; p < 3; ++p) jobs.push_back(job(1, p, "alice", "RequestGPUs = 1"));
  in.submitters.push_back(submitter("alice@pool", 1.0, std::move(jobs)));
  in.slots.push_back(pslot("gpu", 16, 65536));
  EXPECT_EQ(negotiate(in).matches.size(), 2u);  // GPUs = 2
}

TEST(Negotiator, NeverMoreMatchesThanSlots) {
  CycleInput in;
  for (int s = 0; s < 3; ++s) {
    std::vector<IdleJob> jobs;
    for (int p = 0; p < 10; ++p) jobs.push_back(job(s + 1, p, "u" + std::to_string(s)));
    in.submitters.push_back(submitter("u" + std::to_string(s) + "@pool", 1.0 + s, std::move(jobs)));
  }
  for (int i = 1; i <= 5; ++i) in.slots.push_back(slot(i));
  in.slots.push_back(pslot("big", 2, 4096));
  CycleResult r = negotiate(in);
  ASSERT_EQ(r.matches.size(), 7u);  // 5 static slots, 2 cpus of the partitionable one
  std::set<std::string> statics;
  int carved = 0;
  for (const Match& m : r.matches) {
    if (m.partitionable) {
      ++carved;
    } else {
      EXPECT_TRUE(statics.insert(m.slot).second) << m.slot << " matched twice";
    }
  }
  EXPECT_EQ(carved, 2);
}

TEST(Negotiator, PieSpinSharesByInverseEupThenLeftoversAreOfferedAgain) {
  CycleInput in;
  std::vector<IdleJob> a, b;
  for (int p = 0; p < 10; ++p) a.push_back(job(1, p, "alice"));
  b.push_back(job(2, 0, "bob"));
  in.submitters.push_back(submitter("alice@pool", 1.0, std::move(a)));
  in.submitters.push_back(submitter("bob@pool", 2.0, std::move(b)));
  for (int i = 1; i <= 6; ++i) in.slots.push_back(slot(i));
  CycleResult r = negotiate(in);
  ASSERT_EQ(r.matches.size(), 6u);
  // Spin 1: alice (EUP 1) gets 1/1 / (1/1 + 1/2) = 2/3 of 6 = 4, bob 1/3 = 2 but wants 1;
  // spin 2: alice alone takes the 1 left.
  std::vector<std::string> who;
  for (const Match& m : r.matches) who.push_back(m.submitter.substr(0, 1));
  EXPECT_EQ(who, (std::vector<std::string>{"a", "a", "a", "a", "b", "a"}));
  EXPECT_EQ(r.submitters[0].matched, 5);
  EXPECT_EQ(r.submitters[1].matched, 1);
}

TEST(Negotiator, SubmitterAttributesAreVisibleDuringMatchingOnly) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice")));
  in.submitters.push_back(submitter("group_b.bob@pool", 50.0, job(2, 0, "bob")));
  in.slots.push_back(slot(1, "n", "Start = TARGET.SubmitterUserPrio < 10"));
  in.slots.push_back(slot(2, "n", "Start = TARGET.SubmitterGroup == \"group_b\""));
  CycleResult r = negotiate(in);
  std::vector<std::string> got = pairs(r);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"1.0->slot1@n", "2.0->slot2@n"}));
  EXPECT_EQ(in.submitters[0].jobs[0].ad->lookup("SubmitterUserPrio"), nullptr);
}

TEST(Negotiator, RemoteAttributesAreVisibleOnRunningSlotsDuringMatchingOnly) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice")));
  in.other_users.push_back({"bob@pool", 42.0, 3});
  in.slots.push_back(running_slot(1, "bob@pool"));
  auto cfg = config_of(
      "PREEMPTION_REQUIREMENTS = MY.RemoteUserPrio == 42 && RemoteUserResourcesInUse == 3\n");
  in.cfg = cfg.get();
  CycleResult r = negotiate(in);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(in.slots[0]->parent(), nullptr);
  EXPECT_EQ(in.slots[0]->lookup("RemoteUserPrio"), nullptr);
}

TEST(Negotiator, SameInputSameMatchesWhateverTheInputOrder) {
  auto build = [](bool reversed) {
    CycleInput in;
    std::vector<IdleJob> jobs;
    for (int p = 0; p < 8; ++p)
      jobs.push_back(
          job(1 + p % 3, p, "alice", "RequestMemory = " + std::to_string(128 * (1 + p % 2))));
    if (reversed) std::reverse(jobs.begin(), jobs.end());
    in.submitters.push_back(submitter("alice@pool", 1.0, std::move(jobs)));
    in.submitters.push_back(submitter("bob@pool", 1.0, job(9, 0, "bob"), job(9, 1, "bob")));
    if (reversed) std::reverse(in.submitters.begin(), in.submitters.end());
    for (int i = 1; i <= 6; ++i)
      in.slots.push_back(slot(i, "n", "Memory = " + std::to_string(128 * i)));
    in.slots.push_back(pslot("big", 2, 4096));
    return in;
  };
  CycleInput a = build(false), b = build(true);
  CycleResult ra = negotiate(a), rb = negotiate(a), rc = negotiate(b);
  EXPECT_EQ(pairs(ra), pairs(rb));
  EXPECT_EQ(pairs(ra), pairs(rc));
  EXPECT_EQ(ra.matches.size(), 8u);
}

TEST(Negotiator, JobRequirementsSeeEachRunningSlotsRemoteAttributes) {
  // The slots are alike but for who runs on them: the job wants the one whose user has the
  // worse priority, so its answer for one slot must not stand for the other.
  CycleInput in;
  in.submitters.push_back(submitter(
      "alice@pool", 1.0, job(1, 0, "alice", "Requirements = TARGET.RemoteUserPrio > 50")));
  in.other_users.push_back({"bob@pool", 10.0, 1});
  in.other_users.push_back({"carol@pool", 100.0, 1});
  in.slots.push_back(running_slot(1, "bob@pool"));
  in.slots.push_back(running_slot(2, "carol@pool"));
  auto cfg = config_of("PREEMPTION_REQUIREMENTS = True\n");
  in.cfg = cfg.get();
  CycleResult r = negotiate(in);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].preempted_user, "carol@pool");
}

TEST(Negotiator, ConsiderPreemptionFalseOffersOnlyIdleSlots) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 5.0, job(1, 0, "alice")));
  in.slots.push_back(running_slot(1, "bob@pool", "Rank = TARGET.Owner == \"alice\""));
  auto cfg = config_of("NEGOTIATOR_CONSIDER_PREEMPTION = False\n");
  in.cfg = cfg.get();
  EXPECT_TRUE(negotiate(in).matches.empty());
}

TEST(Negotiator, ASettingThatDoesNotParseIsNamedAndCountsAsUnset) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice")));
  in.slots.push_back(slot(1));
  auto cfg =
      config_of("NEGOTIATOR_PRE_JOB_RANK = (Cpus +\nNEGOTIATE_ALL_JOBS_IN_CLUSTER = maybe\n");
  in.cfg = cfg.get();
  CycleResult r = negotiate(in);
  EXPECT_EQ(r.matches.size(), 1u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("NEGOTIATOR_PRE_JOB_RANK"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("NEGOTIATE_ALL_JOBS_IN_CLUSTER"), std::string::npos)
      << r.warnings[0];
}

TEST(Negotiator, ManyGroupsOfferedInTurnAllMatch) {
  // 40 autoclusters whose jobs alternate (more groups than the lists kept at the least): each
  // group still matches where it should.
  CycleInput in;
  std::vector<IdleJob> jobs;
  for (int p = 0; p < 120; ++p)
    jobs.push_back(job(1, p, "alice", "RequestMemory = " + std::to_string(1 + p % 40)));
  in.submitters.push_back(submitter("alice@pool", 1.0, std::move(jobs)));
  for (int i = 1; i <= 100; ++i) in.slots.push_back(slot(i, "n", "Memory = " + std::to_string(i)));
  CycleResult r = negotiate(in);
  EXPECT_EQ(r.autoclusters, 40);
  ASSERT_EQ(r.matches.size(), 100u);
  std::set<std::string> used;
  for (const Match& m : r.matches) EXPECT_TRUE(used.insert(m.slot).second) << m.slot;
  // The default rank chain prefers the smallest slot that fits: job 1.0 (1 MB) gets slot1.
  EXPECT_EQ(pairs(r)[0], "1.0->slot1@n");
}

TEST(Negotiator, NoSlotsOrNoJobsMakeNoMatches) {
  CycleInput in;
  in.submitters.push_back(submitter("alice@pool", 1.0, job(1, 0, "alice")));
  CycleResult r = negotiate(in);
  EXPECT_TRUE(r.matches.empty());
  ASSERT_EQ(r.submitters.size(), 1u);
  CycleInput empty;
  empty.slots.push_back(slot(1));
  EXPECT_TRUE(negotiate(empty).matches.empty());
}

}  // namespace
}  // namespace kite::negotiator
