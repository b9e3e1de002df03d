// Tests of the durable job queue: submit transactions, shared cluster ads, status changes,
// history, reload, and a kill -9 crash test.
#include "agent/queue/job_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../scratch_dirs.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::queue {
namespace {

using classad::AdPtr;
using classad::ClassAd;

std::string temp_db() {
  return test::scratch_dir("kite-queue") + "/queue.db";
}

AdPtr ad(const char* text) {
  classad::ParseError pe;
  AdPtr a = classad::parse_classad(text, &pe);
  EXPECT_TRUE(a) << pe.to_string();
  return a;
}

std::string attr(const ClassAd& a, const char* name) {
  const classad::Expr* e = a.lookup(name);
  return e ? classad::to_string(e) : "<missing>";
}

// Submits `n` procs whose Args differ; returns the cluster id.
int32_t submit_n(JobStore& store, int n, int64_t now) {
  AdPtr cluster = ad("[ Owner = \"alice\"; Cmd = \"/bin/sleep\"; JobPrio = 0; Args = \"0\" ]");
  std::vector<AdPtr> procs;
  std::vector<const ClassAd*> ptrs;
  for (int i = 0; i < n; ++i) {
    procs.push_back(ad(("[ Args = \"" + std::to_string(i * 10) + "\" ]").c_str()));
    ptrs.push_back(procs.back().get());
  }
  int32_t id = 0;
  std::string err;
  EXPECT_TRUE(store.submit(*cluster, ptrs, now, &id, &err)) << err;
  return id;
}

int64_t count_rows(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), SQLITE_OK);
  int64_t n = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
  sqlite3_finalize(s);
  sqlite3_close(db);
  return n;
}

TEST(JobStore, SubmitAssignsIdsQDateAndStatus) {
  JobStore store;
  std::string err;
  ASSERT_TRUE(store.open(temp_db(), &err)) << err;
  EXPECT_EQ(submit_n(store, 3, 1000), 1);
  EXPECT_EQ(submit_n(store, 1, 1005), 2);
  ASSERT_EQ(store.jobs().size(), 4u);
  AdPtr j = store.job_ad({1, 2}, &err);
  ASSERT_TRUE(j) << err;
  EXPECT_EQ(attr(*j, "ClusterId"), "1");
  EXPECT_EQ(attr(*j, "ProcId"), "2");
  EXPECT_EQ(attr(*j, "QDate"), "1000");
  EXPECT_EQ(attr(*j, "JobStatus"), "1");
  EXPECT_EQ(attr(*j, "EnteredCurrentStatus"), "1000");
  EXPECT_EQ(attr(*j, "Args"), "\"20\"");
  EXPECT_EQ(attr(*j, "Owner"), "\"alice\"");
  EXPECT_EQ(store.jobs()[3].id.cluster, 2);
  EXPECT_EQ(store.jobs()[3].qdate, 1005);
}

TEST(JobStore, HoldAtSubmitAndEmptySubmits) {
  std::string path = temp_db();
  JobStore store;
  std::string err;
  ASSERT_TRUE(store.open(path, &err)) << err;
  AdPtr cluster = ad("[ Owner = \"bob\"; JobPrio = 4 ]");
  AdPtr p0 = ad("[ JobStatus = 5 ]");                // `hold = true`
  AdPtr p1 = ad("[ JobStatus = 2; JobPrio = -1 ]");  // a submit cannot start a job running
  const ClassAd* procs[] = {p0.get(), p1.get()};
  int32_t id = 0;
  ASSERT_TRUE(store.submit(*cluster, procs, 10, &id, &err)) << err;
  ASSERT_EQ(store.jobs().size(), 2u);
  EXPECT_EQ(store.jobs()[0].status, kHeld);
  EXPECT_EQ(store.jobs()[0].prio, 4);
  EXPECT_EQ(store.jobs()[1].status, kIdle);
  EXPECT_EQ(store.jobs()[1].prio, -1);
  // A submit without procs is refused and uses up no cluster id.
  EXPECT_FALSE(store.submit(*cluster, {}, 11, &id, &err));
  EXPECT_EQ(err, "submit: no procs");
  EXPECT_EQ(store.next_cluster_id(), 2);
  store.close();
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM procs"), 2);
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM clusters"), 1);
}

TEST(JobStore, ProcsStoreOnlyWhatDiffersFromTheClusterAd) {
  std::string path = temp_db();
  JobStore store;
  std::string err;
  ASSERT_TRUE(store.open(path, &err)) << err;
  AdPtr cluster = ad("[ Owner = \"alice\"; Cmd = \"/bin/sleep\"; Args = \"5\"; RequestCpus = 1 ]");
  // Proc 0 repeats the whole cluster ad; proc 1 changes Args.
  AdPtr p0 = ad("[ Owner = \"alice\"; Cmd = \"/bin/sleep\"; Args = \"5\"; RequestCpus = 1 ]");
  AdPtr p1 = ad("[ Owner = \"alice\"; Cmd = \"/bin/sleep\"; Args = \"7\"; RequestCpus = 1 ]");
  const ClassAd* procs[] = {p0.get(), p1.get()};
  int32_t id = 0;
  ASSERT_TRUE(store.submit(*cluster, procs, 50, &id, &err)) << err;
  store.close();
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM procs WHERE ad LIKE '%Owner%'"), 0);
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM procs WHERE ad LIKE '%Args%'"), 1);
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM clusters WHERE ad LIKE '%Owner%'"), 1);
  ASSERT_TRUE(store.open(path, &err)) << err;
  EXPECT_EQ(attr(*store.job_ad({1, 0}, &err), "Args"), "\"5\"");
  EXPECT_EQ(attr(*store.job_ad({1, 1}, &err), "Args"), "\"7\"");
  EXPECT_EQ(attr(*store.job_ad({1, 1}, &err), "Owner"), "\"alice\"");
}

TEST(JobStore, StatusTransitionsFollowHTCondor) {
  EXPECT_TRUE(status_transition_allowed(kIdle, kRunning));
  EXPECT_TRUE(status_transition_allowed(kRunning, kSuspended));
  EXPECT_TRUE(status_transition_allowed(kSuspended, kRunning));
  EXPECT_TRUE(status_transition_allowed(kHeld, kIdle));
  EXPECT_FALSE(status_transition_allowed(kHeld, kRunning));
  EXPECT_FALSE(status_transition_allowed(kIdle, kCompleted));
  EXPECT_FALSE(status_transition_allowed(kCompleted, kIdle));
  EXPECT_FALSE(status_transition_allowed(kRemoved, kIdle));

  JobStore store;
  std::string err;
  ASSERT_TRUE(store.open(temp_db(), &err)) << err;
  submit_n(store, 1, 100);
  ASSERT_TRUE(store.set_status({1, 0}, kRunning, 110, &err)) << err;
  EXPECT_FALSE(store.set_status({1, 0}, kRunning, 111, &err));
  EXPECT_NE(err.find("no transition from status 2 to 2"), std::string::npos) << err;
  ASSERT_TRUE(store.set_status({1, 0}, kHeld, 120, &err)) << err;
  AdPtr j = store.job_ad({1, 0}, &err);
  EXPECT_EQ(attr(*j, "JobStatus"), "5");
  EXPECT_EQ(attr(*j, "LastJobStatus"), "2");
  EXPECT_EQ(attr(*j, "EnteredCurrentStatus"), "120");
  EXPECT_EQ(store.jobs()[0].status, kHeld);
  EXPECT_FALSE(store.set_status({9, 0}, kIdle, 1, &err));
  EXPECT_EQ(err, "no job 9.0");
}

TEST(JobStore, AttributeUpdatesPersist) {
  std::string path = temp_db();
  JobStore store;
  std::string err;
  ASSERT_TRUE(store.open(path, &err)) << err;
  submit_n(store, 2, 100);
  ASSERT_TRUE(store.set_attribute({1, 1}, "JobPrio", "5", &err)) << err;
  ASSERT_TRUE(store.set_attribute({1, -1}, "RequestMemory", "64 * 2", &err)) << err;
  EXPECT_FALSE(store.set_attribute({1, 0}, "JobStatus", "2", &err));
  EXPECT_FALSE(store.set_attribute({1, 0}, "Bad", "1 +", &err));
  EXPECT_NE(err.find("attribute Bad"), std::string::npos) << err;
  EXPECT_EQ(store.jobs()[1].prio, 5);
  store.close();
  ASSERT_TRUE(store.open(path, &err)) << err;
  EXPECT_EQ(store.jobs()[1].prio, 5);
  EXPECT_EQ(store.jobs()[0].prio, 0);
  EXPECT_EQ(attr(*store.job_ad({1, 0}, &err), "RequestMemory"), "64 * 2");
  EXPECT_EQ(attr(*store.job_ad({1, 1}, &err), "JobPrio"), "5");
}

TEST(JobStore, EndedJobsMoveToHistory) {
  std::string path = temp_db();
  JobStore store;
  std::string err;
  ASSERT_TRUE(store.open(path, &err)) << err;
  submit_n(store, 2, 100);
  ASSERT_TRUE(store.set_status({1, 0}, kRunning, 110, &err)) << err;
  ASSERT_TRUE(store.set_status({1, 0}, kCompleted, 130, &err)) << err;
  ASSERT_TRUE(store.set_status({1, 1}, kRemoved, 140, &err)) << err;
  EXPECT_TRUE(store.jobs().empty());
  EXPECT_FALSE(store.job_ad({1, 0}, &err));
  std::vector<AdPtr> h;
  ASSERT_TRUE(store.history(-1, &h, &err)) << err;
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(attr(*h[0], "ProcId"), "1");  // most recent first
  EXPECT_EQ(attr(*h[0], "JobStatus"), "3");
  EXPECT_EQ(attr(*h[1], "JobStatus"), "4");
  EXPECT_EQ(attr(*h[1], "CompletionDate"), "130");
  EXPECT_EQ(attr(*h[1], "Owner"), "\"alice\"");
  h.clear();
  ASSERT_TRUE(store.history(1, &h, &err)) << err;
  EXPECT_EQ(h.size(), 1u);
  store.close();
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM clusters"), 0);
  // Cluster ids are never reused, even once the queue is empty.
  ASSERT_TRUE(store.open(path, &err)) << err;
  EXPECT_EQ(submit_n(store, 1, 200), 2);
}

TEST(JobStore, ReloadRestoresTheQueue) {
  std::string path = temp_db();
  std::string err;
  {
    JobStore store;
    ASSERT_TRUE(store.open(path, &err)) << err;
    submit_n(store, 3, 100);
    submit_n(store, 2, 200);
    ASSERT_TRUE(store.set_status({2, 1}, kHeld, 210, &err)) << err;
  }
  JobStore store;
  ASSERT_TRUE(store.open(path, &err)) << err;
  ASSERT_EQ(store.jobs().size(), 5u);
  EXPECT_EQ(store.jobs()[4].id, (JobId{2, 1}));
  EXPECT_EQ(store.jobs()[4].status, kHeld);
  EXPECT_EQ(store.jobs()[4].qdate, 200);
  EXPECT_EQ(store.next_cluster_id(), 3);
}

// Grouped (the CM's loop turns): changes are seen by the store at once but reach the disk
// only at commit_group(); a refused change undoes only itself; a submit commits the group.
TEST(JobStore, GroupedChangesAreDurableAtTheGroupCommit) {
  std::string path = temp_db();
  JobStore store;
  std::string err;
  ASSERT_TRUE(store.open(path, &err)) << err;
  submit_n(store, 3, 100);
  store.set_grouped(true);
  EXPECT_FALSE(store.group_open());
  ASSERT_TRUE(store.set_status({1, 0}, kRunning, 110, &err)) << err;
  EXPECT_TRUE(store.group_open());
  ASSERT_TRUE(store.set_attribute({1, 1}, "JobPrio", "7", &err)) << err;
  EXPECT_FALSE(store.set_status({1, 2}, kCompleted, 111, &err));  // Idle -> Completed: refused
  ASSERT_TRUE(store.set_status({1, 2}, kHeld, 112, &err)) << err;
  EXPECT_EQ(store.jobs()[0].status, kRunning);
  EXPECT_EQ(attr(*store.job_ad({1, 1}, &err), "JobPrio"), "7");
  // Another reader of the file sees none of it yet.
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM procs WHERE status=1"), 3);
  ASSERT_TRUE(store.commit_group(&err)) << err;
  EXPECT_FALSE(store.group_open());
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM procs WHERE status=2"), 1);
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM procs WHERE status=5"), 1);
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM procs WHERE status=1"), 1);
  // A submit is its own transaction and takes the open group with it.
  ASSERT_TRUE(store.set_status({1, 0}, kCompleted, 120, &err)) << err;
  EXPECT_EQ(submit_n(store, 1, 130), 2);
  EXPECT_FALSE(store.group_open());
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM history"), 1);
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM procs WHERE cluster=2"), 1);
  // What is still open when the store closes is committed.
  ASSERT_TRUE(store.set_status({2, 0}, kHeld, 140, &err)) << err;
  store.close();
  EXPECT_EQ(count_rows(path, "SELECT count(*) FROM procs WHERE status=5"), 2);
}

TEST(JobStore, UnopenableFileIsAClearError) {
  JobStore store;
  std::string err;
  EXPECT_FALSE(store.open("/nonexistent-dir/queue.db", &err));
  EXPECT_NE(err.find("/nonexistent-dir/queue.db"), std::string::npos) << err;
  EXPECT_FALSE(store.set_status({1, 0}, kRunning, 1, &err));
}

// A child submits clusters in a loop, writing each cluster id to a pipe once submit()
// returned (the acknowledgement), and is killed with SIGKILL at a random point. Every
// acknowledged cluster must be there on reopen, with all its procs intact.
TEST(JobStore, KillNineLosesNoAcknowledgedSubmit) {
  const std::string path = temp_db();
  const int kProcs = 20;
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 3; ++round) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      JobStore store;
      std::string err;
      if (!store.open(path, &err)) _exit(3);
      for (;;) {
        int32_t id = submit_n(store, kProcs, 1000 + round);
        if (id <= 0 || write(fds[1], &id, sizeof id) != sizeof id) _exit(4);
      }
    }
    close(fds[1]);
    // Kill after a random number of acknowledgements, at a random moment after the last one.
    const int kill_after = 1 + static_cast<int>(rng() % 15);
    std::vector<int32_t> acked;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int32_t id = 0;
    while (static_cast<int>(acked.size()) < kill_after &&
           std::chrono::steady_clock::now() < deadline &&
           read(fds[0], &id, sizeof id) == sizeof id) {
      acked.push_back(id);
    }
    usleep(static_cast<useconds_t>(rng() % 20000));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child ended by itself, status " << status;
    // Acknowledgements written before the kill still sit in the pipe.
    while (read(fds[0], &id, sizeof id) == sizeof id) acked.push_back(id);
    close(fds[0]);
    ASSERT_GE(static_cast<int>(acked.size()), kill_after);

    JobStore store;
    std::string err;
    ASSERT_TRUE(store.open(path, &err)) << err;
    for (int32_t c : acked) {
      for (int p = 0; p < kProcs; ++p) {
        AdPtr j = store.job_ad({c, p}, &err);
        ASSERT_TRUE(j) << "cluster " << c << " proc " << p << ": " << err;
        EXPECT_EQ(attr(*j, "Args"), "\"" + std::to_string(p * 10) + "\"");
        EXPECT_EQ(attr(*j, "Owner"), "\"alice\"");
      }
    }
    // A cluster is all or nothing: every cluster present has all its procs.
    std::vector<int> per_cluster(static_cast<size_t>(store.next_cluster_id()), 0);
    for (const JobSummary& s : store.jobs()) ++per_cluster[static_cast<size_t>(s.id.cluster)];
    for (size_t c = 1; c < per_cluster.size(); ++c) {
      EXPECT_TRUE(per_cluster[c] == 0 || per_cluster[c] == kProcs) << "cluster " << c;
    }
  }
}

}  // namespace
}  // namespace kite::queue

namespace kite::queue {
namespace {

TEST(JobStoreReserve, ReservedClustersAreNeverShared) {
  std::string path = temp_db(), err;
  {
    JobStore store;
    ASSERT_TRUE(store.open(path, &err)) << err;
    int32_t a = store.reserve_cluster(), b = store.reserve_cluster();
    EXPECT_EQ(a, 1);
    EXPECT_EQ(b, 2);
    // The later reservation commits first; the earlier one after it; a plain submit after both.
    AdPtr cluster = ad("[ Owner = \"alice\"; Cmd = \"/bin/true\" ]");
    AdPtr proc = ad("[ Args = \"x\" ]");
    std::vector<const ClassAd*> procs = {proc.get()};
    int32_t got = 0;
    ASSERT_TRUE(store.submit(*cluster, procs, 100, &got, &err, b)) << err;
    EXPECT_EQ(got, 2);
    ASSERT_TRUE(store.submit(*cluster, procs, 100, &got, &err, a)) << err;
    EXPECT_EQ(got, 1);
    EXPECT_EQ(submit_n(store, 1, 100), 3);
    // The summaries stay in id order (the negotiator and lookups rely on it).
    ASSERT_EQ(store.jobs().size(), 3u);
    EXPECT_EQ(store.jobs()[0].id.cluster, 1);
    EXPECT_EQ(store.jobs()[1].id.cluster, 2);
    EXPECT_EQ(store.jobs()[2].id.cluster, 3);
    // A reservation given back is handed out again only while it is the newest.
    int32_t c = store.reserve_cluster();
    EXPECT_EQ(c, 4);
    store.release_cluster(c);
    EXPECT_EQ(store.reserve_cluster(), 4);
    int32_t d = store.reserve_cluster();
    store.release_cluster(4);  // older than d: stays skipped
    EXPECT_EQ(store.reserve_cluster(), d + 1);
  }
  // Reopened: numbering goes on after the highest committed cluster.
  JobStore again;
  ASSERT_TRUE(again.open(path, &err)) << err;
  EXPECT_EQ(again.next_cluster_id(), 4);
}

}  // namespace
}  // namespace kite::queue
