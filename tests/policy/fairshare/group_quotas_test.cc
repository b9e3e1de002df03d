// Tests for group quotas: the reference's static, scaled, dynamic and surplus examples, the
// settings' errors, group names and the negotiation order.
#include "policy/fairshare/group_quotas.h"

#include <gtest/gtest.h>

namespace kite::fairshare {
namespace {

GroupSettings load(const std::string& text, config::Status* st = nullptr) {
  config::Config cfg("NEGOTIATOR");
  EXPECT_TRUE(cfg.load_string(text, "cm.conf").ok);
  EXPECT_TRUE(cfg.finish().ok);
  GroupSettings s;
  config::Status got = group_settings_from_config(cfg, &s);
  if (st) {
    *st = got;
  } else {
    EXPECT_TRUE(got.ok) << got.message;
  }
  return s;
}

const GroupQuota& find(const std::vector<GroupQuota>& q, const std::string& name) {
  for (const GroupQuota& g : q)
    if (g.name == name) return g;
  ADD_FAILURE() << "no group " << name;
  return q[0];
}

const char kStatic[] =
    "GROUP_NAMES = group_physics, group_chemistry\n"
    "GROUP_QUOTA_group_physics = 20\n"
    "GROUP_QUOTA_group_chemistry = 10\n";

TEST(GroupQuotas, StaticQuotasOfThirty) {
  auto q = compute_group_quotas(load(kStatic), 30, {});
  ASSERT_EQ(q.size(), 3u);
  EXPECT_EQ(q[0].name, "<none>");
  EXPECT_DOUBLE_EQ(find(q, "group_physics").effective_quota, 20);
  EXPECT_DOUBLE_EQ(find(q, "group_chemistry").effective_quota, 10);
  EXPECT_DOUBLE_EQ(q[0].own_quota, 0);
  // Doubling the pool does not scale them up.
  q = compute_group_quotas(load(kStatic), 60, {});
  EXPECT_DOUBLE_EQ(find(q, "group_physics").effective_quota, 20);
  EXPECT_DOUBLE_EQ(find(q, "group_chemistry").effective_quota, 10);
  EXPECT_DOUBLE_EQ(q[0].own_quota, 30);
}

TEST(GroupQuotas, HalfThePoolScalesToTenAndFive) {
  // Reference: with 15 slots left physics is scaled back to 10 and chemistry to 5, unless
  // NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION (True by default in 25) keeps them.
  auto q = compute_group_quotas(
      load(std::string(kStatic) + "NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = False\n"), 15, {});
  EXPECT_DOUBLE_EQ(find(q, "group_physics").effective_quota, 10);
  EXPECT_DOUBLE_EQ(find(q, "group_chemistry").effective_quota, 5);
  EXPECT_EQ(find(q, "group_physics").config_quota, 20);
  q = compute_group_quotas(load(kStatic), 15, {});
  EXPECT_DOUBLE_EQ(find(q, "group_physics").effective_quota, 20);
  EXPECT_DOUBLE_EQ(find(q, "group_chemistry").effective_quota, 10);
}

TEST(GroupQuotas, DynamicQuotasWithSubgroups) {
  // Reference: chemistry 0.33334, physics 0.66667, hep 0.75 and lep 0.25 of physics: of 30
  // slots hep gets about 15. The fractions sum to 1.00001, so they are scaled to 1.
  GroupSettings s = load(
      "GROUP_NAMES = group_physics, group_physics.hep, group_physics.lep, group_chemistry\n"
      "GROUP_QUOTA_DYNAMIC_group_chemistry = 0.33334\n"
      "GROUP_QUOTA_DYNAMIC_group_physics = 0.66667\n"
      "GROUP_QUOTA_DYNAMIC_group_physics.hep = 0.75\n"
      "GROUP_QUOTA_DYNAMIC_group_physics.lep = 0.25\n");
  auto q = compute_group_quotas(s, 30, {});
  const double physics = 30 * 0.66667 / 1.00001;
  EXPECT_NEAR(find(q, "group_physics").effective_quota, physics, 1e-9);
  EXPECT_NEAR(find(q, "group_physics.hep").effective_quota, 0.75 * physics, 1e-9);
  EXPECT_NEAR(find(q, "group_physics.lep").effective_quota, 0.25 * physics, 1e-9);
  EXPECT_NEAR(find(q, "group_chemistry").effective_quota, 30 * 0.33334 / 1.00001, 1e-9);
  EXPECT_NEAR(find(q, "group_physics.hep").effective_quota, 15, 0.001);
  EXPECT_NEAR(find(q, "group_physics").own_quota, 0, 1e-9);
}

const char kSurplus[] =
    "GROUP_NAMES = group_physics, group_physics.hep, group_physics.lep, group_chemistry\n"
    "GROUP_QUOTA_group_physics = 20\n"
    "GROUP_QUOTA_group_physics.hep = 15\n"
    "GROUP_QUOTA_group_physics.lep = 5\n"
    "GROUP_QUOTA_group_chemistry = 10\n"
    "GROUP_ACCEPT_SURPLUS_group_physics = false\n"
    "GROUP_ACCEPT_SURPLUS_group_physics.lep = true\n"
    "GROUP_ACCEPT_SURPLUS_group_physics.hep = true\n";

TEST(GroupQuotas, SurplusStaysInsidePhysics) {
  GroupSettings s = load(kSurplus);
  // lep idle: hep takes lep's 5, but physics never exceeds its 20.
  auto q = compute_group_quotas(
      s, 30, {{"group_physics.hep", 0, 60}, {"group_chemistry", 0, 60}, {"<none>", 0, 50}});
  EXPECT_DOUBLE_EQ(find(q, "group_physics.hep").allocated, 20);
  EXPECT_DOUBLE_EQ(find(q, "group_physics.lep").allocated, 0);
  EXPECT_DOUBLE_EQ(find(q, "group_chemistry").allocated, 10);
  EXPECT_DOUBLE_EQ(q[0].allocated, 0);
  // The other way round: hep wants 2, lep gets 5 + 13.
  q = compute_group_quotas(s, 30, {{"group_physics.hep", 0, 2}, {"GROUP_PHYSICS.LEP", 0, 60}});
  EXPECT_DOUBLE_EQ(find(q, "group_physics.hep").allocated, 2);
  EXPECT_DOUBLE_EQ(find(q, "group_physics.lep").allocated, 18);
  EXPECT_DOUBLE_EQ(find(q, "group_physics.lep").effective_quota, 5);  // before surplus
  // Chemistry does not accept surplus: its 10 is a hard cap, and what it leaves goes up to
  // the root, where only <none>'s own jobs take it.
  q = compute_group_quotas(s, 30,
                           {{"group_physics.hep", 0, 60},
                            {"group_physics.lep", 0, 60},
                            {"group_chemistry", 0, 3},
                            {"<none>", 0, 100}});
  EXPECT_DOUBLE_EQ(find(q, "group_physics.hep").allocated, 15);
  EXPECT_DOUBLE_EQ(find(q, "group_physics.lep").allocated, 5);
  EXPECT_DOUBLE_EQ(find(q, "group_chemistry").allocated, 3);
  EXPECT_DOUBLE_EQ(q[0].allocated, 7);
}

TEST(GroupQuotas, SurplusFlowsIntoAnAcceptingParentByQuota) {
  GroupSettings s = load(std::string(kSurplus) + "GROUP_ACCEPT_SURPLUS_group_physics = true\n");
  // Chemistry leaves 7; physics accepts and shares them 15:5 between hep and lep.
  auto q = compute_group_quotas(
      s, 30,
      {{"group_physics.hep", 0, 60}, {"group_physics.lep", 0, 60}, {"group_chemistry", 0, 3}});
  EXPECT_DOUBLE_EQ(find(q, "group_physics.hep").allocated, 15 + 7 * 0.75);
  EXPECT_DOUBLE_EQ(find(q, "group_physics.lep").allocated, 5 + 7 * 0.25);
  EXPECT_DOUBLE_EQ(find(q, "group_physics").subtree_requested, 120);
}

TEST(GroupQuotas, GlobalAcceptSurplus) {
  GroupSettings s = load(std::string(kStatic) + "GROUP_ACCEPT_SURPLUS = True\n");
  auto q = compute_group_quotas(s, 30, {{"group_physics", 0, 100}, {"group_chemistry", 0, 4}});
  EXPECT_DOUBLE_EQ(find(q, "group_physics").allocated, 26);
  EXPECT_DOUBLE_EQ(find(q, "group_chemistry").allocated, 4);
}

TEST(GroupQuotas, GroupOfAJob) {
  GroupSettings s = load(kSurplus);
  EXPECT_EQ(group_of(s, "group_physics.hep.higgs"), "group_physics.hep");
  EXPECT_EQ(group_of(s, "Group_Physics.HEP"), "group_physics.hep");
  EXPECT_EQ(group_of(s, "group_chemistry.curie"), "group_chemistry");
  EXPECT_EQ(group_of(s, "group_biology.darwin"), "<none>");
  EXPECT_EQ(group_of(s, ""), "<none>");
}

TEST(GroupQuotas, StarvationOrderAndNoneLast) {
  GroupSettings s = load(kStatic);
  auto q = compute_group_quotas(
      s, 30, {{"group_physics", 15, 40}, {"group_chemistry", 2, 40}, {"<none>", 0, 10}});
  // Chemistry uses 2/10, physics 15/20: chemistry first; <none> last.
  auto order = negotiation_order(q);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(q[order[0]].name, "group_chemistry");
  EXPECT_EQ(q[order[1]].name, "group_physics");
  EXPECT_EQ(q[order[2]].name, "<none>");
  // GROUP_SORT_EXPR's values: smallest positive first.
  std::vector<double> keys = {0, 1, 2};  // <none>, physics, chemistry
  order = negotiation_order(q, &keys);
  EXPECT_EQ(q[order[0]].name, "group_physics");
  EXPECT_EQ(q[order[2]].name, "<none>");
}

TEST(GroupQuotas, GroupSortExprKeys) {
  GroupSettings s = load(kStatic);
  auto q = compute_group_quotas(s, 30, {{"group_physics", 15, 40}, {"group_chemistry", 2, 40}});
  std::vector<double> keys;
  std::string error;
  // Physics first, whatever its usage: a strict-priority policy.
  ASSERT_TRUE(
      group_sort_keys("ifThenElse(AccountingGroup == \"group_physics\", 1, "
                      "10 + GroupResourcesInUse / GroupQuota)",
                      q, &keys, &error))
      << error;
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_DOUBLE_EQ(keys[1], 1);
  EXPECT_DOUBLE_EQ(keys[2], 10 + 2.0 / 10);
  auto order = negotiation_order(q, &keys);
  EXPECT_EQ(q[order[0]].name, "group_physics");
  EXPECT_EQ(q[order[1]].name, "group_chemistry");
  EXPECT_EQ(q[order[2]].name, "<none>");
  EXPECT_FALSE(group_sort_keys("GroupQuota +", q, &keys, &error));
  EXPECT_NE(error.find("GROUP_SORT_EXPR"), std::string::npos) << error;
}

TEST(GroupQuotas, SettingsErrorsNameTheSetting) {
  config::Status st;
  load("GROUP_NAMES = a, A\n", &st);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("named twice"), std::string::npos) << st.message;
  load("GROUP_NAMES = a.b\n", &st);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("parent"), std::string::npos) << st.message;
  load("GROUP_NAMES = a\nGROUP_QUOTA_DYNAMIC_a = 1.5\n", &st);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("cm.conf, line 2"), std::string::npos) << st.message;
  load("GROUP_NAMES = a\nGROUP_QUOTA_a = lots\n", &st);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("cm.conf"), std::string::npos) << st.message;
  GroupSettings s = load("GROUP_NAMES = a\nGROUP_AUTOREGROUP = true\n");
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_TRUE(s.groups[0].autoregroup);
  EXPECT_TRUE(s.allow_oversubscription);
  EXPECT_FALSE(s.groups[0].accept_surplus);
}

}  // namespace
}  // namespace kite::fairshare
