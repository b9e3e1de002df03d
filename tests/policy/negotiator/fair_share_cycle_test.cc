// The negotiation cycle with fair share: ceilings, concurrency limits (with the units running
// jobs already hold) and group quotas reported by the cycle.
#include <gtest/gtest.h>

#include "policy/negotiator/negotiator.h"
#include "tests/policy/negotiator/negotiator_rig.h"

namespace kite::negotiator {
namespace {

using testing::config_of;
using testing::job;
using testing::slot;
using testing::submitter;

CycleInput pool_of(int slots) {
  CycleInput in;
  for (int i = 1; i <= slots; ++i) in.slots.push_back(slot(i));
  return in;
}

std::vector<IdleJob> jobs_of(int cluster, int n, const std::string& owner,
                             const std::string& extra = "") {
  std::vector<IdleJob> out;
  for (int p = 0; p < n; ++p) out.push_back(job(cluster, p, owner, extra));
  return out;
}

TEST(FairShareCycle, CeilingCapsWhatASubmitterMayHold) {
  CycleInput in = pool_of(10);
  Submitter s = submitter("bob@pool", 500, jobs_of(1, 10, "bob"));
  s.ceiling = 3;
  in.submitters.push_back(std::move(s));
  EXPECT_EQ(negotiate(in).matches.size(), 3u);
}

TEST(FairShareCycle, ConcurrencyLimitCountsUnitsRunningJobsHold) {
  CycleInput in = pool_of(10);
  auto cfg = config_of("XSW_LIMIT = 3\n");
  in.cfg = cfg.get();
  in.submitters.push_back(
      submitter("alice@pool", 500, jobs_of(1, 10, "alice", "ConcurrencyLimits = \"xsw\"")));
  EXPECT_EQ(negotiate(in).matches.size(), 3u);
  in.limits_in_use.push_back({"xsw", 2});  // two already run elsewhere
  EXPECT_EQ(negotiate(in).matches.size(), 1u);
}

TEST(FairShareCycle, JobsWithoutTheLimitStillMatchWhenItIsFull) {
  CycleInput in = pool_of(6);
  auto cfg = config_of("XSW_LIMIT = 1\n");
  in.cfg = cfg.get();
  std::vector<IdleJob> mixed = jobs_of(1, 3, "alice", "ConcurrencyLimits = \"XSW\"");
  for (IdleJob& j : jobs_of(2, 3, "alice")) mixed.push_back(std::move(j));
  in.submitters.push_back(submitter("alice@pool", 500, std::move(mixed)));
  // one XSW job, then the three without a limit
  EXPECT_EQ(negotiate(in).matches.size(), 4u);
}

TEST(FairShareCycle, GroupQuotasAreReportedAndCapTheirGroups) {
  CycleInput in = pool_of(30);
  auto cfg = config_of(
      "GROUP_NAMES = group_physics, group_chemistry\n"
      "GROUP_QUOTA_group_physics = 20\nGROUP_QUOTA_group_chemistry = 10\n");
  in.cfg = cfg.get();
  in.submitters.push_back(
      submitter("group_physics.einstein@pool", 500, jobs_of(1, 50, "einstein")));
  in.submitters.push_back(submitter("group_chemistry.curie@pool", 500, jobs_of(2, 50, "curie")));
  CycleResult r = negotiate(in);
  int physics = 0, chemistry = 0;
  for (const Match& m : r.matches) (m.cluster == 1 ? physics : chemistry)++;
  EXPECT_EQ(physics, 20);
  EXPECT_EQ(chemistry, 10);
  bool seen = false;
  for (const fairshare::GroupQuota& q : r.quotas) {
    if (q.name != "group_physics") continue;
    seen = true;
    EXPECT_DOUBLE_EQ(q.effective_quota, 20);
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace kite::negotiator
