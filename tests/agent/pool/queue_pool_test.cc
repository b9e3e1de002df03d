// `kite submit`, `kite q` and `kite status` against a running pool on loopback (a CM and two
// agents, real jobs under cgroups): $(Cluster) naming each job's output file, kite q agreeing
// with kite status while jobs run, and -analyze naming the clause no slot meets from the
// collector's slot ads. The jobs are submitted as the account nobody (its certificate's CN is
// the Owner the CM writes outputs as), and each waits for a `go` file before it ends.
#include <sys/stat.h>

#include <sstream>

#include "../pool_harness.h"

namespace kite::test {
namespace {

// Claims on a test's time scale; both sides of the submit files' FileSystemDomain clause.
const char* const kTiming =
    "ALIVE_INTERVAL = 1\nMAX_CLAIM_ALIVES_MISSED = 8\nNEGOTIATOR_INTERVAL = 2\n"
    "FILESYSTEM_DOMAIN = kite-test\n";

// Lines of `text` equal to `line`.
size_t lines_equal(const std::string& text, const std::string& line) {
  size_t n = 0;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) n += l == line;
  return n;
}

class QueuePool : public testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_AGENT_TESTS();
    if (!cm_available()) GTEST_SKIP() << "this build has no central manager (node-only)";
    pool_ = std::make_unique<Pool>(kTiming);
    pool_->pki().issue("user", "nobody");
    // A directory the jobs (slot users) read and the CM, writing as nobody, writes.
    dir_ = net_temp_dir();
    chmod(dir_.c_str(), 0755);
    dir_ += "/jobs";
    mkdir(dir_.c_str(), 0777);
    chmod(dir_.c_str(), 0777);
    std::string err;
    ASSERT_TRUE(core::write_file_atomic(pool_->pki().dir + "/client.conf",
                                        "FILESYSTEM_DOMAIN = kite-test\n", 0644, &err))
        << err;
    // Prints its id, then waits (at most a minute) for the test's go file.
    ASSERT_TRUE(core::write_file_atomic(dir_ + "/job.sh",
                                        "#!/bin/sh\necho \"out-$1\"\ni=0\n"
                                        "while [ ! -e \"$2/go\" ] && [ $i -lt 600 ]; do\n"
                                        "  sleep 0.1; i=$((i + 1))\ndone\n",
                                        0755, &err))
        << err;
  }
  void start() {
    ASSERT_TRUE(pool_->start_cm()) << pool_->cm_log();
    std::string err;
    ASSERT_TRUE(pool_->start_agent(&a_, "node-a", "node-a", &err, kTiming)) << err;
    ASSERT_TRUE(pool_->start_agent(&b_, "node-b", "node-b", &err, kTiming)) << err;
    // Both agents' two slots are in the collector.
    ASSERT_TRUE(eventually([&] { return pool_->names().size() == 4; }, 20000)) << logs();
  }
  // `kite ARGS... -pool CM` as nobody, with the submit side's configuration.
  CmdResult as_nobody(const std::vector<std::string>& args) {
    const std::string& d = pool_->pki().dir;
    std::vector<std::string> argv = {
        "env", "KITE_CONFIG=" + d + "/client.conf", "KITE_CA=" + pool_->pki().ca() + "/ca.crt",
        "KITE_CERT=" + d + "/nobody.crt", "KITE_KEY=" + d + "/nobody.key"};
    for (const std::string& w : kite_command()) argv.push_back(w);
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"-pool", "127.0.0.1:" + std::to_string(pool_->port())});
    return run_cmd(argv, 60000);
  }
  // A submit file of `n` procs of job.sh in the jobs' directory; `extra` before the queue line.
  std::string submit_file(const std::string& name, int n, const std::string& extra = "") {
    std::string path = dir_ + "/" + name, err;
    std::string text = "executable = " + dir_ + "/job.sh\narguments = $(Cluster).$(Process) " +
                       dir_ + "\ninitialdir = " + dir_ +
                       "\noutput = out.$(Cluster).$(Process)\nerror = err.$(ClusterId).$(ProcId)\n"
                       "request_memory = 32\nrequest_disk = 1\n" +
                       extra + "queue " + std::to_string(n) + "\n";
    EXPECT_TRUE(core::write_file_atomic(path, text, 0644, &err)) << err;
    return path;
  }
  void go() {
    std::string err;
    ASSERT_TRUE(core::write_file_atomic(dir_ + "/go", "", 0644, &err)) << err;
  }
  std::string logs() {
    return pool_->cm_log() + "\n--- node-a\n" + a_.log() + "\n--- node-b\n" + b_.log();
  }

  std::unique_ptr<Pool> pool_;
  TestAgent a_, b_;
  std::string dir_;
};

TEST_F(QueuePool, ClusterInTwoSubmitFilesNamesEachJobsOwnOutput) {
  start();
  std::string sub = submit_file("two.sub", 2);
  CmdResult r = as_nobody({"submit", sub});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Submitting job(s)..\n2 job(s) submitted to cluster 1.\n");
  r = as_nobody({"submit", sub});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Submitting job(s)..\n2 job(s) submitted to cluster 2.\n");
  r = as_nobody({"q", "-af", "ClusterId", "ProcId", "Out", "Err"});
  EXPECT_EQ(r.out,
            "1 0 out.1.0 err.1.0\n1 1 out.1.1 err.1.1\n2 0 out.2.0 err.2.0\n2 1 out.2.1 err.2.1\n")
      << r.err;
  go();
  // Each job's output came back to its own file, named with its real id.
  for (const char* id : {"1.0", "1.1", "2.0", "2.1"}) {
    std::string path = dir_ + "/out." + id;
    EXPECT_TRUE(
        eventually([&] { return read_text(path) == "out-" + std::string(id) + "\n"; }, 40000))
        << id << ": '" << read_text(path) << "'\n"
        << logs();
  }
  EXPECT_TRUE(eventually([&] { return as_nobody({"q", "-af", "ProcId"}).out.empty(); }, 20000));
  // The history (newest first, in the order the jobs ended) holds the same ids.
  r = as_nobody({"history", "-af", "ClusterId", "ProcId", "Out"});
  for (const char* line : {"1 0 out.1.0", "1 1 out.1.1", "2 0 out.2.0", "2 1 out.2.1"})
    EXPECT_EQ(lines_equal(r.out, line), 1u) << line << " in\n" << r.out;
}

TEST_F(QueuePool, RunningJobsInKiteQAreTheBusySlotsInKiteStatus) {
  start();
  // Six jobs for four slots: four run (and wait), two stay idle.
  ASSERT_EQ(as_nobody({"submit", submit_file("six.sub", 6)}).status, 0);
  size_t running = 0, busy = 0;
  auto agree = [&](size_t want) {
    running = lines_equal(as_nobody({"q", "-af", "JobStatus"}).out, "2");
    busy = lines_equal(pool_->status({"-af", "State", "Activity"}, "alice").out, "Claimed Busy");
    return running == want && busy == want;
  };
  EXPECT_TRUE(eventually([&] { return agree(4); }, 40000))
      << running << " running in kite q, " << busy << " Claimed/Busy in kite status\n"
      << logs();
  // The totals line says the same.
  EXPECT_NE(as_nobody({"q", "-totals"})
                .out.find("6 jobs; 0 completed, 0 removed, 2 idle, 4 "
                          "running, 0 held, 0 suspended"),
            std::string::npos);
  go();
  EXPECT_TRUE(eventually(
      [&] {
        return as_nobody({"q", "-af", "ProcId"}).out.empty();
      },
      60000))
      << logs();
  EXPECT_TRUE(eventually([&] { return agree(0); }, 20000))
      << running << " running in kite q, " << busy << " Claimed/Busy in kite status\n"
      << logs();
}

TEST_F(QueuePool, AnalyzeNamesTheClauseNoSlotMeetsFromTheCollectorsSlots) {
  start();
  ASSERT_EQ(as_nobody({"submit",
                       submit_file("never.sub", 1, "requirements = TARGET.Memory > 100000000\n")})
                .status,
            0);
  // Offered in a cycle with both agents' slots, and still Idle.
  ASSERT_TRUE(eventually(
      [&] { return pool_->cm_log().find("cycle with 1 idle jobs") != std::string::npos; }, 20000))
      << pool_->cm_log();
  EXPECT_EQ(as_nobody({"q", "1.0", "-af", "JobStatus"}).out, "1\n");
  CmdResult r = as_nobody({"q", "-analyze", "1.0"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("TARGET.Memory > 100000000"), std::string::npos) << r.out;
  // The failing clause matched no slot; the summary counts the four slots of two machines.
  std::string clause_line;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);)
    if (l.size() > 5 && l[0] == '[' && l.find("TARGET.Memory > 100000000") != std::string::npos)
      clause_line = l;
  EXPECT_NE(clause_line.find("          0  TARGET.Memory > 100000000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Of 4 slots on 2 machines,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("      4 slots are rejected by your job's requirements"), std::string::npos)
      << r.out;
  // The same text as the local form over the same ads (-jobads, -slotads), past the title.
  std::string jobs = dir_ + "/job.ads", slots = dir_ + "/slot.ads", err;
  ASSERT_TRUE(core::write_file_atomic(jobs, as_nobody({"q", "1.0", "-l"}).out, 0644, &err));
  ASSERT_TRUE(core::write_file_atomic(slots, pool_->status({"-l"}, "alice").out, 0644, &err));
  CmdResult local = as_nobody({"q", "-jobads", jobs, "-slotads", slots, "-better-analyze", "1.0"});
  ASSERT_EQ(local.status, 0) << local.err;
  auto past_title = [](const std::string& s) {
    size_t t = s.find("\n-- ");
    return t == std::string::npos ? s : s.substr(s.find('\n', t + 1));
  };
  EXPECT_EQ(past_title(r.out), past_title(local.out));
}

}  // namespace
}  // namespace kite::test
