// Job state changes from the slots and the periodic policy on a real queue database: status,
// attributes, history and the job's event log.
#include "agent/queue/job_events.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../scratch_dirs.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::queue {
namespace {

struct Queue {
  std::string dir;
  JobStore store;
  Queue() {
    dir = test::scratch_dir("kite-jobev");
    std::string err;
    EXPECT_TRUE(store.open(dir + "/queue.db", &err)) << err;
  }
  // One job of its own cluster, with `extra` attributes (old ClassAd lines).
  JobId submit(const std::string& extra) {
    classad::AdPtr cluster = classad::parse_classad_old(
        "Owner = \"alice\"\nCmd = \"/bin/true\"\nJobUniverse = 5\nUserLog = \"" + dir +
        "/job.log\"\n" + extra);
    EXPECT_TRUE(cluster);
    classad::AdPtr proc(classad::ClassAd::make());
    const classad::ClassAd* procs[] = {proc.get()};
    int32_t c = 0;
    std::string err;
    EXPECT_TRUE(store.submit(*cluster, procs, 1000, &c, &err)) << err;
    return {c, 0};
  }
  std::string attr(JobId id, const char* name) {
    std::string err;
    classad::AdPtr ad = store.job_ad(id, &err);
    if (!ad) return "<no job>";
    const classad::Expr* e = ad->lookup(name);
    return e ? classad::to_string(e) : "<missing>";
  }
  double wall(JobId id) {
    std::string err;
    classad::AdPtr ad = store.job_ad(id, &err);
    double v = -1;
    if (ad) ad->evaluate_real("RemoteWallClockTime", v);
    return v;
  }
  std::string log() {
    std::ifstream in(dir + "/job.log");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  int status(JobId id) {
    for (const JobSummary& s : store.jobs())
      if (s.id == id) return s.status;
    return 0;
  }
};

JobStart slot() {
  JobStart s;
  s.remote_host = "slot1@node-a";
  s.host_address = "<127.0.0.1:9618>";
  return s;
}

TEST(JobEvents, StartedThenExitedCompletesIntoTheHistory) {
  Queue q;
  JobId id = q.submit("");
  std::string err;
  ASSERT_TRUE(job_started(q.store, id, slot(), 2000, &err)) << err;
  EXPECT_EQ(q.status(id), kRunning);
  EXPECT_EQ(q.attr(id, "RemoteHost"), "\"slot1@node-a\"");
  EXPECT_EQ(q.attr(id, "JobStartDate"), "2000");
  EXPECT_EQ(q.attr(id, "ShadowBday"), "2000");
  EXPECT_EQ(q.attr(id, "NumJobStarts"), "1");
  EXPECT_NE(q.log().find("001 (001.000.000)"), std::string::npos) << q.log();

  JobExit e;
  e.exit_code = 3;
  e.user_cpu = 1.5;
  queue_policy::PolicyDecision d;
  ASSERT_TRUE(job_exited(q.store, id, e, 2010, &d, &err)) << err;
  EXPECT_EQ(d.action, queue_policy::PolicyDecision::kComplete);
  EXPECT_TRUE(q.store.jobs().empty());
  std::vector<classad::AdPtr> hist;
  ASSERT_TRUE(q.store.history(-1, &hist, &err)) << err;
  ASSERT_EQ(hist.size(), 1u);
  EXPECT_EQ(classad::to_string(hist[0]->lookup("ExitCode")), "3");
  double wall = 0;
  EXPECT_TRUE(hist[0]->evaluate_real("RemoteWallClockTime", wall));
  EXPECT_EQ(wall, 10.0);
  EXPECT_EQ(classad::to_string(hist[0]->lookup("CompletionDate")), "2010");
  EXPECT_EQ(classad::to_string(hist[0]->lookup("JobStatus")), "4");
  EXPECT_NE(q.log().find("005 (001.000.000)"), std::string::npos) << q.log();
}

TEST(JobEvents, OnExitRemoveFalseRequeuesAndOnExitHoldHolds) {
  Queue q;
  JobId retry = q.submit("OnExitRemove = ExitCode == 0\n");
  JobId hold = q.submit("OnExitHold = ExitBySignal\n");
  std::string err;
  queue_policy::PolicyDecision d;
  ASSERT_TRUE(job_started(q.store, retry, slot(), 2000, &err)) << err;
  JobExit fail;
  fail.exit_code = 1;
  ASSERT_TRUE(job_exited(q.store, retry, fail, 2005, &d, &err)) << err;
  EXPECT_EQ(q.status(retry), kIdle);
  EXPECT_EQ(q.wall(retry), 5.0);
  // A second run adds its wall time to the first's.
  ASSERT_TRUE(job_started(q.store, retry, slot(), 3000, &err)) << err;
  EXPECT_EQ(q.attr(retry, "NumJobStarts"), "2");
  EXPECT_EQ(q.attr(retry, "JobStartDate"), "2000");
  ASSERT_TRUE(job_evicted(q.store, retry, 3002, &err)) << err;
  EXPECT_EQ(q.status(retry), kIdle);
  EXPECT_EQ(q.wall(retry), 7.0);
  EXPECT_NE(q.log().find("004 (001.000.000)"), std::string::npos) << q.log();

  ASSERT_TRUE(job_started(q.store, hold, slot(), 2000, &err)) << err;
  JobExit killed;
  killed.by_signal = true;
  killed.signal = 9;
  ASSERT_TRUE(job_exited(q.store, hold, killed, 2001, &d, &err)) << err;
  EXPECT_EQ(q.status(hold), kHeld);
  EXPECT_EQ(q.attr(hold, "HoldReasonCode"), "3");
  EXPECT_EQ(q.attr(hold, "ExitSignal"), "9");
  EXPECT_NE(q.log().find("012 (002.000.000)"), std::string::npos) << q.log();
}

TEST(JobEvents, TheStartdHoldsWithItsCode) {
  Queue q;
  JobId id = q.submit("");
  std::string err;
  ASSERT_TRUE(job_started(q.store, id, slot(), 2000, &err)) << err;
  ASSERT_TRUE(job_held_by_startd(q.store, id, "memory limit exceeded", 21, 0, 2003, &err)) << err;
  EXPECT_EQ(q.status(id), kHeld);
  EXPECT_EQ(q.attr(id, "HoldReason"), "\"memory limit exceeded\"");
  EXPECT_EQ(q.attr(id, "HoldReasonCode"), "21");
  EXPECT_NE(q.log().find("\tCode 21 Subcode 0"), std::string::npos) << q.log();
}

TEST(JobEvents, PeriodicPolicyHoldsReleasesAndRemoves) {
  Queue q;
  JobId hold = q.submit("PeriodicHold = NumJobStarts >= 1\n");
  JobId release = q.submit("PeriodicRelease = true\n");
  JobId remove = q.submit("PeriodicRemove = true\n");
  JobId quiet = q.submit("");
  std::string err;
  ASSERT_TRUE(job_started(q.store, hold, slot(), 2000, &err)) << err;
  ASSERT_TRUE(q.store.set_status(release, kHeld, 2000, &err)) << err;
  std::vector<JobId> stopped;
  bool released = false;
  int n = apply_periodic_policy(q.store, {}, 2100, &stopped, &released, &err);
  EXPECT_EQ(n, 3);
  EXPECT_EQ(q.status(hold), kHeld);
  EXPECT_EQ(q.attr(hold, "HoldReasonCode"), "3");
  ASSERT_EQ(stopped.size(), 1u);  // only the running job must be stopped on its slot
  EXPECT_TRUE(stopped[0] == hold);
  EXPECT_EQ(q.status(release), kIdle);
  EXPECT_TRUE(released);
  EXPECT_EQ(q.status(remove), 0);  // gone to the history
  EXPECT_EQ(q.status(quiet), kIdle);
  EXPECT_NE(q.log().find("009 (003.000.000)"), std::string::npos) << q.log();
  EXPECT_NE(q.log().find("013 (002.000.000)"), std::string::npos) << q.log();
}

}  // namespace
}  // namespace kite::queue
