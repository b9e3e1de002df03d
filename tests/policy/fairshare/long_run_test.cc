// Long runs of the accountant and the pie spin together, cycle by cycle: two submitters with
// factors 1000 and 2000 keeping a 100-slot pool busy for days, and the reference's A/B example.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>

#include "policy/accountant/accountant.h"
#include "policy/fairshare/pie_spin.h"

namespace kite::fairshare {
namespace {

TEST(FairShareLongRun, SharesSettleAtTheInverseEupRatio) {
  accountant::Settings settings;
  settings.half_life = 3600;  // a short half-life so that two simulated days are many
  accountant::Accountant acc(settings);
  const char* names[2] = {"a@pool", "b@pool"};
  acc.set_factor(names[0], 1000, 0);
  acc.set_factor(names[1], 2000, 0);
  const int64_t kCycle = 60, kRuntime = 600, kEnd = 2 * 86400, kSlots = 100;
  std::deque<int64_t> ends[2];  // end times of each submitter's running jobs
  double held_sum[2] = {0, 0}, share_error_sum = 0;
  int samples = 0;
  for (int64_t t = 0; t <= kEnd; t += kCycle) {
    for (int i = 0; i < 2; ++i)
      while (!ends[i].empty() && ends[i].front() <= t) ends[i].pop_front();
    acc.update(t);
    std::vector<PieSubmitter> subs(2);
    double running = 0;
    for (int i = 0; i < 2; ++i) {
      subs[size_t(i)].name = names[i];
      subs[size_t(i)].eup = acc.effective_priority(names[i]);
      subs[size_t(i)].usage = double(ends[i].size());
      subs[size_t(i)].demand = 1000;
      running += double(ends[i].size());
    }
    std::vector<double> got = allocate_identical_slots(subs, kSlots, kSlots - running);
    for (int i = 0; i < 2; ++i) {
      for (int k = 0; k < int(got[size_t(i)]); ++k) ends[i].push_back(t + kRuntime);
      acc.set_usage(names[i], int64_t(ends[i].size()), double(ends[i].size()), t);
    }
    if (t >= kEnd / 2) {  // the second day: settled
      ++samples;
      for (int i = 0; i < 2; ++i) held_sum[i] += double(ends[i].size());
      // The pool fraction a holds against the one the inverse EUPs of the moment give it.
      double inv_a = 1 / acc.effective_priority(names[0]);
      double inv_b = 1 / acc.effective_priority(names[1]);
      share_error_sum += std::fabs(double(ends[0].size()) / kSlots - inv_a / (inv_a + inv_b));
    }
  }
  const double a = held_sum[0] / samples, b = held_sum[1] / samples;
  EXPECT_NEAR(a + b, 100, 1e-9);  // never an idle slot
  // Whole slots: the rounding of each spin costs the exact share a little (59/41 here).
  EXPECT_LT(share_error_sum / samples, 0.02) << a << " " << b;
  // By hand: at equilibrium RUP = slots held, and held_a / held_b = EUP_b / EUP_a =
  // (b * 2000) / (a * 1000), so (a/b)^2 = 2 and a = 100 * sqrt(2) / (1 + sqrt(2)) = 58.58.
  EXPECT_NEAR(a, 100 * std::sqrt(2.0) / (1 + std::sqrt(2.0)), 100 * 0.02);
  EXPECT_NEAR(b, 100 / (1 + std::sqrt(2.0)), 100 * 0.02);
}

// The reference's A/B example: 100 cores, factor 1 each, short jobs (every slot free at each
// 60 s cycle). A alone for 48 h; then B arrives and A's share drops below one core, rebounds to
// a handful, and approaches half the pool.
TEST(FairShareLongRun, UsersAandBFromTheReference) {
  accountant::Accountant acc;
  acc.set_factor("A@pool", 1, 0);
  acc.set_factor("B@pool", 1, 0);
  const int64_t kCycle = 60, kB = 48 * 3600;
  double a_held = 0;
  auto cycle = [&](int64_t t, bool b_present) {
    acc.update(t);
    std::vector<PieSubmitter> subs(b_present ? 2 : 1);
    subs[0] = {"A@pool", acc.effective_priority("A@pool"), 0, 1000, 0, -1, false};
    if (b_present) subs[1] = {"B@pool", acc.effective_priority("B@pool"), 0, 1000, 0, -1, false};
    std::vector<double> got = allocate_identical_slots(subs, 100, 100);
    a_held = got[0];
    acc.set_usage("A@pool", int64_t(got[0]), got[0], t);
    acc.set_usage("B@pool", b_present ? int64_t(got[1]) : 0, b_present ? got[1] : 0, t);
  };
  for (int64_t t = 0; t < kB; t += kCycle) cycle(t, false);
  EXPECT_EQ(a_held, 100);
  acc.update(kB);
  // 100 cores for two half-lives: 0.5 * 0.25 + 100 * 0.75.
  EXPECT_NEAR(acc.real_priority("A@pool"), 75.125, 1e-6);
  EXPECT_EQ(acc.real_priority("B@pool"), 0.5);
  cycle(kB, true);
  EXPECT_LE(a_held, 1);  // 100 * 0.5 / 75.6 = 0.66 of a core, rounded up to one slot
  for (int64_t t = kB + kCycle; t <= kB + 3600; t += kCycle) cycle(t, true);
  // After an hour: by hand B's RUP is about 0.5 + 99 * (1 - 2^(-1/24)) = 3.3 and A's about
  // 75 * 2^(-1/24) = 72.9, so A's share is about 100 * 3.3 / 76.2 = 4.3.
  EXPECT_GE(a_held, 2);
  EXPECT_LE(a_held, 8);
  for (int64_t t = kB + 3600 + kCycle; t <= kB + 20 * 86400; t += kCycle) cycle(t, true);
  EXPECT_GE(a_held, 49);  // equal factors: half the pool each
  EXPECT_LE(a_held, 51);
}

}  // namespace
}  // namespace kite::fairshare
