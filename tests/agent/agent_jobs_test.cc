// Integration tests of jobs under the running agent's policy: memory and pids limits,
// suspension, vacate with the job's KillSig then SIGKILL, retirement, hard kills of whole
// process trees, and re-adoption of running jobs after the agent is killed.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include "agent/core/frame.h"
#include "agent_harness.h"

namespace kite::test {
namespace {

// The job cgroup's file in whichever hierarchy has it ("" when none).
std::string cgroup_file(const TestAgent& a, const std::string& slot, const char* v1_ctl,
                        const char* file) {
  for (std::string base : {std::string("/sys/fs/cgroup/") + v1_ctl,
                           std::string("/sys/fs/cgroup/unified"), std::string("/sys/fs/cgroup")}) {
    std::string p = base + "/" + a.cgroup_base() + "/" + slot + "/" + file;
    if (access(p.c_str(), F_OK) == 0) return p;
  }
  return "";
}

bool job_frozen(const TestAgent& a, const std::string& slot) {
  std::string ev = cgroup_file(a, slot, "freezer", "cgroup.events");
  if (!ev.empty() && read_text(ev).find("frozen 1") != std::string::npos) return true;
  std::string st = cgroup_file(a, slot, "freezer", "freezer.state");
  return !st.empty() && read_text(st).rfind("FROZEN", 0) == 0;
}

TEST(AgentJobs, MemoryHogIsKilledAndHeldForMemory) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(a.start("CGROUP_MEMORY_LIMIT_POLICY = hard\n", &err)) << err;
  CmdResult r = a.kite({"run", "--local", "--json", "--memory", "64", "--", "/usr/bin/perl", "-e",
                        "my $x = 'a' x (400*1024*1024); sleep 5"},
                       60000);
  core::Json ex = exit_json(r.out);
  ASSERT_TRUE(ex) << r.out << r.err << a.log();
  if (ex.str("outcome") == "exit" && ex.num("ExitCode") == 0)
    GTEST_SKIP() << "the kernel did not enforce the memory limit here";
  EXPECT_EQ(ex.str("outcome"), "hold") << r.out;
  EXPECT_EQ(ex.num("HoldReasonCode"), 34) << r.out;
  EXPECT_NE(ex.str("HoldReason").find("memory"), std::string::npos) << r.out;
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentJobs, ForkBombIsContainedByThePidsLimit) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(a.start("JOB_PIDS_LIMIT = 40\n", &err)) << err;
  // 300 background sleeps, each a fork; the marker names them for the sweep afterwards.
  // The forking subshell gives up when fork fails; the job itself then waits without forking.
  pid_t run = a.run_bg({"--", "/bin/sh", "-c",
                        "(i=0; while [ $i -lt 300 ]; do /bin/sleep 37.25 & i=$((i+1)); done) "
                        "2>/dev/null; exec /bin/sleep 3"},
                       a.dir() + "/bomb.out");
  std::string pids_file;
  ASSERT_TRUE(eventually(
      [&] { return !(pids_file = cgroup_file(a, "slot1_1", "pids", "pids.current")).empty(); },
      10000))
      << a.log();
  int64_t peak = 0;
  for (int i = 0; i < 50; ++i) {
    peak = std::max<int64_t>(peak, std::atoll(read_text(pids_file).c_str()));
    usleep(20000);
  }
  EXPECT_LE(peak, 40);
  EXPECT_GE(peak, 30);
  EXPECT_LE(pids_running("/bin/sleep 37.25").size(), 40u);
  // The job's main process ends (its shell gives up when fork fails); whatever it left
  // behind goes with it.
  EXPECT_NE(wait_bg(run, 30000), -1) << read_text(a.dir() + "/bomb.out");
  EXPECT_TRUE(eventually([] { return pids_running("/bin/sleep 37.25").empty(); }, 10000));
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentJobs, SuspendFreezesAndContinueThaws) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(
      a.start("WANT_SUSPEND = True\n"
              "SUSPEND = (KiteTestSuspend =?= True)\n"
              "CONTINUE = (KiteTestSuspend =!= True)\n",
              &err))
      << err;
  pid_t run = a.run_bg({"--", "/bin/sleep", "33.5"}, a.dir() + "/run.out");
  ASSERT_TRUE(eventually([&] { return !pids_running("/bin/sleep 33.5").empty(); }, 10000))
      << a.log();
  ASSERT_EQ(a.kite({"set", "--local", "KiteTestSuspend=True"}).status, 0);
  EXPECT_TRUE(eventually([&] { return job_frozen(a, "slot1_1"); }, 5000)) << a.log();
  EXPECT_EQ(a.slot_state("slot1_1"), "Claimed/Suspended");
  ASSERT_EQ(a.kite({"set", "--local", "KiteTestSuspend=False"}).status, 0);
  EXPECT_TRUE(eventually([&] { return !job_frozen(a, "slot1_1"); }, 5000)) << a.log();
  EXPECT_EQ(a.slot_state("slot1_1"), "Claimed/Busy");
  ASSERT_EQ(a.kite({"vacate", "--local", "-fast"}).status, 0);
  EXPECT_EQ(wait_bg(run, 20000), 1);
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentJobs, PreemptVacatesWithKillSigThenKillsAfterTheVacateTime) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(
      a.start("PREEMPT = (KiteTestPreempt =?= True)\n"
              "WANT_VACATE = True\n"
              "MAXJOBRETIREMENTTIME = 0\n"
              "MachineMaxVacateTime = 2\n",
              &err))
      << err;
  std::string out = a.dir() + "/run.out";
  pid_t run = a.run_bg({"-a", "KillSig = \"SIGUSR1\"", "--", "/bin/sh", "-c",
                        "trap 'echo got-USR1' USR1; while :; do sleep 0.113; done"},
                       out);
  ASSERT_TRUE(eventually([&] { return a.slot_state("slot1_1") == "Claimed/Busy"; }, 10000))
      << a.log();
  // The loop's sleeps show the shell has installed its trap.
  ASSERT_TRUE(eventually([] { return !pids_running("sleep 0.113").empty(); }, 10000)) << a.log();
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(a.kite({"set", "--local", "KiteTestPreempt=True"}).status, 0);
  EXPECT_EQ(wait_bg(run, 20000), 1);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  core::Json ex = exit_json(read_text(out));
  ASSERT_TRUE(ex) << read_text(out);
  EXPECT_EQ(ex.str("outcome"), "evict");
  EXPECT_NE(ex.str("stdout").find("got-USR1"), std::string::npos) << read_text(out);
  EXPECT_TRUE(ex.flag("ExitBySignal"));
  EXPECT_EQ(ex.num("ExitSignal"), SIGKILL);
  // MachineMaxVacateTime of grace first; the core counts whole seconds, so the kill comes
  // between 1 and 2 s after a preemption in the middle of a second.
  EXPECT_GE(secs, 0.95);
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentJobs, RetirementLetsTheJobFinish) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  // The soft kill comes MachineMaxVacateTime before the end of retirement.
  ASSERT_TRUE(
      a.start("PREEMPT = (KiteTestPreempt =?= True)\n"
              "MAXJOBRETIREMENTTIME = 30\n"
              "MachineMaxVacateTime = 1\n",
              &err))
      << err;
  std::string out = a.dir() + "/run.out";
  pid_t run = a.run_bg({"--", "/bin/sh", "-c", "sleep 5; echo finished"}, out);
  ASSERT_TRUE(eventually([&] { return a.slot_state("slot1_1") == "Claimed/Busy"; }, 10000));
  ASSERT_EQ(a.kite({"set", "--local", "KiteTestPreempt=True"}).status, 0);
  EXPECT_TRUE(eventually([&] { return a.slot_state("slot1_1") == "Claimed/Retiring"; }, 5000));
  EXPECT_EQ(wait_bg(run, 20000), 0) << read_text(out);
  core::Json ex = exit_json(read_text(out));
  EXPECT_EQ(ex.str("outcome"), "exit");
  EXPECT_EQ(ex.str("stdout"), "finished\n");
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentJobs, AssignCpuAffinityBindsJobsToDifferentCpus) {
  REQUIRE_AGENT_TESTS();
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "needs two CPUs";
  TestAgent a;
  std::string err;
  ASSERT_TRUE(a.start("ASSIGN_CPU_AFFINITY = True\nNUM_CPUS = 2\n", &err)) << err;
  const char* show = "grep Cpus_allowed_list /proc/self/status; /bin/sleep 1.5";
  pid_t r1 = a.run_bg({"--", "/bin/sh", "-c", show}, a.dir() + "/r1.out");
  pid_t r2 = a.run_bg({"--", "/bin/sh", "-c", show}, a.dir() + "/r2.out");
  ASSERT_EQ(wait_bg(r1, 20000), 0) << read_text(a.dir() + "/r1.out") << a.log();
  ASSERT_EQ(wait_bg(r2, 20000), 0) << read_text(a.dir() + "/r2.out");
  std::string o1 = exit_json(read_text(a.dir() + "/r1.out")).str("stdout");
  std::string o2 = exit_json(read_text(a.dir() + "/r2.out")).str("stdout");
  // One PU each, not the same one.
  EXPECT_EQ(o1.find(','), std::string::npos) << o1;
  EXPECT_EQ(o1.find('-'), std::string::npos) << o1;
  EXPECT_NE(o1.find("Cpus_allowed_list:"), std::string::npos) << o1;
  EXPECT_NE(o1, o2);
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentJobs, SigtermShutsDownGracefullyLettingJobsRetire) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(a.start("MAXJOBRETIREMENTTIME = 30\nMachineMaxVacateTime = 1\n", &err)) << err;
  std::string out = a.dir() + "/run.out";
  pid_t run = a.run_bg({"--", "/bin/sh", "-c", "sleep 1.5; echo retired in peace"}, out);
  ASSERT_TRUE(eventually([&] { return a.slot_state("slot1_1") == "Claimed/Busy"; }, 10000));
  ASSERT_EQ(kill(a.pid(), SIGTERM), 0);
  EXPECT_EQ(wait_bg(run, 20000), 0) << read_text(out) << a.log();
  EXPECT_EQ(exit_json(read_text(out)).str("stdout"), "retired in peace\n");
  EXPECT_EQ(a.wait_exit(15000), 0) << a.log();
  EXPECT_NE(a.log().find("shutdown complete"), std::string::npos) << a.log();
}

TEST(AgentJobs, HardKillTakesTheWholeProcessTree) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(a.start("", &err)) << err;
  pid_t run = a.run_bg({"--", "/bin/sh", "-c",
                        "setsid /bin/sh -c '/bin/sleep 41.3 & /bin/sleep 41.4' "
                        "</dev/null >/dev/null 2>&1 & /bin/sleep 41.5"},
                       a.dir() + "/run.out");
  ASSERT_TRUE(eventually(
      [] {
        return !pids_running("/bin/sleep 41.3").empty() && !pids_running("/bin/sleep 41.5").empty();
      },
      10000))
      << a.log();
  ASSERT_EQ(a.kite({"vacate", "--local", "-fast"}).status, 0);
  EXPECT_EQ(wait_bg(run, 20000), 1);
  EXPECT_TRUE(eventually(
      [] {
        return pids_running("/bin/sleep 41.3").empty() && pids_running("/bin/sleep 41.4").empty() &&
               pids_running("/bin/sleep 41.5").empty();
      },
      10000));
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentJobs, AStuckStarterIsKilledAfterKillingTimeout) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(a.start("MachineMaxVacateTime = 1\nKILLING_TIMEOUT = 2\n", &err)) << err;
  pid_t run =
      a.run_bg({"--", "/bin/sh", "-c", "trap '' TERM; /bin/sleep 43.7"}, a.dir() + "/run.out");
  ASSERT_TRUE(eventually([] { return !pids_running("/bin/sleep 43.7").empty(); }, 10000))
      << a.log();
  std::string starter = a.slot_attr("slot1_1", "StarterPid");
  ASSERT_FALSE(starter.empty());
  pid_t spid = static_cast<pid_t>(std::atol(starter.c_str()));
  ASSERT_EQ(kill(spid, SIGSTOP), 0);  // the starter can no longer act
  ASSERT_EQ(a.kite({"vacate", "--local"}).status, 0);
  EXPECT_TRUE(eventually([] { return pids_running("/bin/sleep 43.7").empty(); }, 10000)) << a.log();
  EXPECT_TRUE(eventually([&] { return a.slot_state("slot1_1").empty(); }, 5000)) << a.log();
  EXPECT_NE(a.log().find("action kill-starter"), std::string::npos) << a.log();
  EXPECT_EQ(wait_bg(run, 10000), 1);
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(AgentJobs, JobsSurviveAnAgentKillAndAreReadopted) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(a.start("", &err)) << err;
  pid_t r1 = a.run_bg({"--", "/bin/sleep", "8.137"}, a.dir() + "/r1.out");
  pid_t r2 = a.run_bg({"--", "/bin/sleep", "8.263"}, a.dir() + "/r2.out");
  ASSERT_TRUE(eventually(
      [&] {
        return a.slot_state("slot1_1") == "Claimed/Busy" &&
               a.slot_state("slot1_2") == "Claimed/Busy";
      },
      10000))
      << a.log();
  // Claimed/Busy comes with the activation; the jobs themselves start a moment later.
  auto both_jobs = [] {
    return pids_running("/bin/sleep 8.137").size() + pids_running("/bin/sleep 8.263").size();
  };
  ASSERT_TRUE(eventually([&] { return both_jobs() == 2; }, 10000)) << a.log();
  std::string start1 = a.slot_attr("slot1_1", "JobStart");
  std::string start2 = a.slot_attr("slot1_2", "JobStart");
  a.kill9();
  wait_bg(r1, 5000);  // the clients lose their agent
  wait_bg(r2, 5000);
  EXPECT_EQ(both_jobs(), 2u);
  ASSERT_TRUE(a.restart(&err)) << err;
  EXPECT_EQ(a.slot_state("slot1_1"), "Claimed/Busy") << a.log();
  EXPECT_EQ(a.slot_state("slot1_2"), "Claimed/Busy");
  EXPECT_EQ(a.slot_attr("slot1_1", "JobStart"), start1);
  EXPECT_EQ(a.slot_attr("slot1_2", "JobStart"), start2);
  // Both finish normally and their slots return to Claimed/Idle.
  EXPECT_TRUE(eventually(
      [&] {
        return a.slot_state("slot1_1") == "Claimed/Idle" &&
               a.slot_state("slot1_2") == "Claimed/Idle";
      },
      15000))
      << a.log();
  std::string log = a.log();
  EXPECT_NE(log.find("slot1_1: job ended (exit, code 0)"), std::string::npos) << log;
  EXPECT_NE(log.find("slot1_2: job ended (exit, code 0)"), std::string::npos) << log;
  EXPECT_EQ(a.stop(), 0) << a.log();
}

}  // namespace
}  // namespace kite::test
