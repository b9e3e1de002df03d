// Tests for the startd transition table: every numbered transition of the reference is in it,
// names round-trip, and the step picks rows by trigger in table order.
#include "policy/startd/state_table.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

namespace kite::startd {
namespace {

TEST(StateTable, EveryNumberedTransitionIsPresent) {
  int n = 0;
  const TransitionRow* t = transition_table(&n);
  std::set<int> numbers;
  for (int i = 0; i < n; ++i) numbers.insert(t[i].number);
  for (int k = 1; k <= 37; ++k) EXPECT_TRUE(numbers.count(k)) << "transition " << k;
}

struct Expected {
  int number;
  State from_s;
  Activity from_a;
  State to_s;
  Activity to_a;
};

// HTCONDOR: ep-policy "State and Activity Transitions": source and target of each number.
const Expected kExpected[] = {
    {1, State::kOwner, Activity::kIdle, State::kUnclaimed, Activity::kIdle},
    {2, State::kUnclaimed, Activity::kIdle, State::kOwner, Activity::kIdle},
    {3, State::kUnclaimed, Activity::kIdle, State::kUnclaimed, Activity::kBenchmarking},
    {4, State::kUnclaimed, Activity::kBenchmarking, State::kUnclaimed, Activity::kIdle},
    {5, State::kUnclaimed, Activity::kIdle, State::kClaimed, Activity::kIdle},
    {6, State::kUnclaimed, Activity::kIdle, State::kMatched, Activity::kIdle},
    {7, State::kUnclaimed, Activity::kIdle, State::kBackfill, Activity::kIdle},
    {8, State::kMatched, Activity::kIdle, State::kOwner, Activity::kIdle},
    {9, State::kMatched, Activity::kIdle, State::kClaimed, Activity::kIdle},
    {10, State::kClaimed, Activity::kIdle, State::kPreempting, Activity::kVacating},
    {11, State::kClaimed, Activity::kIdle, State::kClaimed, Activity::kBusy},
    {12, State::kClaimed, Activity::kBusy, State::kClaimed, Activity::kIdle},
    {13, State::kClaimed, Activity::kBusy, State::kClaimed, Activity::kRetiring},
    {14, State::kClaimed, Activity::kBusy, State::kClaimed, Activity::kSuspended},
    {15, State::kClaimed, Activity::kSuspended, State::kClaimed, Activity::kBusy},
    {16, State::kClaimed, Activity::kSuspended, State::kClaimed, Activity::kRetiring},
    {17, State::kClaimed, Activity::kSuspended, State::kPreempting, Activity::kVacating},
    {18, State::kClaimed, Activity::kRetiring, State::kPreempting, Activity::kVacating},
    {19, State::kClaimed, Activity::kRetiring, State::kClaimed, Activity::kBusy},
    {20, State::kClaimed, Activity::kRetiring, State::kClaimed, Activity::kSuspended},
    {21, State::kPreempting, Activity::kVacating, State::kPreempting, Activity::kKilling},
    {22, State::kPreempting, Activity::kVacating, State::kOwner, Activity::kIdle},
    {23, State::kPreempting, Activity::kVacating, State::kClaimed, Activity::kIdle},
    {24, State::kPreempting, Activity::kKilling, State::kClaimed, Activity::kIdle},
    {25, State::kPreempting, Activity::kKilling, State::kOwner, Activity::kIdle},
    {26, State::kBackfill, Activity::kIdle, State::kBackfill, Activity::kBusy},
    {27, State::kBackfill, Activity::kBusy, State::kBackfill, Activity::kIdle},
    {28, State::kBackfill, Activity::kBusy, State::kBackfill, Activity::kKilling},
    {29, State::kBackfill, Activity::kKilling, State::kBackfill, Activity::kIdle},
    {30, State::kBackfill, Activity::kIdle, State::kOwner, Activity::kIdle},
    {31, State::kBackfill, Activity::kIdle, State::kClaimed, Activity::kIdle},
    {32, State::kBackfill, Activity::kIdle, State::kMatched, Activity::kIdle},
    {33, State::kDrained, Activity::kRetiring, State::kDrained, Activity::kIdle},
    {34, State::kDrained, Activity::kIdle, State::kOwner, Activity::kIdle},
    {35, State::kDrained, Activity::kRetiring, State::kOwner, Activity::kIdle},
    {36, State::kOwner, Activity::kIdle, State::kDrained, Activity::kRetiring},
    {37, State::kUnclaimed, Activity::kIdle, State::kDrained, Activity::kRetiring},
};

class NumberedTransition : public ::testing::TestWithParam<Expected> {};

TEST_P(NumberedTransition, SourceAndTargetAsTheReferenceSays) {
  const Expected& e = GetParam();
  int n = 0;
  const TransitionRow* t = transition_table(&n);
  bool found = false;
  for (int i = 0; i < n; ++i) {
    if (t[i].number != e.number) continue;
    if (t[i].from_state == e.from_s && t[i].from_activity == e.from_a && t[i].to_state == e.to_s &&
        t[i].to_activity == e.to_a)
      found = true;
  }
  EXPECT_TRUE(found) << "transition " << e.number;
}

INSTANTIATE_TEST_SUITE_P(All, NumberedTransition, ::testing::ValuesIn(kExpected),
                         [](const ::testing::TestParamInfo<Expected>& i) {
                           return "T" + std::to_string(i.param.number);
                         });

TEST(StateTable, NamesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(State::kDrained); ++i) {
    State s;
    const char* n = state_name(static_cast<State>(i));
    ASSERT_TRUE(state_parse(n, static_cast<int>(std::strlen(n)), &s));
    EXPECT_EQ(static_cast<int>(s), i);
  }
  for (int i = 0; i <= static_cast<int>(Activity::kCleaning); ++i) {
    Activity a;
    const char* n = activity_name(static_cast<Activity>(i));
    ASSERT_TRUE(activity_parse(n, static_cast<int>(std::strlen(n)), &a));
    EXPECT_EQ(static_cast<int>(a), i);
  }
  State s;
  EXPECT_TRUE(state_parse("claimed", 7, &s));
  EXPECT_FALSE(state_parse("Clamed", 6, &s));
}

TEST(StateTable, StepTakesTheFirstRowWhoseTriggerHolds) {
  // Claimed/Busy with SUSPEND and PREEMPT both "true": suspension (14) comes before retiring.
  auto all = [](Trigger, void*) { return true; };
  const TransitionRow* r = transition_step(State::kClaimed, Activity::kBusy, all, nullptr);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->number, 12);  // the starter's exit wins over everything
  auto only = [](Trigger t, void*) { return t == Trigger::kSuspend || t == Trigger::kRetire; };
  r = transition_step(State::kClaimed, Activity::kBusy, only, nullptr);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->number, 14);
  auto none = [](Trigger, void*) { return false; };
  EXPECT_EQ(transition_step(State::kOwner, Activity::kIdle, none, nullptr), nullptr);
}

// HTCONDOR: machine-classad-attributes Activity "Cleaning": the slot leaves it when the starter
// exits (Idle, or Preempting when an eviction is pending); no policy for a job moves it.
TEST(StateTable, OnlyTheStartersExitLeavesCleaning) {
  auto all_but_cleaned = [](Trigger t, void*) {
    return t != Trigger::kCleaned && t != Trigger::kCleanedEvict;
  };
  EXPECT_EQ(transition_step(State::kClaimed, Activity::kCleaning, all_but_cleaned, nullptr),
            nullptr);
  auto all = [](Trigger, void*) { return true; };
  const TransitionRow* r = transition_step(State::kClaimed, Activity::kCleaning, all, nullptr);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->to_state, State::kPreempting);  // a pending eviction comes first
  auto cleaned = [](Trigger t, void*) { return t == Trigger::kCleaned; };
  r = transition_step(State::kClaimed, Activity::kCleaning, cleaned, nullptr);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->to_state, State::kClaimed);
  EXPECT_EQ(r->to_activity, Activity::kIdle);
  // A job exit with the starter still cleaning up goes to Cleaning from Busy and Retiring.
  auto job_exit = [](Trigger t, void*) { return t == Trigger::kJobExited; };
  for (Activity from : {Activity::kBusy, Activity::kRetiring}) {
    r = transition_step(State::kClaimed, from, job_exit, nullptr);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->to_activity, Activity::kCleaning);
  }
}

}  // namespace
}  // namespace kite::startd

namespace kite::startd {
namespace {

// Each kind of entry work belongs to moves into one pair (ep-policy "State and Activity
// Transitions"): a row whose work disagrees with its target would start a job in the wrong place.
TEST(StateTable, EntryWorkMatchesTheTarget) {
  struct Target {
    EntryWork work;
    State to_s;
    Activity to_a;
  };
  const Target kTargets[] = {
      {EntryWork::kRunBenchmarks, State::kUnclaimed, Activity::kBenchmarking},
      {EntryWork::kTakeClaim, State::kClaimed, Activity::kIdle},
      {EntryWork::kAwaitClaim, State::kMatched, Activity::kIdle},
      {EntryWork::kStartJob, State::kClaimed, Activity::kBusy},
      {EntryWork::kEndJob, State::kClaimed, Activity::kIdle},
      {EntryWork::kEndJob, State::kClaimed, Activity::kCleaning},  // the starter cleans up
      {EntryWork::kSuspendJob, State::kClaimed, Activity::kSuspended},
      {EntryWork::kUnretire, State::kClaimed, Activity::kBusy},
      {EntryWork::kKillJob, State::kPreempting, Activity::kKilling},
      {EntryWork::kSwitchClaim, State::kClaimed, Activity::kIdle},
      {EntryWork::kEndClaim, State::kOwner, Activity::kIdle},
      {EntryWork::kStopBackfill, State::kBackfill, Activity::kKilling},
      {EntryWork::kForgetBackfill, State::kOwner, Activity::kIdle},
  };
  int n = 0;
  const TransitionRow* t = transition_table(&n);
  int checked = 0;
  for (int i = 0; i < n; ++i) {
    if (t[i].work == EntryWork::kNone) continue;
    bool work_known = false, target_ok = false;
    for (const Target& g : kTargets) {
      if (g.work != t[i].work) continue;
      work_known = true;
      target_ok = target_ok || (t[i].to_state == g.to_s && t[i].to_activity == g.to_a);
    }
    checked += work_known;
    EXPECT_TRUE(target_ok) << "row " << i << " (" << t[i].number
                           << "): " << entry_work_text(t[i].work) << " into "
                           << state_name(t[i].to_state) << "/" << activity_name(t[i].to_activity);
  }
  // Transitions 3, 5, 6, 9, 11, 12, 14, 19..25, 28, 30..32, the claim in Owner and the two
  // moves into Claimed/Cleaning (from Busy and Retiring) carry work.
  EXPECT_EQ(checked, 21);
}

// A claim accepted in Owner (START true for the job) takes the claim as transition 5 does.
TEST(StateTable, ClaimInOwnerTakesTheClaim) {
  int n = 0;
  const TransitionRow* t = transition_table(&n);
  bool found = false;
  for (int i = 0; i < n; ++i) {
    if (t[i].trigger != Trigger::kClaimInOwner) continue;
    found = true;
    EXPECT_EQ(t[i].work, EntryWork::kTakeClaim);
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace kite::startd
