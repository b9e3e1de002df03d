// Tests for condor_userprio's output: the state behind the observed HTCondor 25 files
// (tests/data/userprio, copied from ../shared/reference/htcondor-25/observed/cli) rebuilt by
// hand, rendered byte for byte; -quotas as the reference shows it; Accounting ads round trip.
#include "policy/accountant/userprio_format.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "policy/accountant/accounting_ad.h"
#include "policy/accountant/userprio_options.h"

namespace kite::accountant {
namespace {

// 2026-11-22 00:48:54 UTC, the observed LastUpdate; the tool ran a few seconds later.
constexpr int64_t kUpdate = 1795308534;
constexpr int64_t kToolNow = kUpdate + 4;

// The observed file without its "$ command" line.
std::string observed(const char* name) {
  std::ifstream in(std::string(KITE_SOURCE_DIR "/tests/data/userprio/") + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  return text.substr(text.find('\n') + 1);
}

Record user(const char* name, double rup, double weighted_secs, int64_t begin) {
  Record r;
  r.name = name;
  r.priority = rup;
  r.resources_used = 1;
  r.weighted_in_use = 1;
  r.weighted_accumulated = weighted_secs;
  r.begin_usage = begin;
  r.last_usage = kUpdate;
  r.charged_until = r.in_use_since = kUpdate;
  return r;
}

// Before -setfactor: EUP 500.15 and 500.32 at factor 1000; 50 s and 72 s of weighted usage
// (0.01 and 0.02 hours, 0.03 together); began 00:47:45 and 00:47:53.
Accountant before_setfactor() {
  Accountant acc;
  acc.restore(user("bob@node.example.org", 0.50015, 50, 1795308465));
  acc.restore(user("htcuser@node.example.org", 0.50032, 72, 1795308473));
  acc.update(kUpdate);
  return acc;
}

// After `-setfactor bob@node.example.org 10`: the -long values (Priority is the EUP).
Accountant after_setfactor() {
  Accountant acc;
  Record bob = user("bob@node.example.org", 0.500164, 53, 1795308465);
  bob.factor = 10;
  bob.resources_used = 26;
  bob.accumulated = 775;
  Record htc = user("htcuser@node.example.org", 0.50034, 74, 1795308473);
  htc.resources_used = 35;
  htc.accumulated = 1182;
  Record none = user("<none>", 0.51728, 127, 1795308465);
  none.resources_used = 61;
  none.weighted_in_use = 2;
  none.accumulated = 1957;
  acc.restore(bob);
  acc.restore(htc);
  acc.restore(none);
  acc.update(kUpdate);
  return acc;
}

UserprioView view(UserprioTable t) {
  UserprioView v;
  v.table = t;
  v.now = kToolNow;
  return v;
}

TEST(UserprioFormat, DefaultTable) {
  EXPECT_EQ(render_userprio_table(before_setfactor(), view(UserprioTable::kDefault)),
            observed("condor_userprio.default.txt"));
}

TEST(UserprioFormat, AllTable) {
  EXPECT_EQ(render_userprio_table(before_setfactor(), view(UserprioTable::kAll)),
            observed("condor_userprio.all.txt"));
}

TEST(UserprioFormat, UsageTable) {
  EXPECT_EQ(render_userprio_table(before_setfactor(), view(UserprioTable::kUsage)),
            observed("condor_userprio.usage.txt"));
}

TEST(UserprioFormat, AfterSetFactor) {
  EXPECT_EQ(render_userprio_table(after_setfactor(), view(UserprioTable::kDefault)),
            observed("condor_userprio.after-setfactor.txt"));
}

// condor_userprio -most (recorded right after the -setfactor file) is the default table.
TEST(UserprioFormat, MostIsTheDefaultTable) {
  UserprioRequest args = parse_userprio_args({"-most"}, kToolNow);
  ASSERT_EQ(args.kind, UserprioRequest::Kind::kTable) << args.error;
  EXPECT_EQ(render_userprio_table(after_setfactor(), args.view),
            observed("condor_userprio.most.txt"));
}

TEST(UserprioFormat, InactiveUsersOnlyWithAllUsers) {
  Accountant acc = before_setfactor();
  Record old = user("old@node.example.org", 0.5, 3600, kUpdate - 10 * 86400);
  old.weighted_in_use = 0;
  old.resources_used = 0;
  old.last_usage = kUpdate - 2 * 86400;
  acc.restore(old);
  std::string text = render_userprio_table(acc, view(UserprioTable::kDefault));
  EXPECT_EQ(text.find("old@"), std::string::npos);
  UserprioView all = view(UserprioTable::kDefault);
  all.all_users = true;
  text = render_userprio_table(acc, all);
  // EUP 500.00 sorts first; last used two days before the update.
  EXPECT_NE(text.find("old@node.example.org           500.00   1000.00      0         1.00    "
                      "2+00:00"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Number of users: 3"), std::string::npos);
}

TEST(UserprioFormat, OnlyTheNamedUsers) {
  UserprioView v = view(UserprioTable::kDefault);
  v.users = {"htcuser@node.example.org"};
  std::string text = render_userprio_table(before_setfactor(), v);
  EXPECT_EQ(text.find("bob@"), std::string::npos) << text;
  EXPECT_NE(text.find("htcuser@node.example.org       500.32"), std::string::npos) << text;
  EXPECT_NE(text.find("Number of users: 1"), std::string::npos) << text;
}

// The attributes the CM adds to every Accounting ad it serves.
void add_daemon_attrs(classad::ClassAd& ad, int64_t seq) {
  using classad::Value;
  ad.insert_value("AuthenticatedIdentity", Value::string("condor@family"));
  ad.insert_value("AuthenticationMethod", Value::string("FAMILY"));
  ad.insert_value("DaemonLastReconfigTime", Value::integer(1795308441));
  ad.insert_value("DaemonStartTime", Value::integer(1795308441));
  ad.insert_value("LastHeardFrom", Value::integer(kUpdate));
  ad.insert_value("NegotiatorName", Value::string("htcuser@node.example.org"));
  ad.insert_value("UpdateSequenceNumber", Value::integer(seq));
}

std::vector<classad::AdPtr> observed_ads() {
  Accountant acc = after_setfactor();
  std::vector<classad::AdPtr> ads;
  const int64_t seqs[] = {25, 32};
  const double limits[] = {0, 2}, shares[] = {0, 1};
  for (int i = 0; i < 2; ++i) {
    ads.push_back(record_to_ad(acc, acc.records()[size_t(i)], "<none>"));
    add_daemon_attrs(*ads.back(), seqs[i]);
    ads.back()->insert_value("SubmitterLimit", classad::Value::real(limits[i]));
    ads.back()->insert_value("SubmitterShare", classad::Value::real(shares[i]));
  }
  ads.push_back(group_to_ad(acc, *acc.find("<none>"), nullptr));
  ads.back()->insert_value("AccountingGroup", classad::Value::string("<none>"));
  add_daemon_attrs(*ads.back(), 48);
  return ads;
}

TEST(UserprioFormat, LongAds) {
  std::vector<classad::AdPtr> ads = observed_ads();
  std::vector<const classad::ClassAd*> view = {ads[0].get(), ads[1].get(), ads[2].get()};
  EXPECT_EQ(render_userprio_long(view), observed("condor_userprio.long.txt"));
}

TEST(UserprioFormat, AutoformatWithHeader) {
  std::vector<classad::AdPtr> ads = observed_ads();
  std::vector<const classad::ClassAd*> view = {ads[0].get(), ads[1].get(), ads[2].get()};
  EXPECT_EQ(render_userprio_af(view, {"Name", "Priority", "PriorityFactor"}, true),
            observed("condor_userprio.af.txt"));
  EXPECT_EQ(render_userprio_af(view, {"Name", "Nothing"}, false),
            "bob@node.example.org undefined\nhtcuser@node.example.org undefined\n"
            "<none> undefined\n");
}

TEST(UserprioFormat, QuotasAsTheReferenceShowsThem) {
  fairshare::GroupSettings s;
  s.groups.push_back({"group_physics", true, false, 20, false, false});
  s.groups.push_back({"group_physics.hep", true, false, 15, false, false});
  s.groups.push_back({"group_physics.lep", true, false, 5, false, false});
  auto q = fairshare::compute_group_quotas(
      s, 20, {{"group_physics.hep", 0, 60}, {"group_physics.lep", 0, 60}});
  q.erase(q.begin() + 1);  // the reference lists only the two subgroups
  Accountant acc;
  acc.update(1794496680);  // 2026-11-12 15:18 UTC
  EXPECT_EQ(render_userprio_quotas(acc, q, view(UserprioTable::kDefault)),
            "Last Priority Update: 11/12 15:18\n"
            "Group                    Effective  Config     Use    Subtree  Requested\n"
            "Name                       Quota     Quota   Surplus   Quota   Resources\n"
            "------------------------ --------- --------- ------- --------- ----------\n"
            "group_physics.hep            15.00     15.00 no          15.00         60\n"
            "group_physics.lep             5.00      5.00 no           5.00         60\n"
            "------------------------ --------- --------- ------- --------- ----------\n"
            "Number of users: 2                                 ByQuota\n");
}

TEST(AccountingAd, RoundTripKeepsTheExactState) {
  Accountant acc;
  acc.set_usage("u@d", 3, 2.5, 1000);
  acc.update(2000);
  acc.set_usage("u@d", 1, 1, 2500);  // a change between updates: pending state
  acc.set_factor("u@d", 2000, 2500);
  acc.set_ceiling("u@d", 8, 2500);
  std::string error;
  Record back;
  classad::AdPtr ad = record_to_ad(acc, *acc.find("u@d"), "<none>");
  ASSERT_TRUE(record_from_ad(*ad, &back, &error)) << error;
  Accountant reloaded;
  reloaded.restore(back);
  acc.update(9000);
  reloaded.update(9000);
  const Record* a = acc.find("u@d");
  const Record* b = reloaded.find("u@d");
  EXPECT_EQ(a->priority, b->priority);
  EXPECT_EQ(a->weighted_accumulated, b->weighted_accumulated);
  EXPECT_EQ(a->accumulated, b->accumulated);
  EXPECT_EQ(b->factor, 2000);
  EXPECT_EQ(b->ceiling, 8);
  EXPECT_EQ(b->last_usage, 9000);
  EXPECT_EQ(b->begin_usage, 1000);
  // By hand: 2.5 weight for 1000 s, 1.0 for 6500 s; 3 slots then 1.
  EXPECT_DOUBLE_EQ(b->weighted_accumulated, 2.5 * 1500 + 6500);
  EXPECT_DOUBLE_EQ(b->accumulated, 3 * 1500 + 6500);
}

TEST(AccountingAd, GroupRecordsStayGroups) {
  Accountant acc = after_setfactor();
  Record g = *acc.find("<none>");
  g.is_group = true;
  std::string error;
  Record back;
  ASSERT_TRUE(record_from_ad(*record_to_ad(acc, g, "<none>"), &back, &error)) << error;
  EXPECT_TRUE(back.is_group);
  ASSERT_TRUE(record_from_ad(*record_to_ad(acc, *acc.find("bob@node.example.org"), "<none>"), &back,
                             &error));
  EXPECT_FALSE(back.is_group);
}

TEST(AccountingAd, BadAdsAreNamed) {
  classad::AdPtr ad(classad::ClassAd::make());
  std::string error;
  Record r;
  EXPECT_FALSE(record_from_ad(*ad, &r, &error));
  EXPECT_NE(error.find("without a Name"), std::string::npos);
  ad->insert_value("Name", classad::Value::string("u@d"));
  ad->insert_value("Priority", classad::Value::string("high"));
  EXPECT_FALSE(record_from_ad(*ad, &r, &error));
  EXPECT_NE(error.find("u@d"), std::string::npos) << error;
  EXPECT_NE(error.find("Priority"), std::string::npos) << error;
}

}  // namespace
}  // namespace kite::accountant
