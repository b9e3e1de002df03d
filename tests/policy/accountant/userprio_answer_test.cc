// Tests for condor_userprio's answer from the CM's accountant: the hierarchical layout with
// groups (users under their group, "<none>" last), -flat, -grouprollup, and the Accounting ads
// the CM publishes (no storage-only attributes, each user's configured group).
#include "policy/accountant/userprio_answer.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kite::accountant {
namespace {

constexpr int64_t kNow = 1795308534;

Record record(const char* name, double rup, double in_use, bool group = false) {
  Record r;
  r.name = name;
  r.is_group = group;
  r.priority = rup;
  r.resources_used = int64_t(in_use);
  r.weighted_in_use = in_use;
  r.weighted_accumulated = 3600 * in_use;
  r.begin_usage = kNow - 3600;
  r.last_usage = kNow;
  r.charged_until = r.in_use_since = kNow;
  return r;
}

// group_physics and group_physics.hep; higgs in hep (2 slots), alice in physics (1), bob in
// none (1). The groups' own records hold no usage, so -grouprollup's sums show.
struct Fixture {
  Accountant acc;
  fairshare::GroupSettings groups;
  Fixture() {
    for (const char* g : {"group_physics.hep", "group_physics"}) {
      fairshare::GroupConfig c;
      c.name = g;
      groups.groups.push_back(c);
    }
    acc.restore(record("group_physics.hep.higgs@example.org", 2, 2));
    acc.restore(record("group_physics.alice@example.org", 1, 1));
    acc.restore(record("bob@example.org", 1.5, 1));
    acc.restore(record("group_physics", 0.5, 0, true));
    acc.restore(record("group_physics.hep", 0.5, 0, true));
    acc.restore(record("<none>", 0.5, 0, true));
    acc.update(kNow);
  }
  std::vector<std::string> lines(const std::vector<std::string>& args) const {
    UserprioRequest req = parse_userprio_args(args, kNow + 5);
    std::vector<std::string> out;
    std::istringstream in(render_userprio(acc, groups, {}, req));
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }
};

// The In Use column of a default-table row: after the 24-wide name, EUP and factor.
std::string in_use(const std::string& row) {
  return row.size() >= 54 ? row.substr(47, 7) : "";
}

TEST(UserprioAnswer, GroupsListTheirUsersBeneathThemParentsFirstAndNoneLast) {
  Fixture f;
  std::vector<std::string> l = f.lines({});
  ASSERT_EQ(l.size(), 12u);
  EXPECT_EQ(l[1].substr(0, 26), "Group                     ");
  EXPECT_EQ(l[2].substr(0, 26), "  User Name               ");
  EXPECT_EQ(l[4].substr(0, 14), "group_physics ");
  EXPECT_EQ(l[5].substr(0, 34), "  group_physics.alice@example.org ");
  EXPECT_EQ(l[6].substr(0, 18), "group_physics.hep ");
  EXPECT_EQ(l[7].substr(0, 38), "  group_physics.hep.higgs@example.org ");
  EXPECT_EQ(l[8].substr(0, 7), "<none> ");
  EXPECT_EQ(l[9].substr(0, 18), "  bob@example.org ");
  // Users' rows keep their own values: alice EUP 1000, factor 1000, one slot.
  EXPECT_EQ(l[5].substr(34),
            "     1000.00   1000.00      1         1.00      <now>                    ");
  // The groups' rows show the groups' own records.
  EXPECT_EQ(in_use(l[4]), "      0");
  EXPECT_EQ(l[11].substr(0, 18), "Number of users: 3");
}

TEST(UserprioAnswer, GroupRollupSumsTheSubtreesUsers) {
  Fixture f;
  std::vector<std::string> l = f.lines({"-grouprollup"});
  ASSERT_EQ(l.size(), 12u);
  EXPECT_EQ(in_use(l[4]), "      3");  // group_physics: alice 1 + higgs 2
  EXPECT_EQ(in_use(l[6]), "      2");  // group_physics.hep: higgs
  EXPECT_EQ(in_use(l[8]), "      4");  // <none>, the root: everyone
}

TEST(UserprioAnswer, FlatListsUsersAloneByEffectivePriority) {
  Fixture f;
  std::vector<std::string> l = f.lines({"-flat"});
  ASSERT_EQ(l.size(), 9u);
  EXPECT_EQ(l[2].substr(0, 10), "User Name ");
  EXPECT_EQ(l[4].substr(0, 32), "group_physics.alice@example.org ");
  EXPECT_EQ(l[5].substr(0, 16), "bob@example.org ");
  EXPECT_EQ(l[6].substr(0, 36), "group_physics.hep.higgs@example.org ");
}

TEST(UserprioAnswer, AccountingAdsCarryTheUsersGroupAndNoStorageState) {
  Fixture f;
  std::vector<classad::AdPtr> ads = accounting_ads(f.acc, f.groups, {});
  ASSERT_EQ(ads.size(), 6u);
  std::string name, group;
  ads[0]->evaluate_string("Name", name);
  ads[0]->evaluate_string("AccountingGroup", group);
  EXPECT_EQ(name, "group_physics.alice@example.org");
  EXPECT_EQ(group, "group_physics");
  ads[2]->evaluate_string("Name", name);
  ads[2]->evaluate_string("AccountingGroup", group);
  EXPECT_EQ(name, "group_physics.hep.higgs@example.org");
  EXPECT_EQ(group, "group_physics.hep");
  ads[3]->evaluate_string("Name", name);
  EXPECT_EQ(name, "<none>");
  bool is_group = false;
  EXPECT_TRUE(ads[3]->evaluate_bool("IsAccountingGroup", is_group));
  EXPECT_TRUE(is_group);
  for (const classad::AdPtr& ad : ads) {
    EXPECT_EQ(ad->lookup("KitePriority"), nullptr);
    EXPECT_EQ(ad->lookup("KiteChargedUntil"), nullptr);
  }
  // -af through the same ads.
  UserprioRequest req = parse_userprio_args({"-af", "Name", "ResourcesUsed"}, kNow);
  std::string text = render_userprio(f.acc, f.groups, {}, req);
  EXPECT_EQ(text.substr(0, text.find('\n', text.find('\n') + 1) + 1),
            "group_physics.alice@example.org 1\nbob@example.org 1\n");
}

}  // namespace
}  // namespace kite::accountant
