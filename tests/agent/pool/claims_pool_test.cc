// Jobs through the central manager end to end on loopback: a real `kite cm` and two agents
// with certificates, real jobs under cgroups. The queue is filled before the CM starts (the CM
// loads it). Each job appends its id to a shared ledger with O_APPEND as its last act, so the
// ledger says from the jobs themselves how often each one ran to its end.
#include <sys/stat.h>

#include <algorithm>
#include <map>

#include "../pool_harness.h"
#include "agent/queue/job_store.h"
#include "policy/classad/parser.h"

namespace kite::test {
namespace {

using queue::JobStore;

// Claims and leases on a test's time scale, the same on the CM and the agents.
const char* const kTiming =
    "ALIVE_INTERVAL = 1\nMAX_CLAIM_ALIVES_MISSED = 8\nNEGOTIATOR_INTERVAL = 2\n";

// A directory the jobs (the slot user nobody) and the CM writing as the Owner can write.
std::string shared_dir() {
  std::string d = net_temp_dir();
  chmod(d.c_str(), 0755);
  std::string out = d + "/out";
  mkdir(out.c_str(), 0777);
  chmod(out.c_str(), 0777);
  return out;
}

struct JobSpec {
  int exit_code = 0;
  int prio = 0;
  double sleep = 0;
  std::string requirements = "true";
};

// Submits one cluster of `jobs` into the CM's queue; each proc N prints "out-<cluster>.N",
// sleeps, appends "<cluster>.N" to dir/ledger and exits with its code.
int32_t submit(const std::string& db, const std::string& dir, const std::vector<JobSpec>& jobs,
               const std::string& owner = "nobody") {
  JobStore store;
  std::string err;
  EXPECT_TRUE(store.open(db, &err)) << err;
  int32_t cluster = store.next_cluster_id();
  classad::AdPtr cad = classad::parse_classad(
      "[ Owner = \"" + owner + "\"; Cmd = \"/bin/sh\"; JobUniverse = 5; Iwd = \"" + dir +
      "\"; RequestCpus = 1; RequestMemory = 32; RequestDisk = 1 ]");
  std::vector<classad::AdPtr> procs;
  std::vector<const classad::ClassAd*> ptrs;
  for (size_t i = 0; i < jobs.size(); ++i) {
    std::string id = std::to_string(cluster) + "." + std::to_string(i);
    std::string script = "echo out-" + id + "; sleep " + std::to_string(jobs[i].sleep) + "; echo " +
                         id + " >> " + dir + "/ledger; exit " + std::to_string(jobs[i].exit_code);
    classad::AdPtr p = classad::parse_classad("[ Arguments = \"-c '" + script +
                                              "'\"; Out = \"out." + id + "\"; Err = \"err." + id +
                                              "\"; JobPrio = " + std::to_string(jobs[i].prio) +
                                              "; Requirements = " + jobs[i].requirements + " ]");
    EXPECT_TRUE(p) << script;
    procs.push_back(std::move(p));
    ptrs.push_back(procs.back().get());
  }
  int32_t got = 0;
  EXPECT_TRUE(store.submit(*cad, ptrs, std::time(nullptr), &got, &err)) << err;
  EXPECT_EQ(got, cluster);
  return cluster;
}

// How many times each job id appears in the ledger, and the order of first appearance.
std::map<std::string, int> ledger(const std::string& dir,
                                  std::vector<std::string>* order = nullptr) {
  std::map<std::string, int> n;
  std::istringstream in(read_text(dir + "/ledger"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (order && !n.count(line)) order->push_back(line);
    n[line]++;
  }
  return n;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

class ClaimsPool : public testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_AGENT_TESTS();
    if (!cm_available()) GTEST_SKIP() << "this build has no central manager (node-only)";
    pool_ = std::make_unique<Pool>(kTiming);
    std::string err;
    ASSERT_TRUE(core::make_dirs(pool_->cm_dir(), 0755, &err)) << err;
    db_ = pool_->cm_dir() + "/queue.db";
    dir_ = shared_dir();
  }
  void start(bool two_agents = true) {
    ASSERT_TRUE(pool_->start_cm()) << pool_->cm_log();
    std::string err;
    ASSERT_TRUE(pool_->start_agent(&a_, "node-a", "node-a", &err, kTiming)) << err;
    if (two_agents) {
      ASSERT_TRUE(pool_->start_agent(&b_, "node-b", "node-b", &err, kTiming)) << err;
    }
  }
  // Waits until the ledger holds `n` distinct jobs and the CM has heard `n` exits.
  bool ran(size_t n, int timeout_ms = 40000) {
    return eventually(
        [&] { return ledger(dir_).size() >= n && count_of(pool_->cm_log(), " ended on ") >= n; },
        timeout_ms);
  }
  // The queue after the CM has stopped: status and ExitCode by job id.
  std::map<std::string, std::pair<int, int64_t>> final_queue() {
    pool_->kill_cm();
    JobStore store;
    std::string err;
    EXPECT_TRUE(store.open(db_, &err)) << err;
    std::map<std::string, std::pair<int, int64_t>> out;
    for (const queue::JobSummary& j : store.jobs())
      out[std::to_string(j.id.cluster) + "." + std::to_string(j.id.proc)] = {j.status, -1};
    std::vector<classad::AdPtr> hist;
    EXPECT_TRUE(store.history(-1, &hist, &err)) << err;
    for (const classad::AdPtr& h : hist) {
      int64_t c = 0, p = 0, st = 0, code = -1;
      h->evaluate_int("ClusterId", c);
      h->evaluate_int("ProcId", p);
      h->evaluate_int("JobStatus", st);
      h->evaluate_int("ExitCode", code);
      out[std::to_string(c) + "." + std::to_string(p)] = {static_cast<int>(st), code};
    }
    return out;
  }
  std::string logs() {
    return pool_->cm_log() + "\n--- node-a\n" + a_.log() + "\n--- node-b\n" + b_.log();
  }

  std::unique_ptr<Pool> pool_;
  TestAgent a_, b_;
  std::string db_, dir_;
};

TEST_F(ClaimsPool, FiftyJobsCompleteWithTheirExitCodesAndOutput) {
  std::vector<JobSpec> jobs(50);
  for (int i = 0; i < 50; ++i) jobs[static_cast<size_t>(i)].exit_code = i % 5;
  JobSpec never;
  never.requirements = "TARGET.Memory > 100000000";  // no slot has that much
  int32_t c = submit(db_, dir_, jobs);
  int32_t u = submit(db_, dir_, {never});
  start();
  ASSERT_TRUE(ran(50)) << ledger(dir_).size() << " jobs ran\n" << logs();
  // Every job ran to its end exactly once, and its output came back to Iwd/Out.
  std::map<std::string, int> l = ledger(dir_);
  for (int i = 0; i < 50; ++i) {
    std::string id = std::to_string(c) + "." + std::to_string(i);
    EXPECT_EQ(l[id], 1) << id;
    EXPECT_TRUE(
        eventually([&] { return read_text(dir_ + "/out." + id) == "out-" + id + "\n"; }, 10000))
        << id << ": '" << read_text(dir_ + "/out." + id) << "'";
  }
  // The unmatchable job was offered in later cycles and never matched.
  std::string uid = std::to_string(u) + ".0";
  EXPECT_TRUE(eventually(
      [&] { return pool_->cm_log().find("cycle with 1 idle jobs") != std::string::npos; }, 10000))
      << pool_->cm_log();
  EXPECT_EQ(l.count(uid), 0u);
  // The queue: each job Completed with its exit code; the unmatchable one still Idle. One claim
  // ran several jobs (claims are reused for the submitter's next job).
  std::string cm_log = pool_->cm_log();
  auto q = final_queue();
  for (int i = 0; i < 50; ++i) {
    std::string id = std::to_string(c) + "." + std::to_string(i);
    EXPECT_EQ(q[id].first, queue::kCompleted) << id;
    EXPECT_EQ(q[id].second, i % 5) << id;
  }
  EXPECT_EQ(q[uid].first, queue::kIdle);
  size_t claimed = count_of(cm_log, "claims: claiming "),
         activated = count_of(cm_log, " activated on ");
  EXPECT_EQ(activated, 50u) << cm_log;
  EXPECT_LT(claimed, 25u) << "claims were not reused: " << claimed << " claims for 50 jobs";
  std::printf("50 jobs on %zu claims\n", claimed);
}

TEST_F(ClaimsPool, HigherJobPrioRunsFirstWithinASubmitter) {
  // Four slots; eight low-priority jobs submitted before four high-priority ones.
  std::vector<JobSpec> low(8), high(4);
  for (JobSpec& j : low) j.sleep = 0.5;
  for (JobSpec& j : high) {
    j.prio = 10;
    j.sleep = 0.5;
  }
  int32_t lc = submit(db_, dir_, low);
  int32_t hc = submit(db_, dir_, high);
  start();
  ASSERT_TRUE(ran(12)) << logs();
  EXPECT_EQ(ledger(dir_).size(), 12u);
  // The order the CM started them in (whatever order the agents connected in): the four
  // high-priority jobs first.
  std::vector<std::string> started;
  std::istringstream in(pool_->cm_log());
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find("claims: "), on = line.find(" activated on ");
    if (at != std::string::npos && on != std::string::npos)
      started.push_back(line.substr(at + 8, on - at - 8));
  }
  ASSERT_EQ(started.size(), 12u) << logs();
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(started[i].substr(0, started[i].find('.')), std::to_string(hc))
        << "start " << i << ": " << started[i] << " (low cluster " << lc << ")";
}

TEST_F(ClaimsPool, KillNineOfTheCmLosesNoJobAndRunsNoneTwice) {
  std::vector<JobSpec> jobs(200);
  for (JobSpec& j : jobs) j.sleep = 0.05;
  int32_t c = submit(db_, dir_, jobs);
  start();
  ASSERT_TRUE(ran(40)) << logs();
  pool_->kill_cm();
  size_t at_kill = ledger(dir_).size();
  ASSERT_TRUE(pool_->start_cm()) << pool_->cm_log();
  ASSERT_TRUE(ran(200, 90000)) << ledger(dir_).size() << " of 200 ran\n" << logs();
  std::map<std::string, int> l = ledger(dir_);
  for (int i = 0; i < 200; ++i) {
    std::string id = std::to_string(c) + "." + std::to_string(i);
    EXPECT_EQ(l[id], 1) << id << " ran " << l[id] << " times";
  }
  auto q = final_queue();
  for (int i = 0; i < 200; ++i) {
    std::string id = std::to_string(c) + "." + std::to_string(i);
    EXPECT_EQ(q[id].first, queue::kCompleted) << id;
  }
  std::printf("%zu of 200 jobs had ended when the CM was killed\n", at_kill);
}

TEST_F(ClaimsPool, KillNineOfAnAgentReadoptsItsJobs) {
  // Jobs long enough to be running when the agent dies.
  std::vector<JobSpec> jobs(8);
  for (JobSpec& j : jobs) j.sleep = 3;
  int32_t c = submit(db_, dir_, jobs);
  start();
  ASSERT_TRUE(eventually(
      [&] { return count_of(a_.log(), "activated by the central manager") >= 1; }, 20000))
      << logs();
  a_.kill9();
  std::string err;
  ASSERT_TRUE(a_.restart(&err)) << err;
  ASSERT_TRUE(ran(8, 50000)) << ledger(dir_).size() << " of 8 ran\n" << logs();
  EXPECT_NE(a_.log().find("serves the central manager's job"), std::string::npos) << a_.log();
  std::map<std::string, int> l = ledger(dir_);
  for (int i = 0; i < 8; ++i) {
    std::string id = std::to_string(c) + "." + std::to_string(i);
    EXPECT_EQ(l[id], 1) << id << " ran " << l[id] << " times\n" << logs();
  }
  auto q = final_queue();
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(q[std::to_string(c) + "." + std::to_string(i)].first, queue::kCompleted) << i;
}

TEST_F(ClaimsPool, APartitionableSlotRunsSeveralJobsInDynamicSlots) {
  std::vector<JobSpec> jobs(10);
  for (JobSpec& j : jobs) j.sleep = 0.3;
  int32_t c = submit(db_, dir_, jobs);
  ASSERT_TRUE(pool_->start_cm()) << pool_->cm_log();
  std::string err;
  ASSERT_TRUE(pool_->start_agent(&a_, "node-a", "node-a", &err,
                                 std::string(kTiming) + "NUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1 = 100%\n"
                                                        "SLOT_TYPE_1_PARTITIONABLE = true\n"))
      << err;
  ASSERT_TRUE(ran(10)) << logs();
  std::map<std::string, int> l = ledger(dir_);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(l[std::to_string(c) + "." + std::to_string(i)], 1) << i;
  // Two CPUs: two dynamic slots carved from slot1 ran the jobs side by side.
  std::string log = pool_->cm_log();
  EXPECT_NE(log.find(" activated on slot1_1@node-a"), std::string::npos) << log;
  EXPECT_NE(log.find(" activated on slot1_2@node-a"), std::string::npos) << log;
}

TEST(ClaimsPoolReschedule, KiteRescheduleNeedsWriteAndStartsACycle) {
  REQUIRE_AGENT_TESTS();
  if (!cm_available()) GTEST_SKIP() << "this build has no central manager (node-only)";
  Pool pool("NEGOTIATOR_INTERVAL = 3600\nALLOW_WRITE = admin/*");
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  CmdResult r = pool.to_cm("reschedule", {}, "root-admin");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Sent reschedule command"), std::string::npos) << r.out;
  EXPECT_TRUE(eventually(
      [&] {
        std::string log = pool.cm_log();
        size_t asked = log.find("reschedule requested by admin/root-admin");
        return asked != std::string::npos &&
               log.find("negotiator: cycle", asked) != std::string::npos;
      },
      10000))
      << pool.cm_log();
  r = pool.to_cm("reschedule", {}, "alice");  // READ only
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("user/alice lacks WRITE"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kite::test
