// The agent's control over a running job, through real cgroups where the machine has them:
// suspend freezes and continue resumes, soft kill delivers KillSig and hard kill takes the
// whole tree (daemonized grandchildren included), an OOM kill is a hold with code 34, the pids
// limit contains a fork bomb, usage frames arrive, and the agent can go away and come back
// (reconnect, lease expiry, the exit kept in hello).
#include "tests/agent/starter_test_util.h"

namespace kite::starter::test {
namespace {

class StarterControl : public StarterTest {
 protected:
  // The job's progress: a counter file the job bumps every 20 ms.
  std::string counter_script() {
    return "i=0; while :; do i=$((i+1)); echo $i > count; sleep 0.02; done";
  }
  std::string count(const std::string& sandbox) { return slurp(sandbox + "/count"); }

  // True as soon as the counter moves, false when it stays put for `ms`.
  bool progresses(const std::string& sandbox, int ms = 3000) {
    std::string a = count(sandbox);
    return wait_until(ms, [&] { return count(sandbox) != a; });
  }
  // A job script prefix that sets `trap` and then says so in the file `ready`.
  static std::string trap_then_ready(const std::string& trap) { return trap + "; : > ready; "; }
  bool ready(const std::string& sandbox) {
    return wait_until(5000, [&] { return ::access((sandbox + "/ready").c_str(), F_OK) == 0; });
  }

  core::Json running_hello(Agent* a) {
    core::Json h = a->expect("started", 5000);
    return h;
  }
};

TEST_F(StarterControl, SuspendFreezesAndContinueResumes) {
  std::string why;
  bool cg = cgroups_usable(&why);
  write_job(job_json(sh_job(counter_script()), cg));
  start();
  core::Json hello;
  auto a = connect(&hello);
  ASSERT_EQ(hello.str("state"), "running") << log();
  std::string sandbox = hello.str("sandbox");
  pid_t pid = static_cast<pid_t>(hello.num("job_pid"));
  ASSERT_TRUE(wait_until(3000, [&] { return !count(sandbox).empty(); })) << log();
  EXPECT_TRUE(progresses(sandbox));

  ASSERT_TRUE(a->send_type("suspend"));
  ASSERT_TRUE(a->expect("suspended")) << log();
  EXPECT_FALSE(progresses(sandbox, 300));
  if (cg) {
    hal::Cgroups cgs(hal::Root("/"), layout_, base_);
    hal::JobCgroup job;
    ASSERT_TRUE(cgs.create("slot1_1", &job).ok);
    EXPECT_TRUE(cgs.frozen(job));
  } else {
    std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
    EXPECT_NE(stat.find(") T "), std::string::npos) << stat;
  }
  core::Json st = core::json_parse(slurp(dir_ + "/state.json"), nullptr);
  EXPECT_EQ(st.str("state"), "suspended");
  auto b = connect(&hello);
  EXPECT_EQ(hello.str("state"), "suspended");
  b->close();

  ASSERT_TRUE(a->send_type("continue"));
  ASSERT_TRUE(a->expect("continued"));
  EXPECT_TRUE(progresses(sandbox));
  ASSERT_TRUE(a->send_type("hard-kill"));
  core::Json e = exit_of(a->expect("exit"));
  EXPECT_EQ(e.str("outcome"), "evict");
  release(a.get());
}

TEST_F(StarterControl, KillsReachASuspendedJob) {
  std::string why;
  bool cg = cgroups_usable(&why);
  // Soft kill of a suspended job: it is continued first so it can act on its KillSig.
  write_job(job_json(sh_job(trap_then_ready("trap 'echo got-term > marker; exit 0' TERM") +
                            "while :; do sleep 0.05; done"),
                     cg));
  start();
  core::Json hello;
  auto a = connect(&hello);
  ASSERT_EQ(hello.str("state"), "running") << log();
  std::string sandbox = hello.str("sandbox");
  ASSERT_TRUE(ready(sandbox)) << log();
  ASSERT_TRUE(a->send_type("suspend"));
  ASSERT_TRUE(a->expect("suspended"));
  ASSERT_TRUE(a->send_type("soft-kill"));
  EXPECT_TRUE(a->expect("continued"));
  core::Json e = exit_of(a->expect("exit"));
  EXPECT_EQ(e.str("outcome"), "evict");
  EXPECT_EQ(slurp(sandbox + "/marker"), "got-term\n");
  release(a.get());

  // Hard kill of a suspended (frozen or stopped) job.
  TearDown();
  SetUp();
  cg = cgroups_usable(&why);
  write_job(job_json(sh_job("sleep 300"), cg));
  start();
  a = connect(&hello);
  ASSERT_EQ(hello.str("state"), "running") << log();
  ASSERT_TRUE(a->send_type("suspend"));
  ASSERT_TRUE(a->expect("suspended"));
  int64_t t0 = now_ms();
  ASSERT_TRUE(a->send_type("hard-kill"));
  e = exit_of(a->expect("exit"));
  EXPECT_LT(now_ms() - t0, 2000);
  EXPECT_EQ(e.str("outcome"), "evict");
  EXPECT_EQ(e.num("ExitSignal"), SIGKILL);
  EXPECT_FALSE(alive(static_cast<pid_t>(hello.num("job_pid"))));
  release(a.get());
}

TEST_F(StarterControl, SuspendWithoutCgroupsStopsTheProcessGroup) {
  write_job(job_json(sh_job(counter_script()), /*cgroups=*/false));
  start();
  core::Json hello;
  auto a = connect(&hello);
  std::string sandbox = hello.str("sandbox");
  ASSERT_TRUE(wait_until(3000, [&] { return !count(sandbox).empty(); })) << log();
  ASSERT_TRUE(a->send_type("suspend"));
  ASSERT_TRUE(a->expect("suspended"));
  EXPECT_FALSE(progresses(sandbox, 300));
  ASSERT_TRUE(a->send_type("continue"));
  ASSERT_TRUE(a->expect("continued"));
  EXPECT_TRUE(progresses(sandbox));
  ASSERT_TRUE(a->send_type("hard-kill"));
  EXPECT_TRUE(a->expect("exit"));
  release(a.get());
}

TEST_F(StarterControl, SoftKillDeliversKillSigThenHardKillEnds) {
  std::string why;
  bool cg = cgroups_usable(&why);
  // The job ignores its KillSig (after noting it), so only the hard kill ends it.
  core::Json job = sh_job(trap_then_ready("trap 'echo got-usr1 > marker' USR1") +
                          "while :; do sleep 0.05; done");
  job.set("KillSig", "SIGUSR1");
  write_job(job_json(std::move(job), cg));
  start();
  core::Json hello;
  auto a = connect(&hello);
  ASSERT_EQ(hello.str("state"), "running") << log();
  std::string sandbox = hello.str("sandbox");
  pid_t pid = static_cast<pid_t>(hello.num("job_pid"));
  ASSERT_TRUE(ready(sandbox)) << log();
  ASSERT_TRUE(a->send_type("soft-kill"));
  ASSERT_TRUE(wait_until(3000, [&] { return slurp(sandbox + "/marker") == "got-usr1\n"; }))
      << log();
  EXPECT_TRUE(alive(pid));
  int64_t t0 = now_ms();
  ASSERT_TRUE(a->send_type("hard-kill"));
  core::Json e = exit_of(a->expect("exit"));
  EXPECT_LT(now_ms() - t0, 2000);
  EXPECT_EQ(e.str("outcome"), "evict");
  EXPECT_TRUE(e.flag("ExitBySignal"));
  EXPECT_EQ(e.num("ExitSignal"), SIGKILL);
  EXPECT_FALSE(alive(pid));
  release(a.get());
}

TEST_F(StarterControl, SoftKillWithDefaultSigtermEndsACooperativeJob) {
  write_job(job_json(
      sh_job(trap_then_ready("trap 'echo bye; exit 3' TERM") + "while :; do sleep 0.05; done"),
      false));
  start();
  core::Json hello;
  auto a = connect(&hello);
  ASSERT_EQ(hello.str("state"), "running") << log();
  ASSERT_TRUE(ready(hello.str("sandbox"))) << log();
  core::Json sk = core::Json::message("soft-kill");
  ASSERT_TRUE(a->send(sk));
  core::Json e = exit_of(a->expect("exit"));
  EXPECT_EQ(e.str("outcome"), "evict");  // killed on request, even if it exited by itself
  EXPECT_EQ(e.num("ExitCode", -1), 3);
  release(a.get());
}

TEST_F(StarterControl, HardKillTakesDaemonizedGrandchildren) {
  std::string why;
  if (!cgroups_usable(&why)) GTEST_SKIP() << why;
  // The grandchild starts its own session, outside the job's process group.
  write_job(job_json(sh_job("setsid sh -c 'echo $$ > gc.pid; exec sleep 300' & sleep 300")));
  start();
  core::Json hello;
  auto a = connect(&hello);
  ASSERT_EQ(hello.str("state"), "running") << log();
  std::string sandbox = hello.str("sandbox");
  ASSERT_TRUE(wait_until(3000, [&] { return !slurp(sandbox + "/gc.pid").empty(); }));
  pid_t gc = static_cast<pid_t>(std::atoi(slurp(sandbox + "/gc.pid").c_str()));
  ASSERT_TRUE(wait_until(
      2000, [&] { return slurp("/proc/" + std::to_string(gc) + "/comm") == "sleep\n"; }));
  std::string stat = slurp("/proc/" + std::to_string(gc) + "/stat");
  ASSERT_TRUE(alive(gc));
  ASSERT_TRUE(a->send_type("hard-kill"));
  core::Json e = exit_of(a->expect("exit"));
  EXPECT_EQ(e.str("outcome"), "evict");
  EXPECT_TRUE(wait_until(2000, [&] { return !alive(gc); })) << "grandchild " << gc << " survived";
  release(a.get());
}

TEST_F(StarterControl, OomKillIsAHoldWithCode34) {
  std::string why;
  if (!cgroups_usable(&why)) GTEST_SKIP() << why;
  if (layout_.where(hal::CgroupFacility::kMemory) == hal::CgroupPlace::kNone) {
    GTEST_SKIP() << "no memory controller";
  }
  core::Json j = job_json(sh_job("head -c 300m /dev/zero | tail; sleep 300"));
  j.set("memory_mb", 32).set_bool("disable_swap", true);
  write_job(j);
  start();
  core::Json hello;
  auto a = connect(&hello);
  core::Json ex = hello.str("state") == "exited" ? std::move(hello) : a->expect("exit", 10000);
  ASSERT_TRUE(ex) << log();
  core::Json e = exit_of(ex);
  EXPECT_EQ(e.str("outcome"), "hold") << e.dump();
  EXPECT_EQ(e.num("HoldReasonCode"), 34);
  EXPECT_EQ(e.num("HoldReasonSubCode"), 0);
  EXPECT_EQ(
      e.str("HoldReason").rfind("Job has gone over memory limit of 32 megabytes. Peak usage: ", 0),
      0u)
      << e.str("HoldReason");
  EXPECT_GE(e.num("MemoryUsage"), 20);
  release(a.get());
}

TEST_F(StarterControl, PidsLimitContainsAForkBomb) {
  std::string why;
  if (!cgroups_usable(&why)) GTEST_SKIP() << why;
  if (layout_.where(hal::CgroupFacility::kPids) == hal::CgroupPlace::kNone)
    GTEST_SKIP() << "no pids controller";
  struct stat sb;
  if (::stat("/usr/bin/perl", &sb) != 0) GTEST_SKIP() << "no /usr/bin/perl for the fork bomb";
  // Every process forks forever; failed forks are retried, so the bomb keeps pushing.
  core::Json bomb = core::Json::object();
  bomb.set("Cmd", "/usr/bin/perl")
      .set("Arguments", "-e 'while (1) { fork; select(undef, undef, undef, 0.02) }'");
  core::Json j = job_json(std::move(bomb));
  j.set("pids_max", 24);
  write_job(j);
  start();
  core::Json hello;
  auto a = connect(&hello);
  ASSERT_EQ(hello.str("state"), "running") << log();
  int64_t most = 0;
  for (int i = 0; i < 2; ++i) {
    core::Json u = a->expect("usage", 3000);
    ASSERT_TRUE(u) << log();
    most = std::max<int64_t>(most, u.num("NumPids"));
  }
  EXPECT_GT(most, 1);
  EXPECT_LE(most, 24);
  ASSERT_TRUE(a->send_type("hard-kill"));
  core::Json e = exit_of(a->expect("exit", 8000));
  EXPECT_EQ(e.str("outcome"), "evict");
  release(a.get());
}

TEST_F(StarterControl, SlotLimitsReachTheKernel) {
  std::string why;
  if (!cgroups_usable(&why)) GTEST_SKIP() << why;
  core::Json job = sh_job(
      "grep Cpus_allowed_list /proc/self/status; echo $CUDA_VISIBLE_DEVICES $OMP_NUM_THREADS; "
      "sleep 300");
  job.set("Out", "out");
  core::Json j = job_json(std::move(job));
  j.set_real("cpus", 2).set("memory_mb", 96).set("pids_max", 77);
  core::Json cpus = core::Json(cJSON_CreateArray());
  cJSON_AddItemToArray(cpus.get(), cJSON_CreateNumber(0));
  j.set_json("cpu_list", std::move(cpus));
  core::Json gpu = core::Json::object();
  gpu.set("CUDA_VISIBLE_DEVICES", "GPU-6a96bd13");
  j.set_json("gpu_env", std::move(gpu));
  write_job(j);
  start();
  core::Json hello;
  auto a = connect(&hello);
  ASSERT_EQ(hello.str("state"), "running") << log();
  std::string sandbox = hello.str("sandbox");
  ASSERT_TRUE(
      wait_until(3000, [&] { return slurp(sandbox + "/out").find("GPU") != std::string::npos; }));
  EXPECT_EQ(slurp(sandbox + "/out"), "Cpus_allowed_list:\t0\nGPU-6a96bd13 2\n");
  hal::Root root("/");
  hal::Cgroups cgs(root, layout_, base_);
  hal::JobCgroup cgj;
  ASSERT_TRUE(cgs.create("slot1_1", &cgj).ok);
  auto file = [&](hal::CgroupFacility f, const std::string& v1, const std::string& v2) {
    hal::CgroupPlace p = layout_.where(f);
    if (p == hal::CgroupPlace::kV2) return root.read_line(cgj.v2_dir + "/" + v2);
    if (p == hal::CgroupPlace::kV1) {
      for (const auto& [ctl, d] : cgj.v1_dirs) {
        if (root.exists(d + "/" + v1)) return root.read_line(d + "/" + v1);
      }
    }
    return std::string("n/a");
  };
  // Each limit where the node has its controller ("n/a" elsewhere).
  std::string mem = file(hal::CgroupFacility::kMemory, "memory.limit_in_bytes", "memory.max");
  EXPECT_TRUE(mem == "n/a" || mem == std::to_string(96 << 20)) << mem;
  std::string pids = file(hal::CgroupFacility::kPids, "pids.max", "pids.max");
  EXPECT_TRUE(pids == "n/a" || pids == "77") << pids;
  std::string w = file(hal::CgroupFacility::kCpu, "cpu.shares", "cpu.weight");
  EXPECT_TRUE(w == "n/a" || w == "200") << w;
  ASSERT_TRUE(a->send_type("hard-kill"));
  EXPECT_TRUE(a->expect("exit"));
  release(a.get());
}

TEST_F(StarterControl, UsageFramesReportTheJob) {
  std::string why;
  bool cg = cgroups_usable(&why);
  write_job(job_json(sh_job("while :; do :; done"), cg));
  start();
  core::Json hello;
  auto a = connect(&hello);
  core::Json u = a->expect("usage", 3000);
  ASSERT_TRUE(u) << log();
  u = a->expect("usage", 3000);  // the second one, after a second of spinning
  ASSERT_TRUE(u);
  EXPECT_GT(u.real("RemoteUserCpu") + u.real("RemoteSysCpu"), 0.3) << u.dump();
  EXPECT_GT(u.num("ResidentSetSize"), 0);
  EXPECT_GE(u.num("ImageSize"), u.num("ResidentSetSize"));
  EXPECT_GE(u.num("MemoryUsage"), 1);
  EXPECT_GE(u.num("NumPids"), 1);
  ASSERT_TRUE(a->send_type("hard-kill"));
  EXPECT_TRUE(a->expect("exit"));
  release(a.get());
}

TEST_F(StarterControl, ReconnectGetsHelloWithTheRunningState) {
  write_job(job_json(sh_job("sleep 300"), false));
  start();
  core::Json h1;
  auto a = connect(&h1);
  ASSERT_EQ(h1.str("state"), "running");
  a->close();
  ASSERT_TRUE(wait_until(3000, [&] {
    return log().find("no agent connected") != std::string::npos;
  })) << log();
  core::Json h2;
  auto b = connect(&h2);
  EXPECT_EQ(h2.str("state"), "running");
  EXPECT_EQ(h2.num("job_pid"), h1.num("job_pid"));
  EXPECT_EQ(h2.num("start_time"), h1.num("start_time"));
  EXPECT_TRUE(alive(static_cast<pid_t>(h2.num("job_pid"))));
  // Frames that are not understood get an error frame, the connection stays.
  ASSERT_TRUE(b->send_type("frobnicate"));
  core::Json err = b->expect("error");
  EXPECT_NE(err.str("message").find("unknown frame type 'frobnicate'"), std::string::npos);
  // A status request answers with a hello; bad frames get errors, three of them close.
  ASSERT_TRUE(b->send_type("status"));
  EXPECT_EQ(b->expect("hello").str("state"), "running");
  ASSERT_TRUE(b->send(core::Json::message("soft-kill").set("signal", 999)));
  EXPECT_NE(b->expect("error").str("message").find("bad signal"), std::string::npos);
  {
    auto c = connect();
    std::string junk = std::string("\0\0\0\x05", 4) + "{nope";
    for (int i = 0; i < 3; ++i)
      ASSERT_EQ(::write(c->fd, junk.data(), junk.size()), static_cast<ssize_t>(junk.size()));
    for (int i = 0; i < 3; ++i)
      EXPECT_NE(c->expect("error").str("message").find("bad JSON"), std::string::npos);
    core::Json m;
    std::string err;
    EXPECT_EQ(core::recv_frame(c->fd, &c->reader, &m, 2000, &err),
              core::FrameReader::Result::kError);
    EXPECT_EQ(err, "connection closed");
  }
  // Release before the exit is refused.
  ASSERT_TRUE(b->send_type("release"));
  err = b->expect("error");
  EXPECT_NE(err.str("message").find("has not exited"), std::string::npos);
  ASSERT_TRUE(b->send_type("hard-kill"));
  EXPECT_TRUE(b->expect("exit"));
  release(b.get());
}

TEST_F(StarterControl, LeaseExpiryWithoutAgentKillsTheJobThenCleansUp) {
  std::string why;
  bool cg = cgroups_usable(&why);
  core::Json j = job_json(sh_job("sleep 300"), cg);
  j.set("lease", 1);
  write_job(j);
  start();
  core::Json hello;
  auto a = connect(&hello);
  ASSERT_EQ(hello.str("state"), "running");
  pid_t pid = static_cast<pid_t>(hello.num("job_pid"));
  std::string sandbox = hello.str("sandbox");
  a->close();
  // One lease after the agent left, the job is gone and the exit waits in state.json.
  ASSERT_TRUE(wait_until(2500, [&] { return !alive(pid); })) << log();
  core::Json st;
  ASSERT_TRUE(wait_until(1000, [&] {
    st = core::json_parse(slurp(dir_ + "/state.json"), nullptr);
    return st && st.str("state") == "exited";
  }));
  core::Json e = exit_of(st);
  EXPECT_EQ(e.str("outcome"), "evict");
  EXPECT_NE(e.str("VacateReason").find("lease"), std::string::npos);
  // One more lease with nobody asking: cleaned up and gone.
  EXPECT_EQ(wait_starter(3000), 0) << log();
  struct stat sb;
  EXPECT_NE(::stat(dir_.c_str(), &sb), 0);
  EXPECT_NE(::stat(sandbox.c_str(), &sb), 0);
}

TEST_F(StarterControl, ExitWhileTheAgentIsGoneWaitsInHello) {
  core::Json j = job_json(sh_job("sleep 0.5; exit 5"), false);
  j.set("lease", 20);
  write_job(j);
  start();
  core::Json hello;
  auto a = connect(&hello);
  ASSERT_EQ(hello.str("state"), "running");
  a->close();  // the agent dies
  pid_t pid = static_cast<pid_t>(hello.num("job_pid"));
  ASSERT_TRUE(wait_until(3000, [&] { return !alive(pid); }));
  ASSERT_TRUE(wait_until(3000, [&] {
    core::Json st = core::json_parse(slurp(dir_ + "/state.json"), nullptr);
    return st && st.str("state") == "exited";
  })) << log();
  auto b = connect(&hello);  // the restarted agent
  EXPECT_EQ(hello.str("state"), "exited");
  core::Json e = exit_of(hello);
  EXPECT_EQ(e.str("outcome"), "exit");
  EXPECT_EQ(e.num("ExitCode", -1), 5);
  release(b.get());
}

TEST_F(StarterControl, JobRunsInItsOwnPidNamespace) {
  if (!is_root_) GTEST_SKIP() << "PID namespaces need root";
  std::string why;
  core::Json j = job_json(sh_job("echo $$; sleep 0.2"), cgroups_usable(&why));
  j.set_bool("use_pid_namespace", true);
  j.set_json("job", [] {
    core::Json job = sh_job("echo $$; sleep 0.2");
    job.set("Out", "out");
    return job;
  }());
  write_job(j);
  start();
  core::Json hello;
  auto a = connect(&hello);
  core::Json e = exit_of(hello.str("state") == "exited" ? std::move(hello) : a->expect("exit"));
  EXPECT_EQ(e.str("outcome"), "exit") << log();
  EXPECT_EQ(e.str("stdout"), "1\n");  // the job is init of its namespace
  release(a.get());
}

}  // namespace
}  // namespace kite::starter::test
