// JobMemo (policy/negotiator/job_memo.h): answers kept per state of a job ad, equal autocluster
// keys sharing one id, and cycles through it grouping and matching as cycles without it.
#include "policy/negotiator/job_memo.h"

#include <gtest/gtest.h>

#include "policy/classad/parser.h"
#include "policy/negotiator/cycle_settings.h"
#include "policy/negotiator/match_cache.h"
#include "tests/policy/negotiator/negotiator_rig.h"

namespace kite::negotiator {
namespace {

using testing::job;

TEST(JobMemo, EntryLastsWhileTheAdDoesNotChange) {
  JobMemo memo;
  IdleJob j = job(1, 0, "alice");
  memo.at(*j.ad).has_order = true;
  EXPECT_TRUE(memo.at(*j.ad).has_order);
  j.ad->insert_value("JobPrio", classad::Value::integer(5));  // a new state of the ad
  EXPECT_FALSE(memo.at(*j.ad).has_order);
}

TEST(JobMemo, EqualKeysShareAnIdOthersDoNot) {
  JobMemo memo;
  memo.begin_cycle({1, 2});
  classad::ExprPtr a1 = classad::parse_expr("RequestMemory > 10");
  classad::ExprPtr a2 = classad::parse_expr("RequestMemory > 10");  // equal, another tree
  classad::ExprPtr b = classad::parse_expr("RequestMemory > 11");
  const uint32_t first = memo.key_id({{7, a1.get()}});
  EXPECT_EQ(memo.key_id({{7, a2.get()}}), first);
  EXPECT_NE(memo.key_id({{7, b.get()}}), first);
  EXPECT_NE(memo.key_id({{8, a1.get()}}), first);  // another attribute
}

TEST(JobMemo, AnotherSlotSideForgetsTheKeys) {
  JobMemo memo;
  IdleJob j = job(1, 0, "alice");
  memo.begin_cycle({1, 2});
  classad::ExprPtr e = classad::parse_expr("1");
  memo.at(*j.ad).key = memo.key_id({{3, e.get()}});
  memo.begin_cycle({1, 2});
  EXPECT_NE(memo.at(*j.ad).key, JobMemo::kNoKey);
  memo.begin_cycle({1, 2, 9});
  EXPECT_EQ(memo.at(*j.ad).key, JobMemo::kNoKey);
}

TEST(JobMemo, HeldTreesOutliveTheirAds) {
  JobMemo memo;
  memo.begin_cycle({});
  uint32_t id;
  {
    IdleJob j = job(1, 0, "alice", "Requirements = TARGET.Memory > 100");
    id = memo.key_id({{1, j.ad->lookup("Requirements")}});
  }
  // The ad is gone; an equal key still finds the kept one (its tree is held, not freed).
  classad::ExprPtr again = classad::parse_expr("TARGET.Memory > 100");
  EXPECT_EQ(memo.key_id({{1, again.get()}}), id);
}

// Cycles through the cache (which holds the memo) group and match exactly as cycles without it.
TEST(JobMemo, CyclesWithTheMemoGroupAndMatchAsWithout) {
  std::vector<classad::AdPtr> slots;
  for (int n = 1; n <= 3; ++n) slots.push_back(testing::slot(n, "node" + std::to_string(n)));
  MatchCache cache;
  std::shared_ptr<const CycleSettings> settings = read_cycle_settings(nullptr);
  std::vector<IdleJob> alice, bob;
  for (int p = 0; p < 4; ++p) {
    alice.push_back(job(1, p, "alice", p % 2 ? "RequestMemory = 64" : ""));
    bob.push_back(job(2, p, "bob", "JobPrio = " + std::to_string(p)));
  }
  auto cycle = [&](bool cached, size_t from) {
    CycleInput in;
    in.settings = settings;
    in.match_cache = cached ? &cache : nullptr;
    Submitter a = testing::submitter("alice@x", 0.5, std::vector<IdleJob>{});
    Submitter b = testing::submitter("bob@x", 1.0, std::vector<IdleJob>{});
    for (size_t i = from; i < alice.size(); ++i) {
      alice[i].ad->ref();
      a.jobs.push_back({alice[i].cluster, alice[i].proc, classad::AdPtr(alice[i].ad.get())});
      bob[i].ad->ref();
      b.jobs.push_back({bob[i].cluster, bob[i].proc, classad::AdPtr(bob[i].ad.get())});
    }
    in.submitters.push_back(std::move(a));
    in.submitters.push_back(std::move(b));
    for (const classad::AdPtr& s : slots) {
      s->ref();
      in.slots.push_back(classad::AdPtr(s.get()));
    }
    CycleResult r = negotiate(in);
    return std::make_pair(testing::pairs(r), r.autoclusters);
  };
  for (size_t from : {0, 0, 1, 2, 0}) {
    auto with = cycle(true, from);
    auto without = cycle(false, from);
    EXPECT_EQ(with.first, without.first) << from;
    EXPECT_EQ(with.second, without.second) << from;
    EXPECT_FALSE(with.first.empty());
  }
  // A job that changes is grouped by its new values.
  alice[1].ad->insert_value("RequestMemory", classad::Value::integer(1));
  EXPECT_EQ(cycle(true, 0), cycle(false, 0));
}

}  // namespace
}  // namespace kite::negotiator
