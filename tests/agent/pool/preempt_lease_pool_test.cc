// The claim layer's eviction paths end to end on loopback (a real `kite cm` and agents, real jobs
// under cgroups): a machine RANK preempting a running job through retirement; a starter whose
// agent died killing its job when the claim lease runs out, before the CM gives the job to
// another node; an agent whose CM is gone past the lease killing the job at once (not after its
// vacate time). The jobs keep a ledger themselves: a line when they start, one every 0.2 s
// while they run and one when they end, each with the time, so that the ledger shows every run
// of a job and when it was last alive.
#include <sys/stat.h>
#include <sys/time.h>

#include <map>

#include "../pool_harness.h"

namespace kite::test {
namespace {

// Claims and leases on a test's time scale, the same on the CM and the agents.
const char* const kTiming =
    "ALIVE_INTERVAL = 1\nMAX_CLAIM_ALIVES_MISSED = 8\nNEGOTIATOR_INTERVAL = 2\n";
// The agents and the submit side agree on the filesystem domain (submit files' default
// Requirements ask for it).
const char* const kDomain = "FILESYSTEM_DOMAIN = kite-test\n";

double wall_now() {
  timeval tv{};
  gettimeofday(&tv, nullptr);
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

size_t count_of_text(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// One run of a job as its ledger lines tell it.
struct JobRun {
  double start = 0;
  double last = 0;  // its last line: the end, or the last beat before it was killed
  bool ended = false;
};

// The runs of each job name in the ledger, in order.
std::map<std::string, std::vector<JobRun>> runs_in(const std::string& ledger_text) {
  std::map<std::string, std::vector<JobRun>> out;
  std::istringstream in(ledger_text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string what, name;
    double t = 0;
    if (!(words >> what >> name >> t)) continue;
    std::vector<JobRun>& v = out[name];
    if (what == "start") v.push_back(JobRun{t, t, false});
    if (v.empty()) continue;
    v.back().last = t;
    if (what == "end") v.back().ended = true;
  }
  return out;
}

class PreemptLeasePool : public testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_CM();
    pool_ = std::make_unique<Pool>(kTiming);
    dir_ = net_temp_dir();
    chmod(dir_.c_str(), 0755);
    dir_ += "/jobs";
    mkdir(dir_.c_str(), 0777);
    chmod(dir_.c_str(), 0777);
    // The job: NAME BEATS SHORT_AGAIN [trap]; a run after the first of a job beats only 3 times
    // when SHORT_AGAIN is 1 (so that a long job killed once finishes soon when it runs again);
    // with "trap" it ignores SIGTERM.
    std::string script = "#!/bin/sh\nL=" + dir_ +
                         "/ledger\n"
                         "n=$2\n"
                         "if [ \"$3\" = 1 ] && [ -e " +
                         dir_ +
                         "/ran.$1 ]; then n=3; fi\n"
                         "touch " +
                         dir_ +
                         "/ran.$1\n"
                         "if [ \"$4\" = trap ]; then trap '' TERM; fi\n"
                         "echo \"start $1 $(date +%s.%N)\" >> $L\n"
                         "i=0\n"
                         "while [ $i -lt $n ]; do\n"
                         "  sleep 0.2\n"
                         "  echo \"beat $1 $(date +%s.%N)\" >> $L\n"
                         "  i=$((i+1))\n"
                         "done\n"
                         "echo \"end $1 $(date +%s.%N)\" >> $L\n";
    std::string err;
    ASSERT_TRUE(core::write_file_atomic(dir_ + "/job.sh", script, 0755, &err)) << err;
    ASSERT_TRUE(core::write_file_atomic(dir_ + "/client.conf", kDomain, 0644, &err)) << err;
    ASSERT_TRUE(pool_->start_cm()) << pool_->cm_log();
  }

  // `kite submit` as `who` of one job running job.sh NAME BEATS SHORT_AGAIN [trap], with its
  // event log in the jobs directory and `extra` submit commands (`ignore_term`: the job
  // ignores SIGTERM).
  void submit(const std::string& who, const std::string& name, int beats, bool short_again,
              const std::string& extra = "", bool ignore_term = false) {
    std::string sub = dir_ + "/" + name + ".sub", err;
    std::string text = "executable = " + dir_ + "/job.sh\narguments = " + name + " " +
                       std::to_string(beats) + (short_again ? " 1" : " 0") +
                       (ignore_term ? " trap" : "") + "\nlog = " + dir_ + "/" + name +
                       ".log\nrequest_cpus = 1\nrequest_memory = 32\n" + extra + "queue\n";
    ASSERT_TRUE(core::write_file_atomic(sub, text, 0644, &err)) << err;
    TestPool& pki = pool_->pki();
    std::vector<std::string> argv = {
        "env", "KITE_CONFIG=" + dir_ + "/client.conf", "KITE_CA=" + pki.ca() + "/ca.crt",
        "KITE_CERT=" + pki.dir + "/" + who + ".crt", "KITE_KEY=" + pki.dir + "/" + who + ".key"};
    for (const std::string& w : kite_command()) argv.push_back(w);
    argv.insert(argv.end(), {"submit", sub, "-pool", "127.0.0.1:" + std::to_string(pool_->port())});
    CmdResult r = run_cmd(argv, 60000);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
  }

  std::map<std::string, std::vector<JobRun>> runs() { return runs_in(read_text(dir_ + "/ledger")); }
  // Waits until the job named `name` has `n` runs, the last `ended` as asked.
  bool has_runs(const std::string& name, size_t n, bool ended, int timeout_ms) {
    return eventually(
        [&] {
          auto r = runs();
          auto it = r.find(name);
          return it != r.end() && it->second.size() >= n && (!ended || it->second[n - 1].ended);
        },
        timeout_ms);
  }
  // The job's status in the CM's queue, as `kite q` tells its owner (0: not in the queue).
  int status(const std::string& who) {
    CmdResult r = pool_->as(who, {"q", "-af", "JobStatus"});
    return r.status == 0 ? std::atoi(r.out.c_str()) : -1;
  }
  void rank_preemption(const std::string& slots);
  std::string logs() {
    return "--- ledger\n" + read_text(dir_ + "/ledger") + "--- cm\n" + pool_->cm_log() +
           "\n--- node-a\n" + a_.log() + "\n--- node-b\n" + b_.log();
  }

  std::unique_ptr<Pool> pool_;
  TestAgent a_, b_;
  std::string dir_;
};

// A node whose one slot (`slots`: its layout) prefers alice's jobs; a preempted job may run 6 s
// from its start (the startd's whole second) and is soft-killed 1 s (its vacate time) before
// that. One CPU: the slot's weight (its Cpus) is then what one job's demand earns in the pie.
void PreemptLeasePool::rank_preemption(const std::string& slots) {
  std::string err;
  ASSERT_TRUE(pool_->start_agent(&a_, "node-a", "node-a", &err,
                                 std::string(kTiming) + kDomain + "NUM_CPUS = 1\n" + slots +
                                     "RANK = Owner == \"alice\"\n"
                                     "MAXJOBRETIREMENTTIME = 6\nMachineMaxVacateTime = 1\n"))
      << err;
  // bob's job would run 12 s on its first run (0.6 s when it runs again); alice's about 1 s.
  submit("bob", "bob", 60, true);
  ASSERT_TRUE(has_runs("bob", 1, false, 30000)) << logs();
  double alice_submitted = wall_now();
  submit("alice", "alice", 5, false);
  ASSERT_TRUE(has_runs("alice", 1, true, 40000)) << logs();
  ASSERT_TRUE(has_runs("bob", 2, true, 40000)) << logs();

  auto r = runs();
  const std::vector<JobRun>& bob = r["bob"];
  const JobRun& alice = r["alice"][0];
  ASSERT_EQ(bob.size(), 2u) << logs();
  EXPECT_FALSE(bob[0].ended) << "bob's first run was not evicted\n" << logs();
  // Retirement: bob's job went on after alice's claim came, until its retirement was over (at
  // least 4 s after the agent started it; its first ledger line comes a little later and beats
  // are 0.2 s apart), and was gone before alice's job started.
  EXPECT_GE(bob[0].last, bob[0].start + 2.5) << logs();
  EXPECT_GE(bob[0].last, alice_submitted + 1.5) << logs();
  EXPECT_LT(bob[0].last, alice.start) << logs();
  EXPECT_LT(bob[0].last, alice_submitted + 12) << "bob's job was not vacated\n" << logs();
  // bob's job went back to Idle and ran again only after alice's was over (the slot is
  // alice's while her job runs: bob's cannot preempt it back).
  EXPECT_TRUE(alice.ended);
  EXPECT_GT(bob[1].start, alice.last) << logs();
  EXPECT_EQ(r["alice"].size(), 1u) << logs();
  // The event log says bob's job was evicted and ran again; the queue has both completed.
  std::string bob_log;
  EXPECT_TRUE(eventually(
      [&] {
        bob_log = read_text(dir_ + "/bob.log");
        return bob_log.find("005 (") != std::string::npos;
      },
      10000))
      << bob_log;
  EXPECT_NE(bob_log.find("004 ("), std::string::npos) << bob_log;
  EXPECT_NE(bob_log.find("Job was evicted."), std::string::npos) << bob_log;
  EXPECT_EQ(count_of_text(bob_log, "001 ("), 2u) << bob_log;
  EXPECT_TRUE(eventually([&] { return status("bob") == 0 && status("alice") == 0; }, 10000))
      << "jobs still in the queue\n"
      << logs();
  // The agent's core retired the job (Claimed/Retiring) before vacating it for the new claim.
  std::string alog = a_.log();
  EXPECT_NE(alog.find("Claimed/Busy -> Claimed/Retiring"), std::string::npos) << alog;
  EXPECT_NE(alog.find("-> Preempting/Vacating"), std::string::npos) << alog;
  EXPECT_NE(pool_->cm_log().find("preempting bob"), std::string::npos) << pool_->cm_log();
}

TEST_F(PreemptLeasePool, AMachineRankPreferringOneOwnerPreemptsAnotherOwnersJobThroughRetirement) {
  rank_preemption("NUM_SLOTS = 1\n");
}

TEST_F(PreemptLeasePool, AMachineRankPreemptsTheJobOfADynamicSlotThroughRetirement) {
  rank_preemption("NUM_SLOTS_TYPE_1 = 1\nSLOT_TYPE_1 = 100%\nSLOT_TYPE_1_PARTITIONABLE = true\n");
  EXPECT_NE(pool_->cm_log().find("claiming slot1_1@node-a for 2.0"), std::string::npos)
      << pool_->cm_log();
}

TEST_F(PreemptLeasePool, AStarterWhoseAgentDiedKillsItsJobAtTheLeaseBeforeTheJobRunsElsewhere) {
  // The job starts on node-a (the only agent then); node-b comes up while it runs.
  std::string err;
  ASSERT_TRUE(pool_->start_agent(&a_, "node-a", "node-a", &err, std::string(kTiming) + kDomain))
      << err;
  const int kLease = 6;
  submit("alice", "long", 300, true, "job_lease_duration = " + std::to_string(kLease) + "\n");
  ASSERT_TRUE(has_runs("long", 1, false, 30000)) << logs();
  ASSERT_TRUE(pool_->start_agent(&b_, "node-b", "node-b", &err, std::string(kTiming) + kDomain))
      << err;
  // node-a's agent dies and never comes back; its starter keeps the job running for the lease.
  double killed = wall_now();
  a_.kill9();
  ASSERT_TRUE(has_runs("long", 2, true, 60000)) << logs();

  auto r = runs();
  const std::vector<JobRun>& v = r["long"];
  ASSERT_EQ(v.size(), 2u) << logs();
  EXPECT_FALSE(v[0].ended) << logs();
  // The first run lived on after its agent died, and was killed when the lease ran out
  // (not long after: beats come every 0.2 s).
  EXPECT_GE(v[0].last, killed + kLease - 1.0) << logs();
  EXPECT_LE(v[0].last, killed + kLease + 1.5) << logs();
  // The second run (on node-b) started only after the first was gone: never twice at once.
  EXPECT_GT(v[1].start, v[0].last) << logs();
  std::printf(
      "lease %d s: the job's last beat %.2f s after its agent died; it ran again %.2f s "
      "after that\n",
      kLease, v[0].last - killed, v[1].start - v[0].last);
  EXPECT_NE(b_.log().find("activated by the central manager"), std::string::npos) << logs();
  EXPECT_NE(pool_->cm_log().find("back to Idle (the claim's lease ran out)"), std::string::npos)
      << logs();
  EXPECT_TRUE(eventually([&] { return status("alice") == 0; }, 10000)) << logs();
}

TEST_F(PreemptLeasePool, AJobWhoseCmIsGoneLongerThanTheLeaseIsKilledAtItEvenIfItIgnoresSigterm) {
  std::string err;
  ASSERT_TRUE(pool_->start_agent(&a_, "node-a", "node-a", &err, std::string(kTiming) + kDomain))
      << err;
  const int kLease = 6;
  submit("alice", "stubborn", 300, true, "job_lease_duration = " + std::to_string(kLease) + "\n",
         true);
  ASSERT_TRUE(has_runs("stubborn", 1, false, 30000)) << logs();
  // The CM dies and stays away past the lease: no alive reaches the agent, whose claim lease
  // runs out. The job ignores SIGTERM (its vacate time would be 10 minutes), and is killed.
  double killed = wall_now();
  pool_->kill_cm();
  ASSERT_TRUE(eventually([&] { return a_.slot_state("slot1") == "Unclaimed/Idle"; }, 20000))
      << a_.slot_state("slot1") << logs();
  EXPECT_NE(a_.log().find("lease ran out: its job is killed now"), std::string::npos) << logs();
  auto r = runs();
  ASSERT_EQ(r["stubborn"].size(), 1u) << logs();
  double last = r["stubborn"][0].last;
  // The lease counts from the last alive (every JobLeaseDuration/3 = 2 s) before the CM died.
  EXPECT_GE(last, killed + kLease - 2.5) << logs();
  EXPECT_LE(last, killed + kLease + 1.5) << logs();
  // The CM comes back: the job's eviction is reported, it goes back to Idle and runs again.
  ASSERT_TRUE(pool_->start_cm()) << pool_->cm_log();
  ASSERT_TRUE(has_runs("stubborn", 2, true, 60000)) << logs();
  r = runs();
  const std::vector<JobRun>& v = r["stubborn"];
  ASSERT_EQ(v.size(), 2u) << logs();
  EXPECT_FALSE(v[0].ended);
  EXPECT_GT(v[1].start, v[0].last) << logs();
  std::printf("lease %d s: the job's last beat %.2f s after its CM died\n", kLease, last - killed);
  EXPECT_TRUE(eventually([&] { return status("alice") == 0; }, 10000)) << logs();
}

}  // namespace
}  // namespace kite::test
