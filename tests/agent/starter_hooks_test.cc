// Job hooks run by the real starter: PREPARE_JOB edits the job ad (its Arguments), a failing
// or misbehaving PREPARE hook holds the job (code 19) with a message naming the hook, status
// 300 and up sends it back to idle, UPDATE_JOB_INFO sees the running job, and JOB_EXIT gets
// the exit reason and the final ad.
#include "tests/agent/starter_test_util.h"

namespace kite::starter::test {
namespace {

class StarterHooks : public StarterTest {
 protected:
  // Writes an executable hook script under the test root (reachable by the slot user).
  std::string hook(const std::string& name, const std::string& body) {
    std::string path = root_ + "/" + name;
    spit(path, "#!/bin/sh\n" + body, 0755);
    return path;
  }

  core::Json run_to_exit(core::Json j, core::Json* hello_out = nullptr) {
    write_job(j);
    start();
    core::Json hello;
    agent_ = connect(&hello);
    core::Json ex =
        hello.str("state") == "exited" ? std::move(hello) : agent_->expect("exit", 8000);
    EXPECT_TRUE(ex) << log();
    if (hello_out) *hello_out = core::Json(cJSON_Duplicate(ex.get(), true));
    return exit_of(ex);
  }

  std::unique_ptr<Agent> agent_;
};

TEST_F(StarterHooks, PrepareJobEditsTheJobAd) {
  core::Json job = sh_job("echo original");
  job.set("Out", "out");
  core::Json j = job_json(std::move(job), false);
  core::Json hooks = core::Json::object();
  hooks.set("prepare_job_before_transfer",
            hook("before", "grep -q '^Cmd = \"/bin/sh\"' || exit 9\necho 'Step = 1'\n"));
  hooks.set("prepare_job",
            hook("prepare",
                 "cat > ad.seen\ncat <<'EOF'\nArguments = \"-c 'echo from-hook $STEP'\"\n"
                 "Environment = \"STEP=2\"\nEOF\n"));
  j.set_json("hooks", std::move(hooks));
  core::Json e = run_to_exit(std::move(j));
  EXPECT_EQ(e.str("outcome"), "exit") << e.dump();
  EXPECT_EQ(e.str("stdout"), "from-hook 2\n");
  core::Json st = core::json_parse(slurp(dir_ + "/state.json"), nullptr);
  std::string sandbox = st.str("sandbox");
  // The second hook saw the first one's edit; the ad file has both.
  EXPECT_NE(slurp(sandbox + "/ad.seen").find("Step = 1"), std::string::npos);
  EXPECT_NE(slurp(sandbox + "/.job.ad").find("from-hook"), std::string::npos);
  release(agent_.get());
}

TEST_F(StarterHooks, FailingPrepareHookHoldsTheJob) {
  core::Json j = job_json(sh_job("echo never > ran"), false);
  core::Json hooks = core::Json::object();
  std::string path = hook("prepare", "cat >/dev/null\nexit 3\n");
  hooks.set("prepare_job", path);
  j.set_json("hooks", std::move(hooks));
  core::Json hello;
  core::Json e = run_to_exit(std::move(j), &hello);
  EXPECT_EQ(e.str("outcome"), "hold");
  EXPECT_EQ(e.num("HoldReasonCode"), 19);
  EXPECT_EQ(e.num("HoldReasonSubCode"), 3);
  EXPECT_EQ(e.str("HoldReason"), "PREPARE_JOB hook " + path + " exited with status 3");
  EXPECT_EQ(hello.num("job_pid"), 0);
  release(agent_.get());
}

TEST_F(StarterHooks, HookStatusCodeAndMessage) {
  core::Json j = job_json(sh_job("true"), false);
  core::Json hooks = core::Json::object();
  hooks.set("prepare_job",
            hook("prepare",
                 "echo 'HookStatusCode = 42'\necho 'HookStatusMessage = \"no license today\"'\n"));
  j.set_json("hooks", std::move(hooks));
  core::Json e = run_to_exit(std::move(j));
  EXPECT_EQ(e.str("outcome"), "hold");
  EXPECT_EQ(e.num("HoldReasonCode"), 19);
  EXPECT_EQ(e.num("HoldReasonSubCode"), 42);
  EXPECT_EQ(e.str("HoldReason"), "no license today");
  release(agent_.get());

  TearDown();
  SetUp();
  j = job_json(sh_job("true"), false);
  hooks = core::Json::object();
  hooks.set("prepare_job_before_transfer", hook("prepare", "echo 'HookStatusCode = 301'\n"));
  j.set_json("hooks", std::move(hooks));
  e = run_to_exit(std::move(j));
  EXPECT_EQ(e.str("outcome"), "evict");  // 300 and up: back to idle
  EXPECT_NE(e.str("VacateReason").find("exited with status 301"), std::string::npos) << e.dump();
  release(agent_.get());
}

TEST_F(StarterHooks, BadHookOutputMissingHookAndTimeoutAreErrorsNamingTheHook) {
  core::Json j = job_json(sh_job("true"), false);
  core::Json hooks = core::Json::object();
  std::string bad = hook("bad", "echo 'this is = = not an ad'\n");
  hooks.set("prepare_job", bad);
  j.set_json("hooks", std::move(hooks));
  core::Json e = run_to_exit(std::move(j));
  EXPECT_EQ(e.num("HoldReasonCode"), 19);
  EXPECT_NE(
      e.str("HoldReason").find("PREPARE_JOB hook " + bad + " printed output that is not a ClassAd"),
      std::string::npos)
      << e.str("HoldReason");
  release(agent_.get());

  TearDown();
  SetUp();
  j = job_json(sh_job("true"), false);
  hooks = core::Json::object();
  hooks.set("prepare_job", root_ + "/does-not-exist");
  j.set_json("hooks", std::move(hooks));
  e = run_to_exit(std::move(j));
  EXPECT_EQ(e.num("HoldReasonCode"), 19);
  EXPECT_NE(e.str("HoldReason").find("could not be executed"), std::string::npos)
      << e.str("HoldReason");
  release(agent_.get());

  TearDown();
  SetUp();
  j = job_json(sh_job("true"), false);
  j.set("hook_timeout", 1);
  hooks = core::Json::object();
  hooks.set("prepare_job", hook("slow", "sleep 30 & sleep 30\n"));
  j.set_json("hooks", std::move(hooks));
  int64_t t0 = now_ms();
  e = run_to_exit(std::move(j));
  EXPECT_LT(now_ms() - t0, 4000);
  EXPECT_EQ(e.num("HoldReasonSubCode"), -SIGKILL);
  EXPECT_NE(e.str("HoldReason").find("did not finish in time"), std::string::npos);
  release(agent_.get());
}

TEST_F(StarterHooks, HardKillDuringAPrepareHookEvictsWithoutRunningTheJob) {
  core::Json j = job_json(sh_job("echo ran > ran"), false);
  core::Json hooks = core::Json::object();
  hooks.set("prepare_job", hook("slow", "sleep 30\n"));
  j.set_json("hooks", std::move(hooks));
  write_job(j);
  start();
  core::Json hello;
  auto a = connect(&hello);
  EXPECT_EQ(hello.str("state"), "preparing");
  ASSERT_TRUE(a->send_type("hard-kill"));
  core::Json e = exit_of(a->expect("exit"));
  EXPECT_EQ(e.str("outcome"), "evict");
  core::Json st = core::json_parse(slurp(dir_ + "/state.json"), nullptr);
  EXPECT_EQ(slurp(st.str("sandbox") + "/ran"), "");
  release(a.get());
}

TEST_F(StarterHooks, UpdateJobInfoSeesTheRunningJob) {
  core::Json j = job_json(sh_job("sleep 300"), false);
  core::Json hooks = core::Json::object();
  hooks.set("update_job_info", hook("update", "cat > update.ad\n"));
  j.set_json("hooks", std::move(hooks));
  write_job(j);
  start();
  core::Json hello;
  auto a = connect(&hello);
  std::string sandbox = hello.str("sandbox");
  ASSERT_TRUE(wait_until(4000, [&] {
    return slurp(sandbox + "/update.ad").find("JobPid") != std::string::npos;
  })) << log();
  std::string ad = slurp(sandbox + "/update.ad");
  EXPECT_NE(ad.find("JobState = \"Running\""), std::string::npos) << ad;
  EXPECT_NE(ad.find("JobPid = " + std::to_string(hello.num("job_pid"))), std::string::npos) << ad;
  EXPECT_NE(ad.find("RemoteUserCpu = "), std::string::npos) << ad;
  ASSERT_TRUE(a->send_type("hard-kill"));
  EXPECT_TRUE(a->expect("exit"));
  release(a.get());
}

TEST_F(StarterHooks, JobExitHookGetsTheReasonAndTheFinalAd) {
  std::string exit_hook = hook("exit", "echo \"$1\" > exit.reason\ncat > exit.ad\n");
  core::Json j = job_json(sh_job("sleep 300"), false);
  core::Json hooks = core::Json::object();
  hooks.set("job_exit", exit_hook);
  j.set_json("hooks", std::move(hooks));
  write_job(j);
  start();
  core::Json hello;
  auto a = connect(&hello);
  std::string sandbox = hello.str("sandbox");
  ASSERT_EQ(hello.str("state"), "running");
  ASSERT_TRUE(a->send_type("hard-kill"));
  EXPECT_TRUE(a->expect("exit"));
  // The exit is published after the hook ran.
  EXPECT_EQ(slurp(sandbox + "/exit.reason"), "evict\n");
  std::string ad = slurp(sandbox + "/exit.ad");
  EXPECT_NE(ad.find("ExitBySignal = true"), std::string::npos) << ad;
  EXPECT_NE(ad.find("ExitSignal = 9"), std::string::npos) << ad;
  EXPECT_NE(ad.find("JobDuration = "), std::string::npos) << ad;
  EXPECT_NE(ad.find("ExitReason = "), std::string::npos) << ad;
  release(a.get());

  TearDown();
  SetUp();
  exit_hook = hook("exit", "echo \"$1\" > exit.reason\ncat > exit.ad\n");
  j = job_json(sh_job("exit 4"), false);
  hooks = core::Json::object();
  hooks.set("job_exit", exit_hook);
  j.set_json("hooks", std::move(hooks));
  core::Json e = run_to_exit(std::move(j));
  core::Json st = core::json_parse(slurp(dir_ + "/state.json"), nullptr);
  EXPECT_EQ(slurp(st.str("sandbox") + "/exit.reason"), "exit\n");
  EXPECT_NE(slurp(st.str("sandbox") + "/exit.ad").find("ExitCode = 4"), std::string::npos);
  release(agent_.get());
}

}  // namespace
}  // namespace kite::starter::test
