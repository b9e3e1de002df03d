// MatchCache: answers kept across cycles only while nothing they read has changed, and cycles
// with the cache matching exactly as cycles without it.
#include "policy/negotiator/match_cache.h"

#include <gtest/gtest.h>

#include "policy/classad/classad.h"
#include "policy/negotiator/cycle_settings.h"
#include "tests/policy/negotiator/negotiator_rig.h"

namespace kite::negotiator {
namespace {

using testing::ad;
using testing::job;
using testing::slot;

struct CacheRig {
  // The flag is process-wide and never cleared (an earlier test in the same process may have
  // made an ad defining TARGET); no ad of these tests defines MY or TARGET.
  CacheRig() { classad::g_my_target_defined = false; }
  std::shared_ptr<const CycleSettings> settings = read_cycle_settings(nullptr);
  MatchCache cache;
  IdleJob j = job(1, 0, "alice");
  classad::AdPtr s = slot(1);
  CachedMatch answer(double pre) {
    CachedMatch m;
    m.matches = true;
    m.pre = pre;
    m.job_rank = 2;
    m.post = 3;
    return m;
  }
  // Remembers an answer for (job, slot) in a fresh cycle; true when the cache then has it.
  bool remembers(classad::ClassAd& job_ad, classad::ClassAd& slot_ad) {
    cache.begin_cycle(settings, 1);
    cache.begin_job(job_ad);
    cache.remember(job_ad, slot_ad, {}, answer(7));
    cache.begin_cycle(settings, 1);
    cache.begin_job(job_ad);
    return cache.find(slot_ad) != nullptr;
  }
  bool remembers() { return remembers(*j.ad, *s); }
  // Whether the cache has an answer for `other` on slot `s`.
  bool knows(const IdleJob& other) {
    cache.begin_job(*other.ad);
    return cache.find(*s) != nullptr;
  }
};

TEST(MatchCache, AnswerComesBackForTheSameSlotAndAnEqualJob) {
  CacheRig rig;
  ASSERT_TRUE(rig.remembers());
  const CachedMatch* m = rig.cache.find(*rig.s);
  EXPECT_TRUE(m->matches);
  EXPECT_EQ(m->pre, 7);
  EXPECT_EQ(m->job_rank, 2);
  EXPECT_EQ(m->post, 3);
  // Another job with the same values (its own ad) gets the answer too.
  EXPECT_TRUE(rig.knows(job(2, 0, "alice", "", 5000)));
}

TEST(MatchCache, ChangedSlotAdIsAskedAgain) {
  CacheRig rig;
  ASSERT_TRUE(rig.remembers());
  rig.s->insert_value("Memory", classad::Value::integer(64));
  EXPECT_EQ(rig.cache.find(*rig.s), nullptr);
}

TEST(MatchCache, JobWithAnotherValueOfAnAttributeTheMatchReadsIsAskedAgain) {
  CacheRig rig;
  ASSERT_TRUE(rig.remembers());
  EXPECT_FALSE(rig.knows(job(2, 0, "alice", "RequestMemory = 4096")));
  // An attribute no expression reads does not matter.
  EXPECT_TRUE(rig.knows(job(3, 0, "alice", "Color = \"blue\"")));
}

TEST(MatchCache, AttributeTheJobLacksCountsAsRead) {
  CacheRig rig;
  // The slot reads TARGET.Project; a job that has none and one that has one differ.
  rig.s = slot(1, "node1", "Start = TARGET.Project =!= \"x\"");
  ASSERT_TRUE(rig.remembers());
  EXPECT_FALSE(rig.knows(job(2, 0, "alice", "Project = \"x\"")));
}

TEST(MatchCache, ClockChanceAndWholeAdsAreNeverRemembered) {
  const char* starts[] = {
      "Start = (time() % 120) < 60",  "Start = ClockMin > 5\nClockMin = (time() % 86400) / 60",
      "Start = CurrentTime > 0",      "Start = MY.CurrentTime > 0",
      "Start = random(2) == 0",       "Start = eval(\"TARGET.RequestCpus\") == 1",
      "Start = TARGET =!= undefined", "Start = formatTime(0, \"%Y\") == \"1970\"",
  };
  for (const char* start : starts) {
    CacheRig rig;
    rig.s = slot(1, "node1", start);
    EXPECT_FALSE(rig.remembers()) << start;
  }
  // Reached from the job side too, and from a knob expression.
  CacheRig rig;
  IdleJob timed = job(1, 0, "alice", "Requirements = TARGET.Memory >= RequestMemory && time() > 0");
  EXPECT_FALSE(rig.remembers(*timed.ad, *rig.s));
  classad::ExprPtr knob = classad::parse_expr("CurrentTime");
  rig.cache.begin_cycle(rig.settings, 1);
  rig.cache.begin_job(*rig.j.ad);
  rig.cache.remember(*rig.j.ad, *rig.s, {knob.get()}, rig.answer(1));
  EXPECT_EQ(rig.cache.find(*rig.s), nullptr);
}

TEST(MatchCache, OtherSettingsForgetEverything) {
  CacheRig rig;
  ASSERT_TRUE(rig.remembers());
  rig.cache.begin_cycle(read_cycle_settings(nullptr), 1);
  EXPECT_FALSE(rig.knows(rig.j));
}

// Cycles through the cache match exactly as cycles without it, as the clock and the ads change.
TEST(MatchCache, CyclesWithTheCacheMatchAsWithout) {
  std::vector<classad::AdPtr> slots;
  slots.push_back(slot(1, "a", "Start = (time() % 120) < 60"));
  slots.push_back(slot(2, "b", "Memory = 2048"));
  slots.push_back(slot(3, "c", "Memory = 512"));
  MatchCache cache;
  std::shared_ptr<const CycleSettings> settings = read_cycle_settings(nullptr);
  auto cycle = [&](int64_t now, bool cached, const std::string& extra) {
    CycleInput in;
    in.now = now;
    in.settings = settings;
    in.match_cache = cached ? &cache : nullptr;
    in.submitters.push_back(
        testing::submitter("alice@x", 0.5, job(1, 0, "alice", extra), job(1, 1, "alice", extra)));
    for (const classad::AdPtr& s : slots) {
      s->ref();
      in.slots.push_back(classad::AdPtr(s.get()));
    }
    return testing::pairs(negotiate(in));
  };
  const std::string big = "RequestMemory = 1024";
  for (int64_t now : {0, 60, 120, 180}) {
    for (const std::string& extra : {std::string(), big}) {
      EXPECT_EQ(cycle(now, true, extra), cycle(now, false, extra)) << now << " " << extra;
    }
  }
  // Slot b shrinks, slot c grows: the remembered answers for them no longer hold.
  slots[1]->insert_value("Memory", classad::Value::integer(256));
  slots[2]->insert_value("Memory", classad::Value::integer(4096));
  EXPECT_EQ(cycle(240, true, big), cycle(240, false, big));
  // At 300 slot a's START says no; only c has the memory.
  EXPECT_EQ(cycle(300, true, big), (std::vector<std::string>{"1.0->slot3@c"}));
}

// A job group whose concurrency limit is full matches nothing, cycle after cycle, with the cache
// (which then ends its turn without making its list) as without it; the other submitter's jobs
// still take the slots.
TEST(MatchCache, GroupWithAFullLimitMatchesNothingWithTheCacheAsWithout) {
  auto cfg = testing::config_of("XSW_LIMIT = 1\n");
  std::vector<classad::AdPtr> slots;
  for (int i = 1; i <= 4; ++i) slots.push_back(slot(i));
  MatchCache cache;
  std::shared_ptr<const CycleSettings> settings = read_cycle_settings(cfg.get());
  auto cycle = [&](bool cached) {
    CycleInput in;
    in.cfg = cfg.get();
    in.settings = settings;
    in.match_cache = cached ? &cache : nullptr;
    in.limits_in_use.push_back({"xsw", 1});  // the one unit is held by a running job
    const std::string limited = "ConcurrencyLimits = \"xsw\"";
    in.submitters.push_back(testing::submitter("alice@x", 0.5, job(1, 0, "alice", limited),
                                               job(1, 1, "alice", limited)));
    in.submitters.push_back(testing::submitter("bob@x", 0.5, job(2, 0, "bob"), job(2, 1, "bob")));
    for (const classad::AdPtr& s : slots) {
      s->ref();
      in.slots.push_back(classad::AdPtr(s.get()));
    }
    return negotiate(in);
  };
  for (int round = 0; round < 3; ++round) {  // the first cycle fills the cache, the others use it
    CycleResult with = cycle(true), without = cycle(false);
    EXPECT_EQ(testing::pairs(with), testing::pairs(without)) << round;
    ASSERT_EQ(with.matches.size(), 2u) << round;
    for (const Match& m : with.matches) EXPECT_EQ(m.submitter, "bob@x") << round;
    for (const CycleResult* r : {&with, &without}) {
      for (const SubmitterOutcome& o : r->submitters) {
        if (o.name != "alice@x") continue;
        EXPECT_EQ(o.matched, 0) << round;
        EXPECT_EQ(o.rejected, 1) << round;  // its one autocluster, once
      }
    }
  }
}

}  // namespace
}  // namespace kite::negotiator
