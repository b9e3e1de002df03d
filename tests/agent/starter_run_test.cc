// The starter as a real process, running real jobs: an echo job as the slot user with its
// output in the sandbox, exit codes and signals, jobs that cannot start (exec failure, root,
// unknown user) held with HTCondor's codes, bad job.json refused with the field named, and a
// DIR never run twice.
#include <sys/stat.h>

#include "tests/agent/starter_test_util.h"

namespace kite::starter::test {
namespace {

class StarterRun : public StarterTest {};

TEST_F(StarterRun, EchoJobRunsAsTheSlotUserWithOutputInTheSandbox) {
  core::Json job = sh_job(
      "echo hello from $(id -un); echo oops >&2; echo $TMPDIR $_CONDOR_SLOT $OMP_NUM_THREADS");
  job.set("Out", "out.txt").set("Err", "err.txt");
  write_job(job_json(std::move(job)));
  start();
  core::Json hello;
  auto a = connect(&hello);
  EXPECT_EQ(hello.str("slot"), "slot1_1");
  EXPECT_EQ(hello.str("claim_id"), "claim-1");
  EXPECT_EQ(hello.num("starter_pid"), starter_);
  core::Json ex = hello.str("state") == "exited" ? std::move(hello) : a->expect("exit");
  ASSERT_TRUE(ex) << log();
  core::Json e = exit_of(ex);
  EXPECT_EQ(e.str("outcome"), "exit") << ex.dump();
  EXPECT_FALSE(e.flag("ExitBySignal", true));
  EXPECT_EQ(e.num("ExitCode", -1), 0);
  EXPECT_GE(e.real("JobDuration", -1), 0.0);
  core::Json st;
  // The state file says the same as the hello a new connection gets.
  auto b = connect(&st);
  EXPECT_EQ(st.str("state"), "exited");
  std::string sandbox = st.str("sandbox");
  ASSERT_FALSE(sandbox.empty());
  EXPECT_EQ(sandbox, execute_ + "/dir_" + std::to_string(starter_));
  std::string out = slurp(sandbox + "/out.txt");
  if (is_root_) {
    EXPECT_NE(out.find("hello from nobody"), std::string::npos) << out;
  }
  EXPECT_NE(out.find(sandbox + " slot1_1 1"), std::string::npos) << out;
  EXPECT_EQ(slurp(sandbox + "/err.txt"), "oops\n");
  EXPECT_EQ(e.str("stdout"), out);
  EXPECT_EQ(e.str("stderr"), "oops\n");
  struct stat sb;
  ASSERT_EQ(::stat(sandbox.c_str(), &sb), 0);
  EXPECT_EQ(sb.st_mode & 0777, 0700u);
  if (is_root_) {
    EXPECT_EQ(sb.st_uid, 65534u);
    ASSERT_EQ(::stat((sandbox + "/out.txt").c_str(), &sb), 0);
    EXPECT_EQ(sb.st_uid, 65534u);
  }
  // The ads are in the sandbox, old syntax.
  EXPECT_NE(slurp(sandbox + "/.job.ad").find("Cmd = \"/bin/sh\""), std::string::npos);
  EXPECT_EQ(::stat((sandbox + "/.machine.ad").c_str(), &sb), 0);
  b->close();
  release(a.get());
  EXPECT_NE(::stat(sandbox.c_str(), &sb), 0) << "sandbox left behind";
}

TEST_F(StarterRun, ExitCodeAndSignalAndStartedFrame) {
  write_job(job_json(sh_job("sleep 0.3; exit 7")));
  start();
  core::Json hello;
  auto a = connect(&hello);
  EXPECT_EQ(hello.str("state"), "running");
  EXPECT_GT(hello.num("job_pid"), 0);
  EXPECT_GT(hello.num("start_time"), 1600000000);
  core::Json ex = a->expect("exit");
  ASSERT_TRUE(ex) << log();
  core::Json e = exit_of(ex);
  EXPECT_EQ(e.str("outcome"), "exit");
  EXPECT_EQ(e.num("ExitCode", -1), 7);
  EXPECT_GE(e.real("JobDuration"), 0.25);
  release(a.get());

  // A second job in a fresh DIR, killed by a signal of its own.
  TearDown();
  SetUp();
  write_job(job_json(sh_job("kill -SEGV $$")));
  start();
  auto b = connect(&hello);
  ex = hello.str("state") == "exited" ? std::move(hello) : b->expect("exit");
  e = exit_of(ex);
  EXPECT_EQ(e.str("outcome"), "exit");
  EXPECT_TRUE(e.flag("ExitBySignal"));
  EXPECT_EQ(e.num("ExitSignal"), SIGSEGV);
  EXPECT_FALSE(e.has("ExitCode"));
  release(b.get());
}

TEST_F(StarterRun, ArgumentsAndEnvironmentReachTheJob) {
  core::Json job = core::Json::object();
  job.set("Cmd", "/bin/sh");
  job.set("Arguments",
          "-c 'printf \"[%s]\" \"$@\"; echo \" $A|$B|$C\"' zero 'two words' \"q\" 'it''s'");
  job.set("Environment", "A=1 B='x y' C=");
  job.set("Out", "out");
  write_job(job_json(std::move(job)));
  start();
  core::Json hello;
  auto a = connect(&hello);
  core::Json e = exit_of(hello.str("state") == "exited" ? std::move(hello) : a->expect("exit"));
  EXPECT_EQ(e.str("stdout"), "[two words][\"q\"][it's] 1|x y|\n") << e.dump();
  release(a.get());
}

TEST_F(StarterRun, ExecFailureIsHeldWithTheReason) {
  core::Json job = core::Json::object();
  job.set("Cmd", "/nonexistent/program").set("Arguments", "a b");
  write_job(job_json(std::move(job)));
  start();
  core::Json hello;
  auto a = connect(&hello);
  core::Json e = exit_of(hello.str("state") == "exited" ? std::move(hello) : a->expect("exit"));
  EXPECT_EQ(e.str("outcome"), "hold");
  EXPECT_EQ(e.num("HoldReasonCode"), 6);  // FailedToCreateProcess
  EXPECT_EQ(e.num("HoldReasonSubCode"), ENOENT);
  EXPECT_EQ(e.str("HoldReason"),
            "Failed to execute '/nonexistent/program' with arguments a b: No such file or "
            "directory (errno=2)");
  release(a.get());
}

TEST_F(StarterRun, MissingInputAndIwdAreHeld) {
  core::Json job = sh_job("true");
  job.set("In", "missing-input");
  write_job(job_json(std::move(job)));
  start();
  core::Json hello;
  auto a = connect(&hello);
  core::Json e = exit_of(hello.str("state") == "exited" ? std::move(hello) : a->expect("exit"));
  EXPECT_EQ(e.str("outcome"), "hold");
  EXPECT_EQ(e.num("HoldReasonCode"), 8);  // UnableToOpenInput
  EXPECT_NE(e.str("HoldReason").find("missing-input' as standard input"), std::string::npos);
  release(a.get());

  TearDown();
  SetUp();
  job = sh_job("true");
  job.set("Iwd", "/nonexistent-iwd");
  write_job(job_json(std::move(job)));
  start();
  auto b = connect(&hello);
  e = exit_of(hello.str("state") == "exited" ? std::move(hello) : b->expect("exit"));
  EXPECT_EQ(e.num("HoldReasonCode"), 14);  // IwdError
  release(b.get());
}

TEST_F(StarterRun, RootJobsAreRefusedUnlessAllowed) {
  if (!is_root_) GTEST_SKIP() << "needs root (the slot user root)";
  core::Json j = job_json(sh_job("id -u"));
  j.set("slot_user", "root");
  write_job(j);
  start();
  core::Json hello;
  auto a = connect(&hello);
  core::Json e = exit_of(hello.str("state") == "exited" ? std::move(hello) : a->expect("exit"));
  EXPECT_EQ(e.str("outcome"), "hold");
  EXPECT_EQ(e.num("HoldReasonCode"), 23);
  EXPECT_NE(e.str("HoldReason").find("Refusing to run the job as root"), std::string::npos);
  EXPECT_EQ(hello.num("job_pid"), 0);
  release(a.get());

  TearDown();
  SetUp();
  j = job_json(sh_job("id -u"));
  j.set("slot_user", "root").set_bool("allow_root_jobs", true);
  j.set_json("job", [] {
    core::Json job = sh_job("id -u");
    job.set("Out", "o");
    return job;
  }());
  write_job(j);
  start();
  auto b = connect(&hello);
  e = exit_of(hello.str("state") == "exited" ? std::move(hello) : b->expect("exit"));
  EXPECT_EQ(e.str("outcome"), "exit");
  EXPECT_EQ(e.str("stdout"), "0\n");
  release(b.get());
}

TEST_F(StarterRun, UnknownSlotUserIsHeld) {
  core::Json j = job_json(sh_job("true"));
  j.set("slot_user", "no-such-user-kite");
  write_job(j);
  start();
  core::Json hello;
  auto a = connect(&hello);
  core::Json e = exit_of(hello.str("state") == "exited" ? std::move(hello) : a->expect("exit"));
  EXPECT_EQ(e.num("HoldReasonCode"), 23);
  EXPECT_NE(e.str("HoldReason").find("no-such-user-kite"), std::string::npos);
  release(a.get());
}

TEST_F(StarterRun, BadJobJsonFailsNamingTheField) {
  core::Json j = job_json(sh_job("true"));
  j.set("cpus", "lots");
  write_job(j);
  start();
  EXPECT_EQ(wait_starter(), 1);
  std::string out = slurp(root_ + "/starter.out");
  EXPECT_NE(out.find("job.json: field 'cpus': must be a number"), std::string::npos) << out;
  core::Json st = core::json_parse(slurp(dir_ + "/state.json"), nullptr);
  ASSERT_TRUE(st);
  EXPECT_EQ(st.str("state"), "exited");
  EXPECT_NE(st.str("error").find("field 'cpus'"), std::string::npos) << st.dump();

  // Not JSON at all; then no job.json.
  std::string d2 = root_ + "/s2";
  ASSERT_EQ(::mkdir(d2.c_str(), 0700), 0);
  spit(d2 + "/job.json", "{\"slot\": ");
  starter_ = spawn_starter(d2);
  EXPECT_EQ(wait_starter(), 1);
  EXPECT_NE(slurp(root_ + "/starter.out").find("job.json: bad JSON"), std::string::npos)
      << slurp(root_ + "/starter.out");
  std::string d3 = root_ + "/s3";
  ASSERT_EQ(::mkdir(d3.c_str(), 0700), 0);
  starter_ = spawn_starter(d3);
  EXPECT_EQ(wait_starter(), 1);
  starter_ = spawn_starter(root_ + "/no-such-dir");
  EXPECT_EQ(wait_starter(), 1);
}

TEST_F(StarterRun, NeverRunsTheJobTwice) {
  std::string marker = root_ + "/runs";
  spit(marker, "");
  ::chmod(marker.c_str(), 0666);
  write_job(job_json(sh_job("echo run >> " + marker + "; sleep 0.5")));
  start();
  core::Json hello;
  auto a = connect(&hello);
  pid_t first = starter_;
  // A second starter while the first runs: refused by the lock.
  starter_ = spawn_starter(dir_);
  EXPECT_EQ(wait_starter(), 1);
  EXPECT_NE(slurp(root_ + "/starter.out").find("another starter is running"), std::string::npos);
  starter_ = first;
  ASSERT_TRUE(a->expect("exit"));
  // The first one gone (killed without a release, as after a crash): state.json stays, and a
  // new starter refuses to run the job again.
  ::kill(first, SIGKILL);
  EXPECT_EQ(wait_starter(), 128 + SIGKILL);
  starter_ = spawn_starter(dir_);
  EXPECT_EQ(wait_starter(), 1);
  EXPECT_NE(slurp(root_ + "/starter.out").find("refusing to run the job twice"), std::string::npos);
  EXPECT_EQ(slurp(marker), "run\n");
}

}  // namespace
}  // namespace kite::starter::test
