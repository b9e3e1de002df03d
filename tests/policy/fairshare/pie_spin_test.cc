// Tests for the pie spin: shares by inverse EUP (the reference's examples), repeated spins,
// floors, ceilings, nice users and the one-slot rule.
#include "policy/fairshare/pie_spin.h"

#include <gtest/gtest.h>

namespace kite::fairshare {
namespace {

PieSubmitter sub(const char* name, double eup, double demand, double usage = 0) {
  PieSubmitter s;
  s.name = name;
  s.eup = eup;
  s.demand = demand;
  s.usage = usage;
  return s;
}

TEST(PieSpin, PrioritiesFiveAndFiftyGiveTenToOne) {
  // Reference: a priority of 5 gets more than one of 50, inversely: 100 and 10 of 110.
  auto got = allocate_identical_slots({sub("a", 5, 1000), sub("b", 50, 1000)}, 110, 110);
  EXPECT_EQ(got[0], 100);
  EXPECT_EQ(got[1], 10);
}

TEST(PieSpin, FactorTwoThousandGetsHalfOfFactorOneThousand) {
  // RUP 0.5 for both: EUP 500 and 1000 -> 2:1 of 90.
  auto got = allocate_identical_slots({sub("a", 500, 1000), sub("b", 1000, 1000)}, 90, 90);
  EXPECT_EQ(got[0], 60);
  EXPECT_EQ(got[1], 30);
}

TEST(PieSpin, LeftoversGoToWhoeverStillWantsThem) {
  auto got = allocate_identical_slots({sub("a", 500, 10), sub("b", 500, 1000)}, 100, 100);
  EXPECT_EQ(got[0], 10);
  EXPECT_EQ(got[1], 90);
}

TEST(PieSpin, UsageCountsAgainstTheFirstSpin) {
  // Equal EUP, pool of 100: a holds 50 already, so its half is used up; b takes the 50 free.
  auto got = allocate_identical_slots({sub("a", 500, 1000, 50), sub("b", 500, 1000)}, 100, 50);
  EXPECT_EQ(got[0], 0);
  EXPECT_EQ(got[1], 50);
}

TEST(PieSpin, NiceUsersOnlyGetWhatNobodyElseWants) {
  PieSubmitter nice = sub("nice-user.c", 0.5, 100);  // even with the best EUP
  nice.nice = true;
  auto got = allocate_identical_slots({sub("a", 500, 30), nice}, 100, 100);
  EXPECT_EQ(got[0], 30);
  EXPECT_EQ(got[1], 70);
  got = allocate_identical_slots({sub("a", 500, 200), nice}, 100, 100);
  EXPECT_EQ(got[0], 100);
  EXPECT_EQ(got[1], 0);
}

TEST(PieSpin, CeilingCapsTheSlice) {
  PieSubmitter a = sub("a", 500, 1000);
  a.ceiling = 5;
  auto got = allocate_identical_slots({a, sub("b", 500, 1000)}, 100, 100);
  EXPECT_EQ(got[0], 5);
  EXPECT_EQ(got[1], 95);
  // The ceiling counts what it already holds.
  a.usage = 4;
  got = allocate_identical_slots({a, sub("b", 500, 1000)}, 100, 96);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], 95);
}

TEST(PieSpin, BelowFloorRoundGoesFirst) {
  PieSubmitter a = sub("a", 5000, 1000, 5);
  a.floor = 20;
  PieSpin pie({a, sub("b", 500, 1000)}, 100, 95);
  Spin spin;
  ASSERT_TRUE(pie.next(&spin));
  EXPECT_EQ(spin.number, 0);
  ASSERT_EQ(spin.slices.size(), 1u);
  EXPECT_EQ(spin.slices[0].submitter, 0u);
  EXPECT_DOUBLE_EQ(spin.slices[0].limit, 15);  // floor 20 - usage 5
  pie.record(0, 15, false);
  ASSERT_TRUE(pie.next(&spin));
  EXPECT_EQ(spin.number, 1);
  // b first (better EUP). Shares of 100: a 100/11 = 9.09 less its 20 held -> 0; b 1000/11 =
  // 90.9, but only 80 are left.
  ASSERT_EQ(spin.slices.size(), 2u);
  EXPECT_EQ(spin.slices[0].submitter, 1u);
  EXPECT_DOUBLE_EQ(spin.slices[0].limit, 80);
  EXPECT_DOUBLE_EQ(spin.slices[1].limit, 0);
  EXPECT_FALSE(spin.slices[1].at_least_one);
  pie.record(1, 80, false);
  pie.record(0, 0, false);
  EXPECT_FALSE(pie.next(&spin));
  EXPECT_EQ(pie.matched(0), 15);
  EXPECT_EQ(pie.matched(1), 80);
}

TEST(PieSpin, SliceUnderOneSlotMayStillTakeOne) {
  // 10 slots, three equal submitters: 3.33 each -> 3 each, then 1 left: 0.33 each, and the
  // first in order takes it.
  auto got = allocate_identical_slots({sub("a", 500, 100), sub("b", 500, 100), sub("c", 500, 100)},
                                      10, 10);
  EXPECT_EQ(got[0], 4);
  EXPECT_EQ(got[1], 3);
  EXPECT_EQ(got[2], 3);
  Slice s{0, 0.4, true};
  EXPECT_TRUE(slice_allows(s, 0, 1));
  EXPECT_FALSE(slice_allows(s, 1, 1));
  Slice t{0, 2, false};
  EXPECT_TRUE(slice_allows(t, 1, 1));
  EXPECT_FALSE(slice_allows(t, 2, 1));
}

TEST(PieSpin, UserAandBAtFortyEightHours) {
  // Reference A/B example with factor 1: A's RUP 75.125 after 48 h on 100 cores, B 0.5. B
  // deserves 150.25 times A: slices 100/151.25 = 0.661 and 100*150.25/151.25 = 99.339.
  PieSpin pie({sub("A", 75.125, 1000, 0), sub("B", 0.5, 1000)}, 100, 100);
  Spin spin;
  ASSERT_TRUE(pie.next(&spin));
  ASSERT_EQ(spin.slices.size(), 2u);
  EXPECT_EQ(spin.slices[0].submitter, 1u);
  EXPECT_NEAR(spin.slices[0].limit, 100 * 150.25 / 151.25, 1e-9);
  EXPECT_NEAR(spin.slices[1].limit, 100 / 151.25, 1e-9);
  EXPECT_TRUE(spin.slices[1].at_least_one);
  // Played out on identical slots: B 99, A the one slot left ("less than one core", rounded
  // up by the one-slot rule).
  auto got = allocate_identical_slots({sub("A", 75.125, 1000), sub("B", 0.5, 1000)}, 100, 100);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], 99);
}

TEST(PieSpin, StopsWhenNothingCanBeMatched) {
  PieSpin pie({sub("a", 500, 10)}, 10, 10);
  Spin spin;
  ASSERT_TRUE(pie.next(&spin));
  pie.record(0, 0, false);  // the cycle found no slot its jobs fit
  ASSERT_TRUE(pie.next(&spin));
  pie.record(0, 0, false);
  EXPECT_FALSE(pie.next(&spin));
  PieSpin out({sub("a", 500, 10)}, 10, 10);
  ASSERT_TRUE(out.next(&spin));
  out.record(0, 2, true);
  EXPECT_FALSE(out.next(&spin));
  EXPECT_EQ(out.matched(0), 2);
}

}  // namespace
}  // namespace kite::fairshare

namespace kite::fairshare {
namespace {

TEST(PieSpin, RunningOnlySubmitterKeepsItsSliceOfTheFirstSpin) {
  // a holds all 10 slots (all preemptable) and wants nothing more; b arrives with equal EUP.
  // a still counts in the ratios: b's first slice is half the pool, not all of it.
  PieSpin pie({sub("a", 500, 0, 10), sub("b", 500, 100)}, 10, 10);
  pie.set_unclaimed(0);
  Spin spin;
  ASSERT_TRUE(pie.next(&spin));
  ASSERT_EQ(spin.slices.size(), 1u);
  EXPECT_EQ(spin.slices[0].submitter, 1u);
  EXPECT_NEAR(spin.slices[0].limit, 5, 1e-9);
  pie.record(1, 5, false);
  // No unclaimed slot is left: no further spin hands b a's other slots.
  pie.set_unclaimed(0);
  EXPECT_FALSE(pie.next(&spin));
}

TEST(PieSpin, LaterSpinsHandOutOnlyUnclaimedSlots) {
  // 10 slots, 4 of them free; b (no usage) and c (3 running) with equal EUP both want more.
  // First spin: 5 - 0 for b, 5 - 3 = 2 for c. Later spins divide only what is free.
  PieSpin pie({sub("b", 500, 100), sub("c", 500, 100, 3)}, 10, 7);
  pie.set_unclaimed(4);
  Spin spin;
  ASSERT_TRUE(pie.next(&spin));
  ASSERT_EQ(spin.slices.size(), 2u);
  pie.record(spin.slices[0].submitter, 3, false);  // b: 3 of the free slots
  pie.record(spin.slices[1].submitter, 0, false);  // c: nothing yet
  pie.set_unclaimed(1);
  ASSERT_TRUE(pie.next(&spin));
  double total = 0;
  for (const Slice& s : spin.slices) total += s.limit;
  EXPECT_NEAR(total, 1, 1e-9);
}

}  // namespace
}  // namespace kite::fairshare
