// Integration tests of the fetch-work job hooks and the backfill client in the running agent:
// a hook that supplies a job, one that hangs, one that prints garbage; a backfill client that
// a local run evicts (its process and cgroup gone).
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "agent/core/files.h"
#include "agent_harness.h"

namespace kite::test {
namespace {

// Writes an executable shell script `name` in `dir`; returns its path.
std::string script(const std::string& dir, const std::string& name, const std::string& body) {
  std::string path = dir + "/" + name, err;
  EXPECT_TRUE(core::write_file_atomic(path, "#!/bin/sh\n" + body, 0755, &err)) << err;
  return path;
}

// A directory the slot user (nobody) may write to, removed at the end.
struct SharedDir {
  std::string path;
  SharedDir() {
    char tmpl[] = "/tmp/kite-hooks-XXXXXX";
    if (mkdtemp(tmpl)) path = tmpl;
    ::chmod(path.c_str(), 0777);
  }
  ~SharedDir() {
    std::string err;
    core::remove_tree(path, &err);
  }
};

int lines(const std::string& path) {
  std::string t = read_text(path);
  int n = 0;
  for (char c : t) n += c == '\n';
  return n;
}

bool alive(pid_t pid) {
  return pid > 0 && ::kill(pid, 0) == 0;
}

// The directories of cgroup `name` under the agent's base, in whichever hierarchies exist.
std::vector<std::string> cgroup_dirs(const TestAgent& a, const std::string& name) {
  std::vector<std::string> found;
  for (const char* h :
       {"", "unified", "pids", "memory", "cpu", "cpuacct", "cpu,cpuacct", "freezer", "cpuset"}) {
    std::string d =
        std::string("/sys/fs/cgroup/") + h + (*h ? "/" : "") + a.cgroup_base() + "/" + name;
    struct stat st {};
    if (::stat(d.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) found.push_back(d);
  }
  return found;
}

// Shell lines printing a fetched job's ad: /bin/sh writing `word` to `file`, owned by `owner`.
std::string print_job(const std::string& owner, const std::string& word, const std::string& file) {
  return "echo 'Cmd = \"/bin/sh\"'\n"
         "echo \"Arguments = \\\"-c 'echo " +
         word + " > " + file +
         "'\\\"\"\n"
         "echo 'Owner = \"" +
         owner + "\"'\n";
}

std::string hooks_config(const std::string& fetch, const std::string& more) {
  return "STARTD_JOB_HOOK_KEYWORD = KT\n"
         "KT_HOOK_FETCH_WORK = " +
         fetch + "\n" + more;
}

TEST(AgentHooks, FetchedJobRunsToCompletionAndTheReplyHookHearsAccept) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  SharedDir out;
  ASSERT_FALSE(out.path.empty());
  const std::string& d = a.dir();
  // One job, then no more work.
  // The slot ad is written aside and renamed: a later fetch never leaves it half written.
  std::string fetch =
      script(d, "fetch.sh",
             "cat > " + d + "/slot.ad.new && mv " + d + "/slot.ad.new " + d +
                 "/slot.ad\n"
                 "[ -e " +
                 d +
                 "/fetched ] && exit 0\n"
                 "touch " +
                 d + "/fetched\n" + print_job("alice", "done", out.path + "/job.out"));
  std::string reply =
      script(d, "reply.sh", "cat > " + d + "/reply.in\necho \"$1\" >> " + d + "/reply.log\n");
  std::string evict = script(d, "evict.sh", "cat > " + d + "/evict.in\n");
  std::string err;
  ASSERT_TRUE(a.start(hooks_config(fetch, "KT_HOOK_REPLY_FETCH = " + reply +
                                              "\n"
                                              "KT_HOOK_EVICT_CLAIM = " +
                                              evict +
                                              "\n"
                                              "FetchWorkDelay = ifThenElse(State == \"Claimed\" "
                                              "&& Activity == \"Idle\", 0, 1)\n"),
                      &err))
      << err;
  ASSERT_TRUE(eventually([&] { return read_text(out.path + "/job.out") == "done\n"; }, 20000))
      << a.log();
  ASSERT_TRUE(eventually([&] { return lines(d + "/reply.log") >= 1; }, 10000)) << a.log();
  EXPECT_EQ(read_text(d + "/reply.log"), "accept\n");
  // The hooks' input: the slot ad; the job ad (with HookKeyword) and the slot ad after -----.
  EXPECT_NE(read_text(d + "/slot.ad").find("SlotID = 1"), std::string::npos);
  std::string in = read_text(d + "/reply.in");
  EXPECT_NE(in.find("HookKeyword = \"KT\""), std::string::npos) << in;
  EXPECT_NE(in.find("-----\n"), std::string::npos) << in;
  // No more work: the fetched claim is evicted and the evict-claim hook hears of it.
  ASSERT_TRUE(eventually([&] { return !read_text(d + "/evict.in").empty(); }, 10000)) << a.log();
  EXPECT_NE(read_text(d + "/evict.in").find("Cmd = \"/bin/sh\""), std::string::npos);
  ASSERT_TRUE(eventually([&] { return a.slot_state("slot1") == "Unclaimed/Idle"; }, 10000))
      << a.log();
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentHooks, FetchedJobWithHigherRankPreemptsTheRunningJob) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  SharedDir out;
  ASSERT_FALSE(out.path.empty());
  const std::string& d = a.dir();
  // The hook starts while the slot is idle and answers only once the test says so (the slot
  // is busy by then): one job the machine RANKs above the running one, then no more work.
  std::string fetch = script(d, "fetch.sh",
                             "cat > /dev/null\n"
                             "[ -e " +
                                 d +
                                 "/fetched ] && exit 0\n"
                                 "i=0; while [ ! -e " +
                                 d +
                                 "/go ] && [ $i -lt 300 ]; do "
                                 "sleep 0.1; i=$((i+1)); done\n"
                                 "touch " +
                                 d + "/fetched\n" + print_job("vip", "vip", out.path + "/job.out"));
  std::string reply =
      script(d, "reply.sh", "cat > /dev/null\necho \"$1\" >> " + d + "/reply.log\n");
  std::string evict = script(d, "evict.sh", "cat > " + d + "/evict.in\n");
  std::string err;
  ASSERT_TRUE(a.start(hooks_config(fetch, "KT_HOOK_REPLY_FETCH = " + reply +
                                              "\n"
                                              "KT_HOOK_EVICT_CLAIM = " +
                                              evict +
                                              "\n"
                                              "NUM_SLOTS = 1\n"
                                              "RANK = (TARGET.Owner =?= \"vip\") * 10\n"
                                              "FetchWorkDelay = 1\n"),
                      &err))
      << err;
  // The hook is running (the slot was idle); a local run takes the slot meanwhile.
  pid_t run = a.run_bg({"--", "/bin/sleep", "47.5"}, d + "/run.out");
  ASSERT_TRUE(eventually([&] { return a.slot_state("slot1") == "Claimed/Busy"; }, 10000))
      << a.log();
  ASSERT_TRUE(eventually([&] { return !pids_running("/bin/sleep 47.5").empty(); }, 10000));
  ASSERT_TRUE(core::write_file_atomic(d + "/go", "", 0644, &err)) << err;
  // RANK 10 beats the local run's 0: the reply says accept, the running job is evicted and
  // the fetched one runs on its own claim.
  ASSERT_TRUE(eventually([&] { return read_text(out.path + "/job.out") == "vip\n"; }, 20000))
      << read_text(d + "/reply.log") << a.log();
  EXPECT_EQ(read_text(d + "/reply.log").substr(0, 7), "accept\n");
  EXPECT_NE(wait_bg(run, 20000), 0);  // the local run was preempted, not completed
  EXPECT_TRUE(pids_running("/bin/sleep 47.5").empty());
  EXPECT_NE(a.log().find("preempts the running one by RANK"), std::string::npos) << a.log();
  // No more work: the fetched claim ends, and its evict-claim hook hears of its own job.
  ASSERT_TRUE(eventually([&] { return !read_text(d + "/evict.in").empty(); }, 10000)) << a.log();
  EXPECT_NE(read_text(d + "/evict.in").find("Owner = \"vip\""), std::string::npos)
      << read_text(d + "/evict.in");
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentHooks, HangingFetchHookIsKilledAtItsTimeLimit) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  const std::string& d = a.dir();
  std::string fetch = script(d, "hang.sh", "echo $$ >> " + d + "/pids\nexec sleep 1000\n");
  std::string err;
  ASSERT_TRUE(
      a.start(hooks_config(fetch, "KT_HOOK_FETCH_WORK_TIMEOUT = 1\nFetchWorkDelay = 1\n"), &err))
      << err;
  ASSERT_TRUE(eventually([&] { return lines(d + "/pids") >= 1; }, 10000)) << a.log();
  pid_t first = static_cast<pid_t>(std::atoi(read_text(d + "/pids").c_str()));
  ASSERT_TRUE(eventually([&] { return !alive(first); }, 5000)) << a.log();
  std::string line =
      "fetch-work hook " + fetch + " (slot1): still running after its time limit: killed";
  // (logged once the loop has reaped it and closed its pipes)
  EXPECT_TRUE(eventually([&] { return a.log().find(line) != std::string::npos; }, 5000)) << a.log();
  // The loop goes on: the slot answers and the hook is asked again.
  EXPECT_EQ(a.slot_state("slot1"), "Unclaimed/Idle");
  ASSERT_TRUE(eventually([&] { return lines(d + "/pids") >= 2; }, 10000)) << a.log();
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentHooks, GarbageFromTheFetchHookIsLoggedAndIgnored) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  const std::string& d = a.dir();
  std::string fetch =
      script(d, "garbage.sh", "echo x >> " + d + "/runs\necho 'this is ] not [ a job ad'\n");
  std::string err;
  ASSERT_TRUE(a.start(hooks_config(fetch, "FetchWorkDelay = 1\n"), &err)) << err;
  ASSERT_TRUE(eventually([&] { return lines(d + "/runs") >= 2; }, 10000)) << a.log();
  EXPECT_NE(a.log().find("fetch-work hook " + fetch + " (slot1): output is not a job ClassAd"),
            std::string::npos)
      << a.log();
  EXPECT_EQ(a.slot_state("slot1"), "Unclaimed/Idle");
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentHooks, LocalRunEvictsTheBackfillClientAndItsCgroup) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  SharedDir d;  // the client runs as SLOT_USER (nobody)
  ASSERT_FALSE(d.path.empty());
  std::string client =
      script(d.path, "backfill.sh", "echo $$ > " + d.path + "/bf.pid\nexec sleep 1000\n");
  std::string err;
  ASSERT_TRUE(
      // Backfill runs on static slots (the default layout is one partitionable slot).
      a.start("NUM_SLOTS = 1\n"
              "ENABLE_BACKFILL = True\n"
              "BACKFILL_SYSTEM = KITE\n"
              "KITE_BACKFILL_COMMAND = " +
                  client + "\nKITE_BACKFILL_CWD = " + d.path +
                  "\n"
                  "START_BACKFILL = True\n"
                  "LOCAL_CLAIM_IDLE_TIME = 600\n",
              &err))
      << err;
  ASSERT_TRUE(eventually([&] { return a.slot_state("slot1") == "Backfill/Busy"; }, 10000))
      << a.log();
  ASSERT_TRUE(eventually([&] { return !read_text(d.path + "/bf.pid").empty(); }, 10000)) << a.log();
  pid_t bf = static_cast<pid_t>(std::atoi(read_text(d.path + "/bf.pid").c_str()));
  ASSERT_TRUE(alive(bf));
  struct passwd* nobody = getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  std::string status = read_text("/proc/" + std::to_string(bf) + "/status");
  EXPECT_NE(status.find("Uid:\t" + std::to_string(nobody->pw_uid) + "\t"), std::string::npos)
      << status;
  std::vector<std::string> cg = cgroup_dirs(a, "backfill");
  bool confined = false;
  for (const std::string& dir : cg) {
    std::string procs = read_text(dir + "/cgroup.procs");
    if (procs.find(std::to_string(bf) + "\n") != std::string::npos) confined = true;
  }
  EXPECT_TRUE(confined) << "backfill pid " << bf << " in none of " << cg.size() << " cgroups";
  // A real claim: the client goes, then the job runs.
  CmdResult r = a.kite({"run", "--local", "--json", "--", "/bin/sh", "-c", "echo hello"}, 60000);
  core::Json ex = exit_json(r.out);
  ASSERT_TRUE(ex) << r.out << r.err << a.log();
  EXPECT_EQ(ex.str("outcome"), "exit") << r.out;
  EXPECT_EQ(ex.num("ExitCode"), 0) << r.out;
  EXPECT_FALSE(alive(bf)) << a.log();
  EXPECT_TRUE(cgroup_dirs(a, "backfill").empty()) << a.log();
  EXPECT_NE(a.log().find("backfill client killed"), std::string::npos) << a.log();
  EXPECT_EQ(a.slot_state("slot1"), "Claimed/Idle");
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentHooks, BackfillClientNeverRunsAsRootAndAFailedStartDoesNotSpin) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  SharedDir d;
  ASSERT_FALSE(d.path.empty());
  std::string client =
      script(d.path, "backfill.sh", "echo $$ >> " + d.path + "/starts\nexec sleep 1000\n");
  std::string err;
  ASSERT_TRUE(
      a.start("NUM_SLOTS = 1\n"
              "ENABLE_BACKFILL = True\n"
              "BACKFILL_SYSTEM = KITE\n"
              "KITE_BACKFILL_COMMAND = " +
                  client + "\nKITE_BACKFILL_CWD = " + d.path +
                  "\n"
                  "KITE_BACKFILL_USER = root\n"
                  "START_BACKFILL = True\n",
              &err))
      << err;
  std::string line = "backfill client: account 'root' is root and ALLOW_ROOT_JOBS is false";
  ASSERT_TRUE(eventually([&] { return a.log().find(line) != std::string::npos; }, 10000))
      << a.log();
  // The next try waits 30 s: within the next 3 s there is no second attempt.
  ASSERT_TRUE(eventually(
      [&] {
        return a.log().find("not started again") != std::string::npos ||
               a.log().find("starting in") != std::string::npos;
      },
      5000))
      << a.log();
  std::string log = a.log();
  size_t n = 0;
  for (size_t at = log.find(line); at != std::string::npos; at = log.find(line, at + 1)) ++n;
  EXPECT_EQ(n, 1u) << log;
  EXPECT_EQ(read_text(d.path + "/starts"), "");
  EXPECT_EQ(a.stop(), 0) << a.log();
}

}  // namespace
}  // namespace kite::test
