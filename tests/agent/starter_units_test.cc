// Unit tests of the starter's pure parts: Arguments/Args and Environment/Env from the ad, the
// environment the starter adds, signal names, /etc/passwd and /etc/group lookups, job.json
// checks (each bad field named), hook verdicts (HookStatusCode rules), output tails.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "agent/core/files.h"
#include "agent/starter/hooks.h"
#include "agent/starter/job_env.h"
#include "agent/starter/job_spec.h"
#include "agent/starter/output_tail.h"
#include "agent/starter/sandbox.h"
#include "agent/starter/signals.h"
#include "agent/starter/user.h"
#include "policy/classad/parser.h"

namespace kite::starter {
namespace {

using Strings = std::vector<std::string>;

TEST(StarterArgs, FromTheAdArgumentsWinsOverArgs) {
  classad::AdPtr ad = classad::parse_classad_old("Arguments = \"x 'y z'\"\nArgs = \"old\"\n");
  ASSERT_TRUE(ad);
  Strings v;
  std::string err;
  ASSERT_TRUE(job_args(*ad, &v, &err)) << err;
  EXPECT_EQ(v, (Strings{"x", "y z"}));
  ad = classad::parse_classad_old("Args = \"a b\"\n");
  ASSERT_TRUE(job_args(*ad, &v, &err)) << err;
  EXPECT_EQ(v, (Strings{"a", "b"}));
  ad = classad::parse_classad_old("Arguments = 3\n");
  EXPECT_FALSE(job_args(*ad, &v, &err));
  EXPECT_NE(err.find("Arguments is not a string"), std::string::npos) << err;
}

// The syntaxes themselves are tested in tests/policy/classad/functions_env_test.cc.
TEST(StarterEnv, FromTheAdEnvironmentOrEnv) {
  classad::AdPtr ad = classad::parse_classad_old("Env = \"B=2;A=x y\"\n");
  ASSERT_TRUE(ad);
  EnvList env;
  std::string err;
  ASSERT_TRUE(job_env(*ad, &env, &err)) << err;
  EXPECT_EQ(env.entries(), (Strings{"A=x y", "B=2"}));
  ad = classad::parse_classad_old("Environment = \"A=1 NOEQUALS\"\n");
  EnvList bad;
  EXPECT_FALSE(job_env(*ad, &bad, &err));
  EXPECT_NE(err.find("Environment: missing '=' after environment variable 'NOEQUALS'"),
            std::string::npos)
      << err;
  ad = classad::parse_classad_old("Env = 7\n");
  EXPECT_FALSE(job_env(*ad, &bad, &err));
  EXPECT_NE(err.find("Env is not a string"), std::string::npos) << err;
}

TEST(StarterEnv, StarterVariablesAroundTheJobs) {
  classad::AdPtr ad = classad::parse_classad_old(
      "Environment = \"OMP_NUM_THREADS=7 TMPDIR=/mine _CONDOR_SLOT=fake "
      "CUDA_VISIBLE_DEVICES=all\"\nEnv = \"IGNORED=1\"\n");
  ASSERT_TRUE(ad);
  EnvList env;
  std::string err;
  ASSERT_TRUE(job_env(*ad, &env, &err)) << err;
  EXPECT_EQ(env.get("IGNORED"), nullptr);
  StarterEnv s;
  s.sandbox = "/x/dir_1";
  s.slot = "slot1_2";
  s.job_ad_path = "/x/dir_1/.job.ad";
  s.machine_ad_path = "/x/dir_1/.machine.ad";
  s.iwd = "/x/dir_1";
  s.cpus = 2.4;
  s.gpu_env = {{"CUDA_VISIBLE_DEVICES", "GPU-1"}};
  env_add_starter(s, &env);
  EXPECT_EQ(*env.get("_CONDOR_SCRATCH_DIR"), "/x/dir_1");
  EXPECT_EQ(*env.get("_CONDOR_SLOT"), "slot1_2");  // the starter's own variables win
  EXPECT_EQ(*env.get("_CONDOR_JOB_AD"), "/x/dir_1/.job.ad");
  EXPECT_EQ(*env.get("_CONDOR_MACHINE_AD"), "/x/dir_1/.machine.ad");
  EXPECT_EQ(*env.get("TMPDIR"), "/mine");  // the job's own choice stays
  EXPECT_EQ(*env.get("TMP"), "/x/dir_1");
  EXPECT_EQ(*env.get("TEMP"), "/x/dir_1");
  EXPECT_EQ(*env.get("OMP_NUM_THREADS"), "7");
  EXPECT_EQ(*env.get("MKL_NUM_THREADS"), "2");
  EXPECT_EQ(*env.get("CUDA_VISIBLE_DEVICES"), "GPU-1");  // assigned GPUs, not the job's
}

TEST(StarterSignals, NamesAndNumbers) {
  EXPECT_EQ(signal_parse("SIGTERM"), SIGTERM);
  EXPECT_EQ(signal_parse("term"), SIGTERM);
  EXPECT_EQ(signal_parse(" SigUsr1 "), SIGUSR1);
  EXPECT_EQ(signal_parse("9"), SIGKILL);
  EXPECT_EQ(signal_parse("SIGNOPE"), -1);
  EXPECT_EQ(signal_parse("0"), -1);
  EXPECT_EQ(signal_parse("999"), -1);
  EXPECT_EQ(signal_parse(""), -1);
  EXPECT_STREQ(signal_name(SIGQUIT), "SIGQUIT");
}

class StarterUser : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kite-user-XXXXXX";
    etc_ = mkdtemp(tmpl);
    std::string err;
    ASSERT_TRUE(
        core::write_file_atomic(etc_ + "/passwd",
                                "root:x:0:0:root:/root:/bin/bash\n"
                                "# comment\n"
                                "broken line\n"
                                "slot1:x:1001:1001:Slot 1:/home/slot1:/bin/sh\r\n"
                                "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
                                0644, &err));
    ASSERT_TRUE(core::write_file_atomic(etc_ + "/group",
                                        "root:x:0:\nslot1:x:1001:\ngpu:x:44:alice,slot1\n"
                                        "video:x:45:slot1x\n",
                                        0644, &err));
  }
  void TearDown() override {
    std::string err;
    core::remove_tree(etc_, &err);
  }
  std::string etc_;
};

TEST_F(StarterUser, ByNameWithSupplementaryGroups) {
  UserInfo u;
  std::string err;
  ASSERT_TRUE(user_lookup(etc_, "slot1", &u, &err)) << err;
  EXPECT_EQ(u.uid, 1001u);
  EXPECT_EQ(u.gid, 1001u);
  EXPECT_EQ(u.home, "/home/slot1");
  EXPECT_EQ(u.groups, (std::vector<gid_t>{1001, 44}));
  ASSERT_TRUE(user_lookup(etc_, "nobody", &u, &err)) << err;
  EXPECT_EQ(u.uid, 65534u);
}

TEST_F(StarterUser, ByNumberAndUnknown) {
  UserInfo u;
  std::string err;
  ASSERT_TRUE(user_lookup(etc_, "1001", &u, &err)) << err;
  EXPECT_EQ(u.name, "slot1");
  ASSERT_TRUE(user_lookup(etc_, "4242", &u, &err)) << err;  // not listed: uid = gid = 4242
  EXPECT_EQ(u.uid, 4242u);
  EXPECT_EQ(u.gid, 4242u);
  EXPECT_FALSE(user_lookup(etc_, "mallory", &u, &err));
  EXPECT_NE(err.find("no user 'mallory'"), std::string::npos) << err;
  EXPECT_FALSE(user_lookup(etc_ + "/missing", "root", &u, &err));
}

std::string spec_error(const std::string& json) {
  JobSpec s;
  std::string err;
  EXPECT_FALSE(job_spec_parse(json, &s, &err)) << json;
  return err;
}

TEST(StarterJobSpec, DefaultsAndFields) {
  JobSpec s;
  std::string err;
  ASSERT_TRUE(job_spec_parse(
      R"({"slot":"slot1_1","job":{"Cmd":"/bin/true","RequestMemory":"\/Expr(1+1)\/"},
          "execute":"/var/x","cpu_list":[0,2],"gpu_env":{"CUDA_VISIBLE_DEVICES":"0"},
          "memory_policy":"Soft","hooks":{"prepare_job":"/h/p","job_exit":null}})",
      &s, &err))
      << err;
  EXPECT_EQ(s.slot, "slot1_1");
  EXPECT_EQ(s.slot_user, "nobody");
  EXPECT_EQ(s.lease, 1800);
  EXPECT_EQ(s.update_interval, 300);
  EXPECT_EQ(s.initial_update_interval, 2);
  EXPECT_EQ(s.cgroup_base, "");
  EXPECT_EQ(s.memory_policy, hal::MemoryPolicy::kSoft);
  EXPECT_EQ(s.cpu_list, (std::vector<int>{0, 2}));
  EXPECT_EQ(s.hooks.prepare_job, "/h/p");
  EXPECT_EQ(s.hooks.job_exit, "");
  int64_t mem = 0;
  EXPECT_TRUE(s.job->evaluate_int("RequestMemory", mem));
  EXPECT_EQ(mem, 2);
}

TEST(StarterJobSpec, EveryBadFieldIsNamed) {
  const std::string ok = R"("slot":"s1","job":{},"execute":"/x")";
  EXPECT_NE(spec_error("not json").find("job.json"), std::string::npos);
  EXPECT_NE(spec_error("[1]").find("job.json"), std::string::npos);
  EXPECT_NE(spec_error(R"({"job":{},"execute":"/x"})").find("field 'slot': missing"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"slot":"../etc","job":{},"execute":"/x"})").find("field 'slot'"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"slot":"s1","execute":"/x"})").find("field 'job'"), std::string::npos);
  EXPECT_NE(spec_error(R"({"slot":"s1","job":[],"execute":"/x"})").find("field 'job'"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"slot":"s1","job":{"a":"\/Expr(1 +)\/"},"execute":"/x"})")
                .find("field 'job': not a valid ad"),
            std::string::npos);
  EXPECT_NE(spec_error(R"({"slot":"s1","job":{}})").find("field 'execute'"), std::string::npos);
  EXPECT_NE(spec_error(R"({"slot":"s1","job":{},"execute":"rel"})").find("field 'execute'"),
            std::string::npos);
  EXPECT_NE(spec_error("{" + ok + R"(,"cpus":"two"})").find("field 'cpus': must be a number"),
            std::string::npos);
  EXPECT_NE(
      spec_error("{" + ok + R"(,"memory_mb":1.5})").find("field 'memory_mb': must be an integer"),
      std::string::npos);
  EXPECT_NE(spec_error("{" + ok + R"(,"lease":0})").find("field 'lease': out of range"),
            std::string::npos);
  EXPECT_NE(spec_error("{" + ok + R"(,"memory_policy":"strict"})").find("field 'memory_policy'"),
            std::string::npos);
  EXPECT_NE(spec_error("{" + ok + R"(,"cpu_list":[0,-1]})").find("field 'cpu_list'"),
            std::string::npos);
  EXPECT_NE(spec_error("{" + ok + R"(,"gpu_env":{"A":1}})").find("field 'gpu_env'"),
            std::string::npos);
  EXPECT_NE(spec_error("{" + ok + R"(,"allow_root_jobs":"yes"})").find("field 'allow_root_jobs'"),
            std::string::npos);
  EXPECT_NE(spec_error("{" + ok + R"(,"hooks":{"prepare_job":"rel/p"}})")
                .find("field 'hooks.prepare_job'"),
            std::string::npos);
  EXPECT_NE(spec_error("{" + ok + R"(,"hooks":{"fetch_work":"/p"}})")
                .find("field 'hooks.fetch_work': unknown hook"),
            std::string::npos);
  EXPECT_NE(spec_error("{" + ok + R"(,"slot_user":""})").find("field 'slot_user'"),
            std::string::npos);
}

HookResult ran(int64_t status, const std::string& out) {
  HookResult r;
  r.name = "PREPARE_JOB";
  r.path = "/h";
  r.started = true;
  r.exit_status = status;
  r.out = out;
  return r;
}

TEST(StarterHookVerdict, StatusCodeRules) {
  HookVerdict v = hook_judge_prepare(ran(0, "Cmd = \"/bin/java\"\nFoo = 1 + 2\n"));
  ASSERT_EQ(v.kind, HookVerdict::kOk);
  ASSERT_TRUE(v.updates);
  EXPECT_EQ(v.updates->size(), 2u);
  v = hook_judge_prepare(ran(3, ""));
  EXPECT_EQ(v.kind, HookVerdict::kHold);
  EXPECT_EQ(v.code, 19);
  EXPECT_EQ(v.subcode, 3);
  EXPECT_EQ(v.message, "PREPARE_JOB hook /h exited with status 3");
  // HookStatusCode replaces the exit status; HookStatusMessage is the hold reason.
  v = hook_judge_prepare(ran(0, "HookStatusCode = 42\nHookStatusMessage = \"no license\"\n"));
  EXPECT_EQ(v.kind, HookVerdict::kHold);
  EXPECT_EQ(v.subcode, 42);
  EXPECT_EQ(v.message, "no license");
  v = hook_judge_prepare(ran(5, "HookStatusCode = 0\nX = 1\n"));
  EXPECT_EQ(v.kind, HookVerdict::kOk);
  EXPECT_EQ(v.updates->size(), 1u);  // the status attributes are not merged
  v = hook_judge_prepare(ran(0, "HookStatusCode = 300\n"));
  EXPECT_EQ(v.kind, HookVerdict::kRequeue);
  v = hook_judge_prepare(ran(4, "HookStatusCode = -1\n"));  // negative: the exit status counts
  EXPECT_EQ(v.subcode, 4);
}

TEST(StarterHookVerdict, FailuresNameTheHook) {
  HookVerdict v = hook_judge_prepare(ran(0, "this is not = = an ad\n"));
  EXPECT_EQ(v.kind, HookVerdict::kHold);
  EXPECT_NE(v.message.find("PREPARE_JOB hook /h printed output that is not a ClassAd"),
            std::string::npos)
      << v.message;
  HookResult r = ran(0, "");
  r.term_signal = SIGSEGV;
  v = hook_judge_prepare(r);
  EXPECT_EQ(v.subcode, -SIGSEGV);
  EXPECT_NE(v.message.find("killed by signal"), std::string::npos);
  r = ran(0, "");
  r.timed_out = true;
  v = hook_judge_prepare(r);
  EXPECT_NE(v.message.find("did not finish in time"), std::string::npos);
  r = ran(0, "");
  r.started = false;
  r.spawn_error = "no such file or directory";
  v = hook_judge_prepare(r);
  EXPECT_EQ(v.subcode, 0);
  EXPECT_NE(v.message.find("could not be executed: no such file"), std::string::npos);
}

TEST(StarterOutput, TailsAreCutAndCleaned) {
  EXPECT_EQ(utf8_clean("ok \xc3\xa9 \xff\xfe x"), "ok \xc3\xa9 ?? x");
  EXPECT_EQ(utf8_clean("\xed\xa0\x80"), "???");  // a UTF-16 surrogate is not UTF-8
  char tmpl[] = "/tmp/kite-tail-XXXXXX";
  int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  std::string text = "abc\xc3\xa9xyz";
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  EXPECT_EQ(output_tail(tmpl, 100), text);
  EXPECT_EQ(output_tail(tmpl, 4), "xyz");  // the cut fell inside the é: its tail byte goes
  EXPECT_EQ(output_tail(tmpl, 0), "");
  EXPECT_EQ(output_tail("/dev/null", 10), "");
  EXPECT_EQ(output_tail("/nonexistent/x", 10), "");
  unlink(tmpl);
}

TEST(StarterSandbox, AdTextIsOneAttributePerLine) {
  classad::AdPtr ad =
      classad::parse_classad_old("Cmd = \"/bin/sh\"\nRequestCpus = 1 + 1\nA = \"q\\\"x\"\n");
  ASSERT_TRUE(ad);
  std::string text = ad_to_old_text(*ad);
  EXPECT_NE(text.find("Cmd = \"/bin/sh\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("RequestCpus = 1 + 1\n"), std::string::npos) << text;
  classad::AdPtr back = classad::parse_classad_old(text);
  ASSERT_TRUE(back) << text;
  std::string a;
  EXPECT_TRUE(back->evaluate_string("A", a));
  EXPECT_EQ(a, "q\"x");
}

}  // namespace
}  // namespace kite::starter
