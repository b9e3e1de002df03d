// The job queue of `kite cm` on loopback with real certificates: submit, q, rm/hold/release,
// prio and history as condor_* print them; Owner from the certificate; submit requirements and
// transforms; a submit durable once acknowledged; a submit cut off mid-way leaves nothing.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "agent/core/files.h"
#include "pool_harness.h"

namespace kite::test {
namespace {

// A submit file in the pool's directory; `body` before its queue statement.
std::string submit_file(Pool& pool, const std::string& name, const std::string& body) {
  std::string path = pool.pki().dir + "/" + name, err;
  EXPECT_TRUE(core::write_file_atomic(path, body, 0644, &err)) << err;
  return path;
}

TEST(CmQueue, OwnerComesFromTheCertificateAndOnlyTheOwnerOrAnAdminActs) {
  REQUIRE_CM();
  Pool pool;
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  std::string log = pool.pki().dir + "/jobs.log";
  std::string sub = submit_file(pool, "a.sub",
                                "executable = /bin/true\narguments = $(Process)\n+Owner = "
                                "\"mallory\"\nlog = " +
                                    log + "\nqueue 3\n");
  CmdResult r = pool.as("alice", {"submit", sub});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Submitting job(s)...\n3 job(s) submitted to cluster 1.\n");

  r = pool.as("alice", {"q", "-af", "ClusterId", "ProcId", "Owner", "JobStatus"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1 0 alice 1\n1 1 alice 1\n1 2 alice 1\n");
  // The default table shows the asker's own jobs; the totals still count everybody's.
  r = pool.as("bob", {"q", "-totals"});
  EXPECT_NE(r.out.find("Total for query: 0 jobs;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Total for all users: 3 jobs; 0 completed, 0 removed, 3 idle"),
            std::string::npos)
      << r.out;
  r = pool.as("bob", {"q", "-allusers", "-af", "Owner"});
  EXPECT_EQ(r.out, "alice\nalice\nalice\n");
  // condor_q -limit N: the schedd answers at most N jobs, in job id order.
  r = pool.as("alice", {"q", "-limit", "2", "-af", "ProcId"});
  EXPECT_EQ(r.out, "0\n1\n") << r.err;
  r = pool.as("alice", {"q", "-limit", "1", "-af", "ProcId", "Args"});
  EXPECT_EQ(r.out, "0 0\n") << r.err;
  // The submit event of each proc went to the log the file named.
  std::string events = read_text(log);
  EXPECT_NE(events.find("000 (001.002.000)"), std::string::npos) << events;

  // bob may not touch alice's jobs; nothing changes.
  r = pool.as("bob", {"rm", "1"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
  r = pool.as("bob", {"hold", "1.0"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(pool.as("alice", {"q", "-af", "JobStatus"}).out, "1\n1\n1\n");

  // alice holds her job with a reason, as condor_hold says it; releases it; changes its prio.
  r = pool.as("alice", {"hold", "-reason", "waiting for input data", "1.0"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Job 1.0 held\n");
  r = pool.as("alice", {"q", "1.0", "-af", "JobStatus", "HoldReasonCode", "HoldReason"});
  EXPECT_EQ(r.out, "5 1 waiting for input data (by user alice)\n");
  EXPECT_NE(read_text(log).find("012 (001.000.000)"), std::string::npos);
  r = pool.as("alice", {"release", "1"});
  EXPECT_EQ(r.out, "All jobs in cluster 1 have been released\n");
  EXPECT_EQ(pool.as("alice", {"q", "1.0", "-af", "JobStatus"}).out, "1\n");
  EXPECT_EQ(pool.as("alice", {"prio", "-p", "5", "1.1"}).out, "");
  EXPECT_EQ(pool.as("alice", {"prio", "+3", "1.1"}).status, 0);
  EXPECT_EQ(pool.as("alice", {"q", "1.1", "-af", "JobPrio"}).out, "8\n");

  // A job id that does not exist, as condor_rm/condor_hold report it.
  r = pool.as("alice", {"rm", "99"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "\nCouldn't find/remove all jobs in cluster 99\n");
  r = pool.as("alice", {"hold", "99.0"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "\nJob 99.0 not found\n");

  // An admin acts on anybody's jobs; removed jobs go to the history.
  r = pool.as("root-admin", {"rm", "1.2"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Job 1.2 marked for removal\n");
  r = pool.as("alice", {"rm", "-all"});
  EXPECT_EQ(r.out, "All jobs have been marked for removal\n");
  EXPECT_EQ(pool.as("alice", {"q", "-allusers", "-af", "ProcId"}).out, "");
  r = pool.as("bob", {"history", "-af", "ProcId", "JobStatus", "RemoveReason"});
  EXPECT_EQ(r.out,
            "1 3 via condor_rm (by user alice)\n0 3 via condor_rm (by user alice)\n"
            "2 3 via condor_rm (by user root-admin)\n")
      << r.err;
  r = pool.as("bob", {"history", "-limit", "1", "-af", "ProcId"});
  EXPECT_EQ(r.out, "1\n");
}

// The recorded condor_hold/release/rm/prio outputs (tests/data/queue/observed, copies of the
// reference's), each rebuilt with the job ids it names: what the tool prints on stdout and
// stderr together, byte for byte, after the file's "$ command" line.
std::string recorded(const char* name) {
  std::string text = read_text(std::string(KITE_SOURCE_DIR "/tests/data/queue/observed/") + name);
  EXPECT_FALSE(text.empty()) << name;
  return text.substr(text.find('\n') + 1);
}

TEST(CmQueue, ToolMessagesAreTheRecordedOnes) {
  REQUIRE_CM();
  Pool pool;
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  // Clusters 1 to 7 as in the recording: 5 and 6 have two jobs, the others one.
  for (int c = 1; c <= 7; ++c) {
    std::string sub = submit_file(
        pool, "c" + std::to_string(c) + ".sub",
        std::string("executable = /bin/true\nqueue ") + (c == 5 || c == 6 ? "2" : "1") + "\n");
    CmdResult r = pool.as("alice", {"submit", sub});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_NE(r.out.find(" submitted to cluster " + std::to_string(c) + "."), std::string::npos);
  }
  struct Case {
    const char* file;
    std::vector<std::string> args;
    int status;
  };
  const Case cases[] = {
      {"condor_hold.txt", {"hold", "-reason", "waiting for input data", "3.0"}, 0},
      {"condor_hold.noreason.txt", {"hold", "6.1"}, 0},
      {"condor_hold.cluster.txt", {"hold", "7"}, 0},
      {"condor_hold.nonexistent.txt", {"hold", "99.0"}, 1},
      {"condor_release.single.txt", {"release", "6.1"}, 0},
      {"condor_release.txt", {"release", "3"}, 0},
      {"condor_prio.txt", {"prio", "-p", "5", "5.0"}, 0},
      {"condor_prio.relative.txt", {"prio", "+3", "7"}, 0},
      {"condor_rm.single.txt", {"rm", "5.1"}, 0},
      {"condor_rm.txt", {"rm", "4"}, 0},
      {"condor_rm.nonexistent.txt", {"rm", "99"}, 1},
      {"condor_rm.all.txt", {"rm", "-all"}, 0},
  };
  for (const Case& c : cases) {
    CmdResult r = pool.as("alice", c.args);
    EXPECT_EQ(r.status, c.status) << c.file;
    EXPECT_EQ(r.out + r.err, recorded(c.file)) << c.file;
  }
  EXPECT_EQ(pool.as("alice", {"q", "-af", "ProcId"}).out, "");
}

TEST(CmQueue, SubmitRequirementsRefuseAndTransformsSet) {
  REQUIRE_CM();
  Pool pool(
      "SUBMIT_REQUIREMENT_NAMES = MinimalRequestMemory\n"
      "SUBMIT_REQUIREMENT_MinimalRequestMemory = RequestMemory >= 64\n"
      "SUBMIT_REQUIREMENT_MinimalRequestMemory_REASON = strcat(\"The job only requested \", "
      "RequestMemory, \" Megabytes.\")\n"
      "JOB_TRANSFORM_NAMES = Tag\n"
      "JOB_TRANSFORM_Tag @=end\n"
      "  REQUIREMENTS JobUniverse == 5\n"
      "  SET ProjectName = \"physics\"\n"
      "  EVALSET DoubleMem = RequestMemory * 2\n"
      "@end\n");
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  std::string small =
      submit_file(pool, "small.sub", "executable = /bin/true\nrequest_memory = 10\nqueue\n");
  CmdResult r = pool.as("alice", {"submit", small});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("ERROR: Failed to commit job submission into the queue."), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("The job only requested 10 Megabytes."), std::string::npos) << r.err;
  EXPECT_EQ(pool.as("alice", {"q", "-af", "ProcId"}).out, "");

  std::string ok = submit_file(
      pool, "ok.sub",
      "executable = /bin/true\nrequest_memory = 100\narguments = $(Process)\nqueue 2\n");
  r = pool.as("alice", {"submit", ok});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Submitting job(s)..\n2 job(s) submitted to cluster 1.\n");
  r = pool.as("alice", {"q", "-af", "ProcId", "ProjectName", "DoubleMem", "Args"});
  EXPECT_EQ(r.out, "0 physics 200 0\n1 physics 200 1\n");
}

TEST(CmQueue, AnAcknowledgedSubmitSurvivesKill9OfTheCm) {
  REQUIRE_CM();
  Pool pool;
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  std::string sub = submit_file(pool, "k.sub", "executable = /bin/true\nqueue 5\n");
  CmdResult r = pool.as("alice", {"submit", sub});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_NE(r.out.find("5 job(s) submitted to cluster 1."), std::string::npos);
  pool.kill_cm();  // right after the acknowledgement
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  r = pool.as("alice", {"q", "-af", "ClusterId", "ProcId", "Owner"});
  EXPECT_EQ(r.out, "1 0 alice\n1 1 alice\n1 2 alice\n1 3 alice\n1 4 alice\n") << r.err;
  // The next cluster is numbered after the reloaded one.
  r = pool.as("alice", {"submit", sub});
  EXPECT_NE(r.out.find("5 job(s) submitted to cluster 2."), std::string::npos) << r.out;
}

TEST(CmQueue, ClusterInTheSubmitFileIsTheIdTheCmAssigns) {
  REQUIRE_CM();
  Pool pool;
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  std::string sub = submit_file(pool, "c.sub",
                                "executable = /bin/true\noutput = out.$(Cluster).$(Process)\n"
                                "error = err.$(ClusterId).$(ProcId)\nqueue 2\n");
  CmdResult r = pool.as("alice", {"submit", sub});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Submitting job(s)..\n2 job(s) submitted to cluster 1.\n");
  r = pool.as("bob", {"submit", sub});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Submitting job(s)..\n2 job(s) submitted to cluster 2.\n");
  r = pool.as("bob", {"q", "-allusers", "-af", "ClusterId", "ProcId", "Out", "Err"});
  EXPECT_EQ(r.out,
            "1 0 out.1.0 err.1.0\n1 1 out.1.1 err.1.1\n2 0 out.2.0 err.2.0\n2 1 out.2.1 err.2.1\n")
      << r.err;
  // A submit file that fails to expand gives its reserved id back: the next submit takes it.
  std::string bad = submit_file(pool, "bad.sub", "executable = /bin/true\nqueue 2 in (\n");
  r = pool.as("alice", {"submit", bad});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("ERROR:"), std::string::npos) << r.err;
  r = pool.as("alice", {"submit", sub});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Submitting job(s)..\n2 job(s) submitted to cluster 3.\n");
  EXPECT_EQ(pool.as("alice", {"q", "3", "-af", "Out"}).out, "out.3.0\nout.3.1\n");
}

// The output without its "-- Schedd: ..."/"-- Jobads: ..." title and its "Total for all
// users" line (a file has no such counts): what a projection must leave unchanged.
std::string body(const std::string& out) {
  std::string kept;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("-- ", 0) == 0 || line.rfind("Total for all users", 0) == 0) continue;
    // The query line ends in blanks where the all-users counts would follow.
    if (line.rfind("Total for query", 0) == 0) line.erase(line.find_last_not_of(' ') + 1);
    kept += line + "\n";
  }
  return kept;
}

TEST(CmQueue, ProjectedQueriesPrintWhatWholeAdsPrint) {
  REQUIRE_CM();
  Pool pool;
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  std::string sub = submit_file(
      pool, "p.sub",
      "executable = /bin/sleep\narguments = $(Process)\n+ResidentSetSize = 4096 * (1 + "
      "$(Process))\n+MemoryUsage = ((ResidentSetSize + 1023) / 1024)\npriority = 3\nqueue 3\n"
      "batch_name = nightly\ndescription = the nightly run\nqueue 2\n");
  ASSERT_EQ(pool.as("alice", {"submit", sub}).status, 0);
  ASSERT_EQ(pool.as("bob", {"submit", sub}).status, 0);
  ASSERT_EQ(pool.as("alice", {"hold", "-reason", "checking", "1.1"}).status, 0);
  // The whole ads, as -l prints them, read back with -jobads: the output of whole ads.
  CmdResult whole = pool.as("root-admin", {"q", "-allusers", "-l"});
  ASSERT_EQ(whole.status, 0) << whole.err;
  std::string file = pool.pki().dir + "/all.ads", err;
  ASSERT_TRUE(core::write_file_atomic(file, whole.out, 0644, &err)) << err;
  std::vector<std::vector<std::string>> views = {
      {},
      {"-nobatch"},
      {"-hold"},
      {"-run"},
      {"-totals"},
      {"-af", "ClusterId", "ProcId", "Owner", "JobStatus"},
      {"-af:jh", "MemoryUsage * 2", "Cmd", "JobBatchName"},
      {"-constraint", "JobStatus == 1", "-nobatch"},
      {"-constraint", "MemoryUsage > 5", "-totals"},
      {"1", "-totals"},
      {"2.1", "-nobatch"},
      {"bob", "-af", "Args"},
  };
  for (const auto& v : views) {
    std::vector<std::string> remote = {"q", "-allusers"}, local = {"q", "-jobads", file};
    remote.insert(remote.end(), v.begin(), v.end());
    local.insert(local.end(), v.begin(), v.end());
    CmdResult r = pool.as("root-admin", remote), l = pool.as("root-admin", local);
    std::string what = remote.size() > 2 ? remote[2] + " " + remote.back() : "(default)";
    EXPECT_EQ(r.status, 0) << what << ": " << r.err;
    EXPECT_NE(r.out, "") << what;
    EXPECT_EQ(body(r.out), body(l.out)) << what << "\n--- remote:\n"
                                        << r.out << "--- file:\n"
                                        << l.out;
  }
  // The counts the CM keeps agree with the ads: 10 jobs, one held.
  CmdResult t = pool.as("root-admin", {"q", "-allusers", "-totals"});
  EXPECT_NE(t.out.find("Total for query: 10 jobs; 0 completed, 0 removed, 9 idle, 0 running, 1 "
                       "held, 0 suspended"),
            std::string::npos)
      << t.out;
}

TEST(CmQueue, PeriodicPolicyRunsOnTheCm) {
  REQUIRE_CM();
  Pool pool(
      "PERIODIC_EXPR_INTERVAL = 1\nSYSTEM_PERIODIC_REMOVE = JobStatus == 5 && HoldReasonCode == 3 "
      "&& HoldReasonSubCode == 7");
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  std::string sub = submit_file(pool, "p.sub",
                                "executable = /bin/true\nperiodic_hold = true\nqueue\n"
                                "+PeriodicHoldSubCode = 7\n"
                                "periodic_hold = ProcId == 1\nqueue\n");
  CmdResult r = pool.as("alice", {"submit", sub});
  ASSERT_EQ(r.status, 0) << r.err;
  // 1.0 is held by its own periodic_hold (code 3, the schedd's reason)...
  EXPECT_TRUE(eventually(
      [&] {
        return pool.as("alice", {"q", "1.0", "-af", "JobStatus", "HoldReasonCode"}).out == "5 3\n";
      },
      20000))
      << pool.cm_log();
  r = pool.as("alice", {"q", "1.0", "-af", "HoldReason"});
  EXPECT_EQ(r.out, "The job attribute PeriodicHold expression 'true' evaluated to TRUE\n");
  // ...and 1.1, held with subcode 7, is then removed by SYSTEM_PERIODIC_REMOVE.
  EXPECT_TRUE(eventually(
      [&] {
        return pool.as("bob", {"history", "-af", "ClusterId", "ProcId"}).out == "1 1\n";
      },
      20000))
      << pool.cm_log();
}

// A client of its own that sends the first frames of a 10,000-proc submit, then hangs up.
struct PartialSubmit : net::NetClientHandler {
  int sent = 0;
  void on_connected(net::NetClient* c) override {
    for (int f = 0; f < 3; ++f) {
      core::Json m = core::Json::message("submit");
      if (f == 0) {
        core::Json cluster = core::Json::object();
        cluster.set("Cmd", "\"/bin/true\"");
        cluster.set("JobUniverse", "5");
        m.set_json("cluster", std::move(cluster));
      }
      cJSON* procs = cJSON_CreateArray();
      for (int i = 0; i < 3000; ++i) {
        cJSON* p = cJSON_CreateObject();
        int id = f * 3000 + i;
        cJSON_AddStringToObject(p, "ProcId", std::to_string(id).c_str());
        cJSON_AddStringToObject(p, "Args", ("\"" + std::to_string(id) + "\"").c_str());
        cJSON_AddItemToArray(procs, p);
      }
      m.set_json("procs", core::Json(procs));
      m.set_bool("more", true);  // 1,000 procs still to come
      c->send(m);
      ++sent;
    }
  }
  bool on_frame(net::NetClient*, core::Json&) override { return true; }
  void on_disconnected(net::NetClient*, const std::string&) override {}
};

TEST(CmQueue, AClientGoneMidSubmitCommitsNothing) {
  REQUIRE_CM();
  Pool pool;
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  uv_loop_t loop;
  uv_loop_init(&loop);
  auto tls = pool.pki().context(net::TlsContext::Role::kClient, "alice");
  ASSERT_TRUE(tls);
  {
    PartialSubmit h;
    net::ClientOptions o;
    o.host = "127.0.0.1";
    o.port = pool.port();
    net::NetClient client(&loop, tls.get(), &h, o);
    client.start();
    ASSERT_TRUE(run_until(
        &loop, [&] { return h.sent == 3; }, 20000));
    // Hang up once the CM holds the procs (it logs what it drops when the client goes).
    run_until(
        &loop, [] { return false; }, 300);
    client.stop();
    run_until(
        &loop, [] { return false; }, 100);
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  uv_loop_close(&loop);
  EXPECT_TRUE(eventually(
      [&] {
        return pool.cm_log().find("disconnected mid-submit; 9000 proc(s) dropped") !=
               std::string::npos;
      },
      20000))
      << pool.cm_log();
  EXPECT_EQ(pool.as("alice", {"q", "-allusers", "-af", "ProcId"}).out, "");
  // A whole submit after it is cluster 1: the cut-off one took no number.
  std::string sub = submit_file(pool, "one.sub", "executable = /bin/true\nqueue\n");
  EXPECT_NE(pool.as("alice", {"submit", sub}).out.find("submitted to cluster 1."),
            std::string::npos);
}

TEST(CmQueue, TenThousandProcsInOneChunkedSubmit) {
  REQUIRE_CM();
  Pool pool;
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  std::string sub =
      submit_file(pool, "big.sub", "executable = /bin/true\narguments = $(Process)\nqueue 10000\n");
  CmdResult r = pool.as("alice", {"submit", sub}, 120000);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("10000 job(s) submitted to cluster 1."), std::string::npos);
  r = pool.as("alice", {"q", "-totals"}, 120000);
  EXPECT_NE(r.out.find("Total for query: 10000 jobs; 0 completed, 0 removed, 10000 idle"),
            std::string::npos)
      << r.out << r.err << pool.cm_log();
  r = pool.as("alice", {"q", "1.9999", "-af", "Args"});
  EXPECT_EQ(r.out, "9999\n");
}

}  // namespace
}  // namespace kite::test
