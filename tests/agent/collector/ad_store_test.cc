// Unit tests of the collector's ad store: update/merge, invalidation, expiry, absent and offline
// ads, persistence across a simulated restart, and indexed, projected, limited queries.
#include "agent/collector/ad_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "policy/classad/json.h"
#include "policy/classad/parser.h"
#include "tests/agent/collector/old_ad.h"

namespace kite::collector {
namespace {

using testing_ads::ad;

classad::AdPtr slot(const std::string& name, const std::string& machine, const std::string& state,
                    int cpus = 1) {
  return ad("Name = \"" + name + "\"\nMachine = \"" + machine + "\"\nState = \"" + state +
            "\"\nCpus = " + std::to_string(cpus) + "\n");
}

std::string str(const classad::ClassAd& a, const char* attr) {
  std::string s;
  a.evaluate_string(attr, s);
  return s;
}

StoreConfig config(const char* absent_req = nullptr) {
  StoreConfig c;
  c.classad_lifetime = 900;
  c.absent_expire_after = 3600;
  c.offline_expire_after = 7200;
  if (absent_req) c.absent_requirements = classad::parse_expr(absent_req);
  return c;
}

std::vector<classad::AdPtr> run(const AdStore& s, QuerySpec q) {
  std::vector<classad::AdPtr> out;
  std::string err;
  EXPECT_TRUE(s.query(q, &out, &err)) << err;
  return out;
}

std::set<const std::string*> keys_of(const KeySet& ks) {
  std::set<const std::string*> out;
  ks.for_each([&](const std::string* k) { EXPECT_TRUE(out.insert(k).second) << "twice: " << *k; });
  return out;
}

TEST(KeySet, HoldsEachKeyOnceThroughGrowthAndErasure) {
  std::vector<std::string> names(600);
  for (size_t i = 0; i < names.size(); ++i) names[i] = "k" + std::to_string(i);
  KeySet ks;
  std::set<const std::string*> want;
  EXPECT_TRUE(ks.empty());
  for (size_t i = 0; i < names.size(); ++i) {
    ks.insert(&names[i]);
    ks.insert(&names[i / 2]);  // already there
    want.insert(&names[i]);
    if (i % 97 == 0) EXPECT_EQ(keys_of(ks), want) << i;
  }
  EXPECT_EQ(keys_of(ks), want);
  // Erase in a scattered order (7 is prime to 600), with keys never inserted mixed in.
  std::string stranger = "absent";
  for (size_t n = 0; n < names.size(); ++n) {
    const std::string* k = &names[(n * 7) % names.size()];
    ks.erase(k);
    ks.erase(&stranger);
    want.erase(k);
    if (n % 53 == 0 || want.size() < 4) EXPECT_EQ(keys_of(ks), want) << n;
  }
  EXPECT_TRUE(ks.empty());
  ks.insert(&names[3]);
  EXPECT_EQ(keys_of(ks), std::set<const std::string*>{&names[3]});
}

TEST(AdStore, UpdateReplacesOrMerges) {
  AdStore s(config());
  std::string err;
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed", 4), 100, false, &err));
  ASSERT_TRUE(
      s.update("Machine", ad("Name = \"slot1@a\"\nState = \"Claimed\"\n"), 110, true, &err));
  const StoredAd* got = s.find("Machine", "slot1@a");
  ASSERT_TRUE(got);
  EXPECT_EQ(str(*got->ad, "State"), "Claimed");
  EXPECT_EQ(str(*got->ad, "Machine"), "a");  // kept by the merge
  ASSERT_TRUE(s.update("Machine", ad("Name = \"slot1@a\"\nState = \"Owner\"\n"), 120, false, &err));
  got = s.find("Machine", "slot1@a");
  EXPECT_EQ(str(*got->ad, "State"), "Owner");
  EXPECT_EQ(got->ad->lookup("Machine"), nullptr);  // whole-ad update replaced it
  EXPECT_EQ(s.size(), 1u);
}

TEST(AdStore, SameNameDifferentTypesAreDistinct) {
  AdStore s(config());
  std::string err;
  ASSERT_TRUE(s.update("Machine", slot("x", "a", "Unclaimed"), 0, false, &err));
  ASSERT_TRUE(s.update("Negotiator", ad("Name = \"x\"\n"), 0, false, &err));
  EXPECT_EQ(s.size(), 2u);
  QuerySpec q;
  q.type = "Negotiator";
  EXPECT_EQ(run(s, q).size(), 1u);
}

TEST(AdStore, AdWithoutNameIsRefused) {
  AdStore s(config());
  std::string err;
  EXPECT_FALSE(s.update("Machine", ad("Cpus = 1\n"), 0, false, &err));
  EXPECT_NE(err.find("no Name"), std::string::npos) << err;
}

TEST(AdStore, InvalidateRemoves) {
  AdStore s(config());
  std::string err;
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed"), 0, false, &err));
  EXPECT_TRUE(s.invalidate("machine", "SLOT1@A", 5));
  EXPECT_EQ(s.size(), 0u);
  EXPECT_FALSE(s.invalidate("Machine", "slot1@a", 6));
}

TEST(AdStore, ExpiryFollowsLifetimeAndClassAdLifetime) {
  AdStore s(config());
  std::string err;
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed"), 1000, false, &err));
  classad::AdPtr shortlived = slot("slot2@a", "a", "Unclaimed");
  shortlived->insert_value("ClassAdLifetime", classad::Value::integer(60));
  ASSERT_TRUE(s.update("Machine", std::move(shortlived), 1000, false, &err));
  EXPECT_EQ(s.expire(1059), 0u);
  EXPECT_EQ(s.expire(1060), 1u);
  EXPECT_FALSE(s.find("Machine", "slot2@a"));
  EXPECT_TRUE(s.find("Machine", "slot1@a"));
  // An update renews the lifetime.
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed"), 1800, false, &err));
  EXPECT_EQ(s.expire(1900), 0u);
  EXPECT_EQ(s.expire(2700), 1u);
  EXPECT_EQ(s.size(), 0u);
}

TEST(AdStore, AnUpdateThatShortensTheLifetimeIsExpiredInTime) {
  AdStore s(config());
  std::string err;
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed"), 0, false, &err));
  EXPECT_EQ(s.expire(10), 0u);  // due at 900
  // A merge that asks for a shorter life: due at 50 now, long before the 900 known so far.
  ASSERT_TRUE(
      s.update("Machine", ad("Name = \"slot1@a\"\nClassAdLifetime = 30\n"), 20, true, &err));
  EXPECT_EQ(s.expire(49), 0u);
  EXPECT_EQ(s.expire(50), 1u);
  EXPECT_EQ(s.size(), 0u);
}

TEST(AdStore, ExpiredMachineMatchingAbsentRequirementsIsKeptAbsent) {
  AdStore s(config("Machine == \"a\""));
  std::string err;
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed"), 0, false, &err));
  ASSERT_TRUE(s.update("Machine", slot("slot1@b", "b", "Unclaimed"), 0, false, &err));
  EXPECT_EQ(s.expire(900), 2u);
  const StoredAd* a = s.find("Machine", "slot1@a");
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->absent);
  bool absent = false;
  EXPECT_TRUE(a->ad->evaluate_bool("Absent", absent) && absent);
  EXPECT_FALSE(s.find("Machine", "slot1@b"));
  EXPECT_TRUE(s.persistent_dirty());
  // Hidden from ordinary queries, shown with -absent or when the constraint names Absent.
  EXPECT_EQ(run(s, QuerySpec{}).size(), 0u);
  QuerySpec q;
  q.absent = true;
  EXPECT_EQ(run(s, q).size(), 1u);
  QuerySpec q2;
  q2.constraint = "Absent =?= true";
  EXPECT_EQ(run(s, q2).size(), 1u);
  // Kept for ABSENT_EXPIRE_ADS_AFTER, then dropped.
  EXPECT_EQ(s.expire(900 + 3599), 0u);
  EXPECT_EQ(s.expire(900 + 3600), 1u);
  EXPECT_EQ(s.size(), 0u);
}

TEST(AdStore, ReturningMachineReplacesItsAbsentAd) {
  AdStore s(config("true"));
  std::string err;
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed"), 0, false, &err));
  s.expire(1000);
  ASSERT_TRUE(s.find("Machine", "slot1@a")->absent);
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Claimed"), 1001, false, &err));
  const StoredAd* a = s.find("Machine", "slot1@a");
  EXPECT_FALSE(a->absent);
  EXPECT_EQ(a->ad->lookup("Absent"), nullptr);
  EXPECT_EQ(run(s, QuerySpec{}).size(), 1u);
}

TEST(AdStore, NonMachineAdsNeverBecomeAbsent) {
  AdStore s(config("true"));
  std::string err;
  ASSERT_TRUE(s.update("Negotiator", ad("Name = \"n\"\n"), 0, false, &err));
  EXPECT_EQ(s.expire(900), 1u);
  EXPECT_EQ(s.size(), 0u);
}

TEST(AdStore, ExpireInvalidatedAdsMakesInvalidationAbsent) {
  StoreConfig c = config("true");
  c.expire_invalidated_ads = true;
  AdStore s(std::move(c));
  std::string err;
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed"), 0, false, &err));
  EXPECT_TRUE(s.invalidate("Machine", "slot1@a", 10));
  ASSERT_TRUE(s.find("Machine", "slot1@a"));
  EXPECT_TRUE(s.find("Machine", "slot1@a")->absent);
}

TEST(AdStore, OfflineAdsLiveForOfflineExpireAdsAfter) {
  AdStore s(config());
  std::string err;
  classad::AdPtr a = slot("slot1@a", "a", "Unclaimed");
  a->insert_value("Offline", classad::Value::boolean(true));
  ASSERT_TRUE(s.update("Machine", std::move(a), 0, false, &err));
  EXPECT_TRUE(s.find("Machine", "slot1@a")->offline);
  EXPECT_EQ(s.expire(7199), 0u);  // well past CLASSAD_LIFETIME
  EXPECT_EQ(run(s, QuerySpec{}).size(), 0u);
  QuerySpec q;
  q.offline = true;
  EXPECT_EQ(run(s, q).size(), 1u);
  EXPECT_EQ(s.expire(7200), 1u);
  EXPECT_EQ(s.size(), 0u);
}

TEST(AdStore, AbsentAndOfflineAdsSurviveARestart) {
  char dir[] = "/tmp/kite-store-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  std::string path = std::string(dir) + "/persistent.ads";
  std::string err;
  {
    AdStore s(config("Machine == \"a\""));
    ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed", 8), 0, false, &err));
    classad::AdPtr off = slot("slot1@c", "c", "Unclaimed");
    off->insert_value("Offline", classad::Value::boolean(true));
    ASSERT_TRUE(s.update("Machine", std::move(off), 0, false, &err));
    ASSERT_TRUE(s.update("Machine", slot("slot1@b", "b", "Claimed"), 500, false, &err));
    s.expire(900);  // slot1@a absent until 4500; slot1@b still live (transient, not saved)
    ASSERT_TRUE(s.save(path, &err)) << err;
    EXPECT_FALSE(s.persistent_dirty());
  }
  AdStore r(config("Machine == \"a\""));
  ASSERT_TRUE(r.load(path, 1000, &err)) << err;
  EXPECT_EQ(r.size(), 2u);
  const StoredAd* a = r.find("Machine", "slot1@a");
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->absent);
  EXPECT_EQ(a->expires, 900 + 3600);
  int64_t cpus = 0;
  EXPECT_TRUE(a->ad->evaluate_int("Cpus", cpus));
  EXPECT_EQ(cpus, 8);
  ASSERT_TRUE(r.find("Machine", "slot1@c"));
  EXPECT_TRUE(r.find("Machine", "slot1@c")->offline);
  EXPECT_FALSE(r.find("Machine", "slot1@b"));
  // The index is rebuilt on load.
  QuerySpec q;
  q.constraint = "Machine == \"a\"";
  q.absent = true;
  EXPECT_EQ(run(r, q).size(), 1u);
  // Expiry keeps running on the reloaded times.
  EXPECT_EQ(r.expire(4500), 1u);
  EXPECT_FALSE(r.find("Machine", "slot1@a"));
  // A reload after the absent time is up drops the ad.
  AdStore late(config());
  ASSERT_TRUE(late.load(path, 5000, &err)) << err;
  EXPECT_FALSE(late.find("Machine", "slot1@a"));
  unlink(path.c_str());
  rmdir(dir);
}

TEST(AdStore, LoadReportsFileAndLineOfBadRecords) {
  char path[] = "/tmp/kite-store-bad-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::string text =
      "# kite collector persistent ads v1\n#ad Machine absent=1 offline=0 updated=0 expires=0\n"
      "Name = \"x\"\n\n#ad Machine absent=1\nName = \"y\"\n";
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  AdStore s(config());
  std::string err;
  EXPECT_FALSE(s.load(path, 0, &err));
  EXPECT_NE(err.find(std::string(path) + ":5:"), std::string::npos) << err;
  unlink(path);
}

TEST(AdStoreQuery, ConstraintProjectionAndLimit) {
  AdStore s(config());
  std::string err;
  for (int i = 1; i <= 5; ++i) {
    ASSERT_TRUE(s.update(
        "Machine", slot("slot" + std::to_string(i) + "@a", "a", i % 2 ? "Unclaimed" : "Claimed", i),
        0, false, &err));
  }
  QuerySpec q;
  q.constraint = "Cpus >= 2 && State == \"Unclaimed\"";
  q.projection = {"Name", "Cpus"};
  auto got = run(s, q);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(str(*got[0], "Name"), "slot3@a");
  EXPECT_EQ(str(*got[1], "Name"), "slot5@a");
  EXPECT_EQ(got[0]->size(), 2u);
  EXPECT_EQ(got[0]->lookup("State"), nullptr);
  q.limit = 1;
  EXPECT_EQ(run(s, q).size(), 1u);
  QuerySpec bad;
  bad.constraint = "Cpus >";
  std::vector<classad::AdPtr> out;
  EXPECT_FALSE(s.query(bad, &out, &err));
  EXPECT_NE(err.find("Cpus >"), std::string::npos) << err;
}

TEST(AdStoreQuery, EqualityOnIndexedAttributeExaminesOnlyMatches) {
  AdStore s(config());
  std::string err;
  for (int m = 0; m < 50; ++m) {
    for (int i = 1; i <= 4; ++i) {
      std::string host = "node" + std::to_string(m);
      ASSERT_TRUE(s.update(
          "Machine",
          slot("slot" + std::to_string(i) + "@" + host, host, i == 1 ? "Claimed" : "Unclaimed"), 0,
          false, &err));
    }
  }
  size_t before = s.ads_examined();
  QuerySpec q;
  q.constraint = "Machine == \"node7\"";
  auto q1 = s.start_query(q);
  std::vector<classad::AdPtr> out;
  while (q1->next(s, 100, &out)) {
  }
  EXPECT_TRUE(q1->used_index());
  EXPECT_EQ(out.size(), 4u);
  EXPECT_EQ(s.ads_examined() - before, 4u);

  before = s.ads_examined();
  q.constraint = "(Name == \"slot2@node9\") && Cpus > 0";
  EXPECT_EQ(run(s, q).size(), 1u);
  EXPECT_EQ(s.ads_examined() - before, 1u);

  before = s.ads_examined();
  q.constraint = "\"Claimed\" == State";
  EXPECT_EQ(run(s, q).size(), 50u);
  EXPECT_EQ(s.ads_examined() - before, 50u);

  // A shape neither the index nor the columns can answer scans everything.
  before = s.ads_examined();
  q.constraint = "Machine == \"node7\" || Cpus + 0 > 5";
  auto q2 = s.start_query(q);
  EXPECT_FALSE(q2->used_index());
  EXPECT_FALSE(q2->used_columns());
  out.clear();
  while (q2->next(s, 1000, &out)) {
  }
  EXPECT_EQ(out.size(), 4u);
  EXPECT_EQ(s.ads_examined() - before, 200u);
}

TEST(AdStoreQuery, OrOfIndexedEqualitiesUsesTheIndexes) {
  AdStore s(config());
  std::string err;
  for (int m = 0; m < 20; ++m) {
    for (int i = 1; i <= 3; ++i) {
      std::string host = "node" + std::to_string(m);
      ASSERT_TRUE(s.update("Machine", slot("slot" + std::to_string(i) + "@" + host, host, "Owner"),
                           0, false, &err));
    }
  }
  size_t before = s.ads_examined();
  QuerySpec q;
  // kite status NAME asks this; slot1@node4 is found by both sides and examined once.
  q.constraint = "(Name == \"slot1@node4\" || Machine == \"node4\") || Machine == \"NODE5\"";
  auto q1 = s.start_query(q);
  std::vector<classad::AdPtr> out;
  while (q1->next(s, 100, &out)) {
  }
  EXPECT_TRUE(q1->used_index());
  EXPECT_EQ(out.size(), 6u);
  EXPECT_EQ(s.ads_examined() - before, 6u);
}

TEST(AdStoreQuery, IndexesFollowMergedChanges) {
  AdStore s(config());
  std::string err;
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed"), 0, false, &err));
  ASSERT_TRUE(s.update("Machine", slot("slot2@a", "a", "Unclaimed"), 0, false, &err));
  // A merge carrying only the changed attributes moves the ad between State values.
  ASSERT_TRUE(s.update("Machine", ad("Name = \"slot1@a\"\nState = \"Claimed\"\n"), 1, true, &err));
  QuerySpec q;
  q.constraint = "State == \"Claimed\"";
  auto claimed = run(s, q);
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(str(*claimed[0], "Name"), "slot1@a");
  EXPECT_EQ(str(*claimed[0], "Machine"), "a");  // kept from the full ad
  q.constraint = "State == \"Unclaimed\"";
  EXPECT_EQ(run(s, q).size(), 1u);
  // An invalidated ad leaves every index.
  ASSERT_TRUE(s.invalidate("Machine", "slot2@a", 2));
  EXPECT_EQ(run(s, q).size(), 0u);
  q.constraint = "Machine == \"a\"";
  EXPECT_EQ(run(s, q).size(), 1u);
}

// Parsed attributes of a JSON merge, as the collector reads them off the wire.
std::vector<classad::JsonAttr> attrs(const std::string& json) {
  std::vector<classad::JsonAttr> out;
  classad::ParseError err;
  EXPECT_TRUE(classad::classad_json_attrs(json, out, &err)) << err.to_string();
  return out;
}

TEST(AdStoreQuery, ANameThatIsNotItsKeyIsStillFound) {
  AdStore s(config());
  std::string err;
  // Most ads are found by their key; this one's Name follows another attribute.
  ASSERT_TRUE(s.update("Machine",
                       ad("Name = strcat(Prefix, \"@x\")\nPrefix = \"slot1\"\nState = \"Owner\"\n"),
                       0, false, &err));
  ASSERT_TRUE(s.update("Machine", slot("SLOT2@X", "x", "Owner"), 0, false, &err));
  QuerySpec q;
  q.constraint = "Name == \"slot2@x\"";
  auto found = run(s, q);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(str(*found[0], "Name"), "SLOT2@X");
  q.constraint = "Name == \"slot1@x\"";
  EXPECT_EQ(run(s, q).size(), 1u);
  // Its Name changes while its key stays: the index finds it under the new Name only.
  auto m = attrs(R"({"Prefix":"slot9"})");
  s.merge("Machine", "slot1@x", &m, 1);
  ASSERT_TRUE(s.find("Machine", "slot1@x"));
  size_t before = s.ads_examined();
  q.constraint = "Name == \"slot9@x\"";
  auto q1 = s.start_query(q);
  std::vector<classad::AdPtr> out;
  while (q1->next(s, 100, &out)) {
  }
  EXPECT_TRUE(q1->used_index());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(str(*out[0], "Prefix"), "slot9");
  EXPECT_EQ(s.ads_examined() - before, 1u);
  q.constraint = "Name == \"slot1@x\"";
  EXPECT_EQ(run(s, q).size(), 0u);
}

TEST(AdStoreQuery, MergedAttributesMoveInAndTheIndexesFollow) {
  AdStore s(config("true"));
  std::string err;
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed", 4), 0, false, &err));
  auto m = attrs(R"({"Name":"slot1@a","State":"Claimed","LoadAvg":0.5})");
  s.merge("Machine", "slot1@a", &m, 10);
  EXPECT_TRUE(m.empty());  // the references moved into the stored ad
  const StoredAd* got = s.find("Machine", "slot1@a");
  ASSERT_TRUE(got);
  EXPECT_EQ(str(*got->ad, "State"), "Claimed");
  EXPECT_EQ(str(*got->ad, "Machine"), "a");
  double load = 0;
  EXPECT_TRUE(got->ad->evaluate_real("LoadAvg", load));
  EXPECT_EQ(load, 0.5);
  EXPECT_EQ(got->updated, 10);
  EXPECT_EQ(got->expires, 910);
  QuerySpec q;
  q.constraint = "State == \"Claimed\"";
  EXPECT_EQ(run(s, q).size(), 1u);
  q.constraint = "State == \"Unclaimed\"";
  EXPECT_EQ(run(s, q).size(), 0u);

  // A merge for an ad not stored makes it.
  m = attrs(R"({"Name":"slot2@a","Machine":"a","State":"Owner"})");
  s.merge("Machine", "slot2@a", &m, 20);
  q.constraint = "State == \"Owner\"";
  ASSERT_EQ(run(s, q).size(), 1u);

  // An indexed attribute that is an expression is re-indexed by a merge that changes what it
  // refers to, though the merge does not name it.
  ASSERT_TRUE(s.update("Machine",
                       ad("Name = \"slot3@a\"\nMachine = \"a\"\nBusy = false\n"
                          "State = ifThenElse(Busy, \"Claimed\", \"Unclaimed\")\n"),
                       30, false, &err));
  q.constraint = "State == \"Unclaimed\"";
  EXPECT_EQ(run(s, q).size(), 1u);
  m = attrs(R"({"Name":"slot3@a","Busy":true})");
  s.merge("Machine", "slot3@a", &m, 31);
  EXPECT_EQ(run(s, q).size(), 0u);
  q.constraint = "State == \"Claimed\"";
  EXPECT_EQ(run(s, q).size(), 2u);

  // An absent ad is replaced by the merge, not merged into; Absent goes.
  ASSERT_EQ(s.expire(2000), 3u);
  ASSERT_TRUE(s.find("Machine", "slot1@a")->absent);
  m = attrs(R"({"Name":"slot1@a","Machine":"a","Absent":true})");
  s.merge("Machine", "slot1@a", &m, 2001);
  got = s.find("Machine", "slot1@a");
  ASSERT_TRUE(got);
  EXPECT_FALSE(got->absent);
  EXPECT_FALSE(got->ad->lookup("Absent"));
  EXPECT_FALSE(got->ad->lookup("State"));  // the absent ad's attributes are gone
}

TEST(AdStoreQuery, OwnIntegersAreKeptPackedAndQueriedAsValues) {
  AdStore s(config());
  std::string err;
  ASSERT_TRUE(s.update("Machine", slot("slot1@a", "a", "Unclaimed", 4), 0, false, &err));
  ASSERT_TRUE(s.update("Machine", slot("slot2@a", "a", "Unclaimed", 8), 0, false, &err));
  const StoredAd* got = s.find("Machine", "slot2@a");
  ASSERT_TRUE(got);
  const size_t cpus = 3;                              // Name, Machine, State, Cpus
  ASSERT_EQ(got->ad->name_at(cpus)->view(), "Cpus");  // (entries() would unpack it)
  EXPECT_TRUE(got->ad->packed_at(cpus));              // 8: not the first ad's 4, and only this ad's
  // Projections and JSON read the value and leave it packed.
  classad::AdPtr projected = project(*got->ad, {"cpus", "Name"});
  EXPECT_EQ(classad::classad_to_json(*projected, false), R"({"cpus": 8,"Name": "slot2@a"})");
  EXPECT_EQ(classad::classad_to_json(*got->ad, false),
            R"({"Cpus": 8,"Machine": "a","Name": "slot2@a","State": "Unclaimed"})");
  EXPECT_TRUE(got->ad->packed_at(cpus));
  QuerySpec q;
  q.constraint = "Cpus > 6";
  std::vector<classad::AdPtr> found = run(s, q);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(str(*found[0], "Name"), "slot2@a");
  // A merge replaces the value; the store packs it again.
  auto m = attrs(R"({"Name":"slot2@a","Cpus":2})");
  s.merge("Machine", "slot2@a", &m, 5);
  EXPECT_TRUE(got->ad->packed_at(cpus));
  int64_t v = 0;
  EXPECT_TRUE(got->ad->evaluate_int("Cpus", v));
  EXPECT_EQ(v, 2);
  EXPECT_EQ(run(s, q).size(), 0u);
  q.constraint = "Cpus == 2";
  EXPECT_EQ(run(s, q).size(), 1u);
}

TEST(AdStoreQuery, JsonAttributesAreReadInOrderOrRefusedWhole) {
  auto m = attrs(R"({"Name":"x","A":1,"a":"two","E":"\/Expr(A + 1)\/","N":{"B":2}})");
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[1].name.id, m[2].name.id);  // one name in any case: the later one wins
  EXPECT_EQ(m[2].name.name->view(), "a");
  EXPECT_EQ(m[3].expr->kind, classad::ExprKind::kOp);
  for (classad::JsonAttr& a : m) classad::expr_unref(a.expr);
  std::vector<classad::JsonAttr> bad;
  classad::ParseError err;
  EXPECT_FALSE(classad::classad_json_attrs(R"({"Name":"x","A":})", bad, &err));
  EXPECT_TRUE(bad.empty());
  EXPECT_NE(err.to_string().find("expected a value"), std::string::npos) << err.to_string();
  EXPECT_FALSE(classad::classad_json_attrs(R"({"Name":"x"} trailing)", bad, &err));
  EXPECT_NE(err.to_string().find("unexpected text after the ad"), std::string::npos)
      << err.to_string();
}

TEST(AdStoreQuery, ProjectionOfAnExpressionSendsTheWholeAd) {
  AdStore s(config());
  std::string err;
  ASSERT_TRUE(s.update("Machine",
                       ad("Name = \"slot1@a\"\nTotalMemory = 4096\nMemory = TotalMemory / 2\n"
                          "Cpus = 2\n"),
                       0, false, &err));
  QuerySpec q;
  q.projection = {"Cpus"};
  auto only = run(s, q);
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0]->size(), 1u);
  // Memory refers to TotalMemory, so the projection keeps everything it may need.
  q.projection = {"Memory"};
  auto whole = run(s, q);
  ASSERT_EQ(whole.size(), 1u);
  int64_t mem = 0;
  EXPECT_TRUE(whole[0]->evaluate_int("Memory", mem));
  EXPECT_EQ(mem, 2048);
}

TEST(AdStoreQuery, ChunksInterleaveWithUpdates) {
  AdStore s(config());
  std::string err;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(
        s.update("Machine", slot("s" + std::to_string(i), "a", "Unclaimed"), 0, false, &err));
  }
  auto q = s.start_query(QuerySpec{});
  std::vector<classad::AdPtr> out;
  EXPECT_TRUE(q->next(s, 3, &out));
  EXPECT_EQ(out.size(), 3u);
  // Between chunks: one ad is removed, one changes.
  EXPECT_TRUE(s.invalidate("Machine", "s5", 1));
  ASSERT_TRUE(s.update("Machine", slot("s9", "a", "Claimed"), 1, false, &err));
  while (q->next(s, 3, &out)) {
  }
  ASSERT_EQ(out.size(), 9u);
  EXPECT_EQ(str(*out.back(), "State"), "Claimed");
}

TEST(AdStoreQuery, ScanOfOneTypeResumesAfterItsLastKey) {
  AdStore s(config());
  std::string err;
  for (const char* type : {"Machine", "Negotiator", "Accounting"}) {
    for (int i = 0; i < 4; ++i)
      ASSERT_TRUE(s.update(type, slot("n" + std::to_string(i), "a", "Owner"), 0, false, &err));
  }
  QuerySpec spec;
  spec.type = "machine";  // any case
  auto q = s.start_query(spec);
  std::vector<classad::AdPtr> out;
  EXPECT_TRUE(q->next(s, 2, &out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(str(*out[1], "Name"), "n1");
  // Between chunks: the next ad goes, one behind the cursor and one ahead of it arrive.
  EXPECT_TRUE(s.invalidate("Machine", "n2", 1));
  ASSERT_TRUE(s.update("Machine", slot("n0a", "a", "Owner"), 1, false, &err));
  ASSERT_TRUE(s.update("Machine", slot("n9", "a", "Owner"), 1, false, &err));
  while (q->next(s, 2, &out)) {
  }
  std::vector<std::string> names;
  for (const auto& a : out) names.push_back(str(*a, "Name"));
  EXPECT_EQ(names, (std::vector<std::string>{"n0", "n1", "n3", "n9"}));
  EXPECT_EQ(q->examined(), 4u);  // no ad of another type was examined
  EXPECT_FALSE(q->next(s, 2, &out));
}

TEST(AdStoreQuery, LimitEndsAScan) {
  AdStore s(config());
  std::string err;
  for (int i = 0; i < 6; ++i)
    ASSERT_TRUE(s.update("Machine", slot("s" + std::to_string(i), "a", "Owner"), 0, false, &err));
  QuerySpec spec;
  spec.limit = 4;
  auto q = s.start_query(spec);
  std::vector<classad::AdPtr> out;
  EXPECT_TRUE(q->next(s, 3, &out));
  EXPECT_FALSE(q->next(s, 3, &out));
  EXPECT_EQ(out.size(), 4u);
}

}  // namespace
}  // namespace kite::collector
