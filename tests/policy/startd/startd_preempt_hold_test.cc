// Tests of the startd core's API for preemption by user priority, WANT_HOLD, request checks on
// static slots, the machine-wide statistics and the scenario runner's expect-action step.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "policy/classad/parser.h"
#include "policy/startd/scenario.h"
#include "policy/startd/startd.h"
#include "startd_rig.h"

namespace kite::startd {
namespace {

// The API tests' startd (2 CPUs, 2048 MiB).
struct Rig : StartdRig {
  explicit Rig(const char* conf) : StartdRig(conf, 2, 2048) {}
};

TEST(PriorityPreemption, AcceptedAtEqualRankAndRetires) {
  Rig r("NUM_SLOTS = 2\nMAXJOBRETIREMENTTIME = 100\nMachineMaxVacateTime = 10\n");
  r.ev(EventKind::kClaim, "slot1", "[Owner=\"a\"; JobLeaseDuration=100000]");
  r.ev(EventKind::kActivate, "slot1", "[Owner=\"a\"; JobUniverse=5]");
  // A plain claim at the same RANK is refused; the negotiator's priority preemption is not.
  r.ev(EventKind::kClaim, "slot1", "[Owner=\"b\"]");
  EXPECT_NE(r.find(ActionKind::kRefuse, "slot1"), nullptr);
  EXPECT_EQ(r.state("slot1"), "Claimed/Busy");
  r.ev(EventKind::kClaim, "slot1", "[Owner=\"b\"; JobLeaseDuration=100000]", true);
  EXPECT_EQ(r.state("slot1"), "Claimed/Retiring");
  // Soft kill X = 10 s before JobStart + 100.
  EXPECT_EQ(r.sd->next_timer(), 1090);
  r.clock.set(1090);
  r.sd->evaluate(&r.out);
  EXPECT_EQ(r.state("slot1"), "Preempting/Vacating");
  ASSERT_NE(r.find(ActionKind::kSoftKill, "slot1"), nullptr);
  r.ev(EventKind::kStarterExited, "slot1");
  EXPECT_EQ(r.state("slot1"), "Claimed/Idle");
  EXPECT_EQ(r.attr("slot2", "JobUserPrioPreemptions"), 1);
  EXPECT_EQ(r.attr("slot2", "JobRankPreemptions"), 0);
  EXPECT_EQ(r.attr("slot2", "JobPreemptions"), 1);
}

TEST(PriorityPreemption, RefusedBelowCurrentRank) {
  Rig r("NUM_SLOTS = 1\nRANK = Owner == \"a\"\n");
  r.ev(EventKind::kClaim, "slot1", "[Owner=\"a\"]");
  r.ev(EventKind::kActivate, "slot1", "[Owner=\"a\"; JobUniverse=5]");
  r.ev(EventKind::kClaim, "slot1", "[Owner=\"b\"]", true);
  const Action* a = r.find(ActionKind::kRefuse, "slot1");
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->detail.find("RANK"), std::string::npos);
  EXPECT_EQ(r.state("slot1"), "Claimed/Busy");
}

TEST(WantHold, HoldReplacesTheSoftKill) {
  Rig r(
      "NUM_SLOTS = 1\nPREEMPT = KeyboardIdle < 60\nWANT_HOLD = True\n"
      "WANT_HOLD_REASON = \"owner is back\"\nWANT_HOLD_SUBCODE = 7\n");
  r.ev(EventKind::kClaim, "slot1", "[Owner=\"a\"]");
  r.ev(EventKind::kActivate, "slot1", "[Owner=\"a\"; JobUniverse=5]");
  std::string err;
  ASSERT_TRUE(r.sd->set_inputs("", {{"KeyboardIdle", "0"}}, &err));
  r.sd->evaluate(&r.out);
  EXPECT_EQ(r.state("slot1"), "Preempting/Vacating");
  const Action* h = r.find(ActionKind::kHoldJob, "slot1");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->detail, "soft HoldReasonCode=21 HoldReasonSubCode=7 HoldReason=\"owner is back\"");
  EXPECT_EQ(r.find(ActionKind::kSoftKill, "slot1"), nullptr);
}

TEST(WantHold, NotForAVacate) {
  Rig r("NUM_SLOTS = 1\nWANT_HOLD = True\n");
  r.ev(EventKind::kClaim, "slot1", "[Owner=\"a\"]");
  r.ev(EventKind::kActivate, "slot1", "[Owner=\"a\"; JobUniverse=5]");
  r.ev(EventKind::kVacate, "slot1");
  EXPECT_EQ(r.find(ActionKind::kHoldJob, "slot1"), nullptr);
  EXPECT_NE(r.find(ActionKind::kSoftKill, "slot1"), nullptr);
}

TEST(StaticSlotRequests, TooLargeIsRefused) {
  Rig r("NUM_SLOTS = 2\n");
  r.ev(EventKind::kClaim, "slot1", "[Owner=\"a\"; RequestMemory=2048]");
  const Action* a = r.find(ActionKind::kRefuse, "slot1");
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->detail.find("RequestMemory"), std::string::npos);
  EXPECT_EQ(r.state("slot1"), "Unclaimed/Idle");
  r.ev(EventKind::kClaim, "slot2", "[Owner=\"a\"; RequestMemory=1024; RequestCpus=1]");
  EXPECT_EQ(r.state("slot2"), "Claimed/Idle");
}

TEST(ActionNames, ParseRoundTrips) {
  for (int k = 0; k <= static_cast<int>(ActionKind::kHoldJob); ++k) {
    ActionKind x;
    ASSERT_TRUE(action_parse(action_name(static_cast<ActionKind>(k)), &x));
    EXPECT_EQ(static_cast<int>(x), k);
  }
  ActionKind x;
  EXPECT_FALSE(action_parse("no-such-action", &x));
  EXPECT_TRUE(action_parse("HOLD-JOB", &x));
}

TEST(ScenarioSteps, ExpectActionLooksSinceThePreviousStep) {
  ScenarioResult r;
  scenario_run(
      "NUM_SLOTS = 1\n---\n"
      "at 10 claim slot1 [Owner=\"a\"]\n"
      "at 10 activate slot1 [Owner=\"a\"; JobUniverse=5]\n"
      "at 20 vacate slot1\n"
      "at 20 expect-action slot1 soft-kill sigterm\n"
      "at 20 expect-action slot1 spawn-starter\n"
      "at 30 expect-no-action slot1 soft-kill\n"
      "at 30 expect-action slot1 soft-kill\n",
      "t.scenario", &r);
  EXPECT_FALSE(r.error) << r.output;
  EXPECT_EQ(r.passed, 2) << r.output;
  EXPECT_EQ(r.failed, 2) << r.output;
  EXPECT_NE(r.output.find("FAIL line 7: t=20 expect-action slot1 spawn-starter: no such action"),
            std::string::npos)
      << r.output;
}

TEST(ScenarioSteps, BadExpectActionIsALineNumberedError) {
  ScenarioResult r;
  scenario_run("NUM_SLOTS = 1\n---\nat 1 expect-action slot1 dance\n", "t.scenario", &r);
  EXPECT_TRUE(r.error);
  EXPECT_NE(r.output.find("line 3: expect-action: unknown action 'dance'"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace kite::startd
