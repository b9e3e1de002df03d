// Tests for group rounds: whole cycles on identical slots with group quotas, surplus and
// GROUP_AUTOREGROUP, played through the pie spin of each round.
#include "policy/fairshare/group_rounds.h"

#include <gtest/gtest.h>

namespace kite::fairshare {
namespace {

GroupSettings load(const std::string& text) {
  config::Config cfg("NEGOTIATOR");
  EXPECT_TRUE(cfg.load_string(text, "cm.conf").ok);
  EXPECT_TRUE(cfg.finish().ok);
  GroupSettings s;
  config::Status st = group_settings_from_config(cfg, &s);
  EXPECT_TRUE(st.ok) << st.message;
  return s;
}

struct Sub {
  const char* name;
  const char* group;
  double eup;
  double demand;
};

// One cycle on `pool` free slots of weight 1: what each submitter gets.
std::vector<double> play(const GroupSettings& settings, double pool, const std::vector<Sub>& in) {
  std::vector<PieSubmitter> subs;
  std::vector<std::string> group_of;
  std::vector<GroupDemand> demand;
  for (const Sub& s : in) {
    subs.push_back({s.name, s.eup, 0, s.demand, 0, -1, false});
    group_of.push_back(s.group);
    demand.push_back({s.group, 0, s.demand});
  }
  auto quotas = compute_group_quotas(settings, pool, demand);
  std::vector<double> got(in.size(), 0);
  double free_weight = pool;
  for (const GroupRound& round : group_rounds(settings, quotas, subs, group_of)) {
    for (size_t i = 0; i < subs.size(); ++i) subs[i].demand = in[i].demand - got[i];
    PieSpin pie = round_pie(round, subs, pool, free_weight);
    Spin spin;
    while (pie.next(&spin)) {
      for (const Slice& slice : spin.slices) {
        const size_t who = round.members[slice.submitter];
        double took = 0;
        while (free_weight >= 1 && subs[who].demand - took >= 1 && slice_allows(slice, took, 1) &&
               took < pie.pie_left()) {
          took += 1;
          free_weight -= 1;
        }
        got[who] += took;
        pie.record(slice.submitter, took, subs[who].demand - took < 1);
      }
    }
  }
  return got;
}

const char kGroups[] =
    "GROUP_NAMES = group_physics, group_chemistry\n"
    "GROUP_QUOTA_group_physics = 20\n"
    "GROUP_QUOTA_group_chemistry = 10\n";

TEST(GroupRounds, WithoutGroupsOneRoundOverThePool) {
  auto got = play(load(""), 110, {{"a", "", 5, 1000}, {"b", "<none>", 50, 1000}});
  EXPECT_EQ(got[0], 100);
  EXPECT_EQ(got[1], 10);
}

TEST(GroupRounds, QuotasCapEachGroup) {
  auto got = play(load(kGroups), 30,
                  {{"p1", "group_physics", 500, 100},
                   {"p2", "group_physics", 500, 100},
                   {"c", "group_chemistry", 500, 100},
                   {"n", "<none>", 500, 100}});
  EXPECT_EQ(got[0], 10);  // physics' 20 split evenly
  EXPECT_EQ(got[1], 10);
  EXPECT_EQ(got[2], 10);
  EXPECT_EQ(got[3], 0);  // <none> has no quota left
}

TEST(GroupRounds, SurplusGoesToGroupsThatAcceptIt) {
  auto got = play(load(std::string(kGroups) + "GROUP_ACCEPT_SURPLUS = True\n"), 30,
                  {{"p1", "group_physics", 500, 100},
                   {"p2", "group_physics", 500, 100},
                   {"c", "group_chemistry", 500, 4}});
  EXPECT_EQ(got[0], 13);  // 20 + chemistry's unused 6, halved
  EXPECT_EQ(got[1], 13);
  EXPECT_EQ(got[2], 4);
}

TEST(GroupRounds, AutoregroupTakesWhatIsLeftLast) {
  auto got = play(load(std::string(kGroups) + "GROUP_AUTOREGROUP_group_chemistry = True\n"), 30,
                  {{"p1", "group_physics", 500, 5}, {"c", "group_chemistry", 500, 100}});
  EXPECT_EQ(got[0], 5);
  EXPECT_EQ(got[1], 25);  // its quota of 10, then the 15 nobody used
}

TEST(GroupRounds, PieSubmitterFromTheAccountant) {
  accountant::Accountant acc;
  acc.set_usage("u@d", 3, 6, 0);
  acc.set_factor("u@d", 2000, 0);
  acc.set_floor("u@d", 2, 0);
  acc.set_ceiling("u@d", 9, 0);
  PieSubmitter s = pie_submitter(acc, "u@d", 40);
  EXPECT_EQ(s.eup, 1000);  // 0.5 x 2000
  EXPECT_EQ(s.usage, 6);
  EXPECT_EQ(s.floor, 2);
  EXPECT_EQ(s.ceiling, 9);
  EXPECT_EQ(s.demand, 40);
  EXPECT_FALSE(s.nice);
  PieSubmitter n = pie_submitter(acc, "nice-user.u@d", 5);
  EXPECT_TRUE(n.nice);
  EXPECT_EQ(n.eup, 0.5 * 1e10);
  EXPECT_EQ(n.usage, 0);
  EXPECT_EQ(n.ceiling, -1);
}

}  // namespace
}  // namespace kite::fairshare
