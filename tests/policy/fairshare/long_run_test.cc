// A long run of the accountant and the pie spin together: two submitters with factors 1000 and
// 2000 keep a 100-slot pool busy with 10-minute jobs for days, cycle by cycle.
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

}  // namespace
}  // namespace kite::fairshare
