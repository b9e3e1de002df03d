// Tests for the accountant's arithmetic: the reference's worked examples of real user priority,
// exact charging whatever the spacing of updates, factors and the userprio edit operations.
#include "policy/accountant/accountant.h"

#include <gtest/gtest.h>

#include <cmath>

namespace kite::accountant {
namespace {

constexpr int64_t kDay = 86400;

TEST(Accountant, PriorityHalvesEachHalfLifeWithoutUsage) {
  // Reference: a RUP of 10 with nothing running is 5 one day later, 2.5 two days later.
  Accountant acc;
  acc.set_priority("u@d", 10, 0);
  acc.update(kDay);
  EXPECT_NEAR(acc.real_priority("u@d"), 5.0, 1e-12);
  acc.update(2 * kDay);
  EXPECT_NEAR(acc.real_priority("u@d"), 2.5, 1e-12);
}

TEST(Accountant, ClockSteppingBackChargesNothing) {
  Accountant acc;
  acc.set_usage("u@d", 2, 2, 1000);
  acc.update(4600);
  const double p = acc.real_priority("u@d");
  acc.update(3000);  // the clock went back
  EXPECT_EQ(acc.last_update(), 4600);
  EXPECT_EQ(acc.real_priority("u@d"), p);
  EXPECT_EQ(acc.find("u@d")->weighted_accumulated, 2 * 3600);
  acc.update(8200);  // and on: charged from 4600 once
  EXPECT_EQ(acc.find("u@d")->weighted_accumulated, 2 * 7200);
}

TEST(Accountant, PriorityNeverGoesBelowOneHalf) {
  Accountant acc;
  acc.set_priority("u@d", 0.6, 0);
  acc.update(10 * kDay);
  EXPECT_EQ(acc.real_priority("u@d"), 0.5);
  acc.set_priority("v@d", 0.1, 10 * kDay);
  EXPECT_EQ(acc.real_priority("v@d"), 0.5);
  EXPECT_EQ(acc.real_priority("nobody@d"), 0.5);
}

TEST(Accountant, UserAIsAbout75After48HoursOnAHundredCores) {
  // Reference A/B example: A runs 100 cores from t=0; at 48 h (two half-lives)
  // RUP = 0.5*0.25 + 100*(1-0.25) = 75.125; B never ran: 0.5.
  Accountant acc;
  acc.set_usage("A@d", 100, 100, 0);
  acc.set_usage("B@d", 0, 0, 0);
  acc.update(2 * kDay);
  EXPECT_NEAR(acc.real_priority("A@d"), 75.125, 1e-9);
  EXPECT_EQ(acc.real_priority("B@d"), 0.5);
  // With factor 1.0 as in the example, B deserves 150 times A.
  acc.set_factor("A@d", 1, 2 * kDay);
  acc.set_factor("B@d", 1, 2 * kDay);
  EXPECT_NEAR(acc.effective_priority("A@d") / acc.effective_priority("B@d"), 150.25, 1e-9);
}

TEST(Accountant, SteadyUsageConvergesToTheCoresUsed) {
  Accountant acc;
  acc.set_usage("u@d", 10, 10, 0);
  acc.update(30 * kDay);
  // 10 - 9.5 * 2^-30
  EXPECT_NEAR(acc.real_priority("u@d"), 10 - 9.5 * std::pow(0.5, 30), 1e-9);
}

// Usage: 4 slots all along, plus one job of weight 2 from 600 s to 2400 s, from time kT0.
constexpr int64_t kT0 = 1000000;
void two_hour_usage(Accountant& acc, int64_t step) {
  acc.set_usage("u@d", 4, 4, kT0);
  for (int64_t t = step; t <= 7200; t += step) {
    if (t - step < 600 && 600 <= t) acc.set_usage("u@d", 5, 6, kT0 + 600);
    if (t - step < 2400 && 2400 <= t) acc.set_usage("u@d", 4, 4, kT0 + 2400);
    acc.update(kT0 + t);
  }
}

TEST(Accountant, OneUpdateOrManyGiveTheSamePriority) {
  Accountant one, many;
  two_hour_usage(one, 7200);
  two_hour_usage(many, 60);
  const double h = kDay;
  // By hand from the formula, stretch by stretch: 0.5 decays over 2 h, 4 slots for 2 h, and
  // 2 more from 600 s to 2400 s, decayed from 2400 s to 7200 s.
  const double beta = std::pow(0.5, 7200 / h);
  const double expect = 0.5 * beta + 4 * (1 - beta) +
                        2 * (1 - std::pow(0.5, 1800 / h)) * std::pow(0.5, (7200 - 2400) / h);
  EXPECT_NEAR(one.real_priority("u@d") / expect, 1.0, 1e-9);
  EXPECT_NEAR(many.real_priority("u@d") / expect, 1.0, 1e-9);
  // Accumulated: 4 * 7200 + 2 * 1800 weighted, 4 * 7200 + 1 * 1800 slot-seconds.
  for (const Accountant* a : {&one, &many}) {
    const Record* r = a->find("u@d");
    ASSERT_NE(r, nullptr);
    EXPECT_NEAR(r->weighted_accumulated, 32400, 1e-6);
    EXPECT_NEAR(r->accumulated, 30600, 1e-6);
    EXPECT_EQ(r->begin_usage, kT0);
    EXPECT_EQ(r->last_usage, kT0 + 7200);
  }
}

TEST(Accountant, JobEndingBetweenUpdatesCountsItsSeconds) {
  Accountant acc;
  acc.set_priority("u@d", 2, 0);
  acc.set_usage("u@d", 1, 1, 0);
  acc.set_usage("u@d", 0, 0, 1000);
  acc.update(5000);
  const Record* r = acc.find("u@d");
  ASSERT_NE(r, nullptr);
  EXPECT_NEAR(r->weighted_accumulated, 1000, 1e-9);
  EXPECT_EQ(r->last_usage, 1000);
  const double h = kDay;
  EXPECT_NEAR(r->priority,
              2 * std::pow(0.5, 5000 / h) + (1 - std::pow(0.5, 1000 / h)) * std::pow(0.5, 4000 / h),
              1e-12);
}

TEST(Accountant, FactorsByKindOfSubmitter) {
  Settings s;
  s.local_domain = "pool.org";
  s.group_factors["group_physics"] = 500;
  Accountant acc(s);
  EXPECT_EQ(acc.factor("alice@pool.org"), 1000);
  EXPECT_EQ(acc.factor("alice@POOL.org"), 1000);
  EXPECT_EQ(acc.factor("nice-user.alice@pool.org"), 1e10);
  EXPECT_EQ(acc.factor("bob@elsewhere.org"), 10000);
  EXPECT_EQ(acc.factor("group_physics.einstein@pool.org"), 500);
  acc.set_factor("alice@pool.org", 2000, 0);
  EXPECT_EQ(acc.factor("alice@pool.org"), 2000);
  // EUP = RUP x factor: 0.5 x 2000.
  EXPECT_EQ(acc.effective_priority("alice@pool.org"), 1000);
  // A factor of 3000 gives a worse (larger) EUP than 1000, i.e. a third of the share.
  acc.set_factor("carol@pool.org", 3000, 0);
  EXPECT_EQ(acc.effective_priority("carol@pool.org") / acc.effective_priority("bob@pool.org"), 3.0);
}

TEST(Accountant, SubmitterNames) {
  EXPECT_EQ(submitter_name("alice", "pool.org", false), "alice@pool.org");
  EXPECT_EQ(submitter_name("alice", "pool.org", true), "nice-user.alice@pool.org");
  EXPECT_EQ(submitter_name("group_a.alice", "pool.org", false), "group_a.alice@pool.org");
  EXPECT_TRUE(is_nice_user("nice-user.alice@pool.org"));
  EXPECT_FALSE(is_nice_user("alice@pool.org"));
}

TEST(Accountant, EditOperations) {
  Accountant acc;
  acc.set_usage("u@d", 2, 2, 0);
  acc.update(3600);
  acc.set_floor("u@d", 4, 3600);
  acc.set_ceiling("u@d", 10, 3600);
  const Record* r = acc.find("u@d");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->floor, 4);
  EXPECT_EQ(r->ceiling, 10);
  EXPECT_NEAR(r->weighted_accumulated, 7200, 1e-9);
  ASSERT_TRUE(acc.reset_usage("u@d", 7200));
  r = acc.find("u@d");
  EXPECT_EQ(r->weighted_accumulated, 0);
  EXPECT_EQ(r->begin_usage, 7200);
  EXPECT_GT(r->priority, 0.5);  // -resetusage keeps the priority
  acc.reset_all(7200);
  EXPECT_EQ(acc.find("u@d")->priority, 0.5);
  EXPECT_FALSE(acc.reset_usage("x@d", 7200));
  EXPECT_TRUE(acc.remove("u@d"));
  EXPECT_EQ(acc.find("u@d"), nullptr);
  EXPECT_FALSE(acc.remove("u@d"));
}

std::string test_group_of(std::string_view submitter, const void*) {
  std::string_view user = submitter.substr(0, submitter.find('@'));
  size_t dot = user.rfind('.');
  return dot == std::string_view::npos ? std::string() : std::string(user.substr(0, dot));
}

TEST(Accountant, GroupsAreChargedWithTheirSubtree) {
  Accountant acc;
  acc.set_usage("group_physics.hep.higgs@d", 1, 1, 0);
  acc.set_usage("group_physics.lep.x@d", 2, 2, 0);
  acc.set_usage("alice@d", 3, 4.5, 0);
  acc.set_group_usage(test_group_of, nullptr, 0);
  ASSERT_NE(acc.find("group_physics"), nullptr);
  EXPECT_TRUE(acc.find("group_physics")->is_group);
  EXPECT_FALSE(acc.find("alice@d")->is_group);
  EXPECT_EQ(acc.find("group_physics.hep")->weighted_in_use, 1);
  EXPECT_EQ(acc.find("group_physics.lep")->weighted_in_use, 2);
  EXPECT_EQ(acc.find("group_physics")->weighted_in_use, 3);
  EXPECT_EQ(acc.find("group_physics")->resources_used, 3);
  EXPECT_EQ(acc.find("<none>")->weighted_in_use, 7.5);
  EXPECT_EQ(acc.find("<none>")->resources_used, 6);
  acc.update(3600);
  EXPECT_NEAR(acc.find("group_physics")->weighted_accumulated, 3 * 3600, 1e-9);
  // Members leave: the groups go idle.
  acc.set_usage("group_physics.hep.higgs@d", 0, 0, 3600);
  acc.set_usage("group_physics.lep.x@d", 0, 0, 3600);
  acc.set_group_usage(test_group_of, nullptr, 3600);
  EXPECT_EQ(acc.find("group_physics")->weighted_in_use, 0);
  EXPECT_EQ(acc.find("group_physics.hep")->weighted_in_use, 0);
  EXPECT_EQ(acc.find("<none>")->weighted_in_use, 4.5);
}

TEST(Accountant, SettingsFromConfig) {
  config::Config cfg("NEGOTIATOR");
  ASSERT_TRUE(cfg.load_string("PRIORITY_HALFLIFE = 3600\nDEFAULT_PRIO_FACTOR = 100\n"
                              "UID_DOMAIN = pool.org\nGROUP_PRIO_FACTOR_Group_A = 7\n")
                  .ok);
  ASSERT_TRUE(cfg.finish().ok);
  Settings s;
  ASSERT_TRUE(settings_from_config(cfg, &s).ok);
  EXPECT_EQ(s.half_life, 3600);
  EXPECT_EQ(s.default_factor, 100);
  EXPECT_EQ(s.nice_user_factor, 1e10);
  EXPECT_EQ(s.local_domain, "pool.org");
  EXPECT_EQ(s.group_factors["group_a"], 7);

  config::Config bad("NEGOTIATOR");
  ASSERT_TRUE(bad.load_string("PRIORITY_HALFLIFE = soon\n", "cm.conf").ok);
  ASSERT_TRUE(bad.finish().ok);
  config::Status st = settings_from_config(bad, &s);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("cm.conf"), std::string::npos) << st.message;
}

}  // namespace
}  // namespace kite::accountant
