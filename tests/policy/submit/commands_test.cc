// Submit commands -> job-ad attributes: paths, arguments, environment, accounting, policy
// expressions, signals, deferral/cron, hold, notification, +Attr and the always-written ones.
#include "tests/policy/submit/submit_helpers.h"

namespace kite::submit::testing {
namespace {

TEST_F(SubmitTest, ExecutableIsMadeAbsoluteAgainstTheSubmitDirectory) {
  EXPECT_EQ(one("executable = bin/tool\nqueue\n", "Cmd"), "\"" + dir_ + "/bin/tool\"");
  EXPECT_EQ(one("executable = ./job.sh\nqueue\n", "Cmd"), "\"" + dir_ + "/job.sh\"");
  EXPECT_EQ(one("executable = /bin/sh\nqueue\n", "Cmd"), "\"/bin/sh\"");
}

TEST_F(SubmitTest, PathsDefaultsAndTransferFlags) {
  Result r = run("executable = job.sh\nqueue\n");
  expect_attrs(r, 0,
               {{"Iwd", "\"" + dir_ + "\""},
                {"In", "\"/dev/null\""},
                {"Out", "\"/dev/null\""},
                {"Err", "\"/dev/null\""},
                {"TransferIn", "false"},
                {"TransferOut", "false"},
                {"TransferErr", "false"},
                {"UserLog", "<absent>"}});
  Result g = run("executable = job.sh\ninput = a.in\noutput = o/a.out\nerror = a.err\nqueue\n");
  EXPECT_EQ(attr(g, 0, "In"), "\"a.in\"");  // a missing input file is not an error
  expect_attrs(g, 0,
               {{"Out", "\"o/a.out\""},
                {"Err", "\"a.err\""},
                {"StreamIn", "false"},
                {"StreamOut", "false"},
                {"TransferIn", "<absent>"}});
}

TEST_F(SubmitTest, InitialdirMovesIwdAndTheLogButNotTheExecutable) {
  Result r = run("executable = bin/tool\ninitialdir = sub/deep\nlog = x.log\nqueue\n");
  EXPECT_EQ(attr(r, 0, "Cmd"), "\"" + dir_ + "/bin/tool\"");
  EXPECT_EQ(attr(r, 0, "Iwd"), "\"" + dir_ + "/sub/deep\"");
  EXPECT_EQ(attr(r, 0, "UserLog"), "\"" + dir_ + "/sub/deep/x.log\"");
  EXPECT_EQ(one("executable = job.sh\nlog = /var/log/a.log\nqueue\n", "UserLog"),
            "\"/var/log/a.log\"");
}

TEST_F(SubmitTest, ArgumentsOldSyntaxGoToArgs) {
  Result r = run("executable = job.sh\narguments = a  b \\\"c d\\\"\nqueue\n");
  EXPECT_EQ(attr(r, 0, "Args"), "\"a  b \\\"c d\\\"\"");
  EXPECT_EQ(attr(r, 0, "Arguments"), "<absent>");
}

TEST_F(SubmitTest, ArgumentsNewSyntaxAreCanonicalV2) {
  Result r =
      run("executable = job.sh\narguments = \"  one   'two  three' ''  \"\"q\"\"  \"\nqueue\n");
  // Blanks inside a word are quoted one run at a time, as HTCondor writes V2.
  EXPECT_EQ(attr(r, 0, "Arguments"), "\"one two'  'three '' \\\"q\\\"\"");
  EXPECT_EQ(attr(r, 0, "Args"), "<absent>");
  EXPECT_EQ(one("executable = job.sh\nqueue\n", "Arguments"), "\"\"");
}

TEST_F(SubmitTest, EnvironmentBothSyntaxesEndSortedInV2) {
  EXPECT_EQ(
      one("executable = job.sh\nenvironment = ZED=1;ALPHA=two words;MID=\nqueue\n", "Environment"),
      "\"ALPHA=two' 'words MID= ZED=1\"");
  EXPECT_EQ(one("executable = job.sh\nenvironment = \"B=2 A='x y'\"\nqueue\n", "Environment"),
            "\"A=x' 'y B=2\"");
  EXPECT_EQ(one("executable = job.sh\nqueue\n", "Environment"), "\"\"");
}

TEST_F(SubmitTest, RankPriorityAndLease) {
  Result r = run("executable = job.sh\nqueue\n");
  EXPECT_EQ(attr(r, 0, "Rank"), "0.0");
  EXPECT_EQ(attr(r, 0, "JobPrio"), "0");
  EXPECT_EQ(attr(r, 0, "JobLeaseDuration"), "2400");
  Result g =
      run("executable = job.sh\nrank = Memory*2\npriority = 7\njob_lease_duration = 60\nqueue\n");
  EXPECT_EQ(attr(g, 0, "Rank"), "Memory * 2");
  EXPECT_EQ(attr(g, 0, "JobPrio"), "7");
  EXPECT_EQ(attr(g, 0, "JobLeaseDuration"), "60");
}

TEST_F(SubmitTest, NiceUserSetsTheNiceUserGroupAndNoNiceUserAttribute) {
  Result r = run("executable = job.sh\nnice_user = True\nqueue\n");
  expect_attrs(r, 0,
               {{"NiceUser", "<absent>"},
                {"AcctGroup", "\"nice-user\""},
                {"AcctGroupUser", "\"alice\""},
                {"AccountingGroup", "\"nice-user.alice\""},
                {"MaxJobRetirementTime", "0"}});
  Result n = run("executable = job.sh\nnice_user = false\nqueue\n");
  EXPECT_EQ(attr(n, 0, "AcctGroup"), "<absent>");
}

TEST_F(SubmitTest, AccountingGroupUsesTheSubmittingUserUnlessGiven) {
  Result r = run("executable = job.sh\naccounting_group = physics.hep\nqueue\n");
  EXPECT_EQ(attr(r, 0, "AcctGroup"), "\"physics.hep\"");
  EXPECT_EQ(attr(r, 0, "AcctGroupUser"), "\"alice\"");
  EXPECT_EQ(attr(r, 0, "AccountingGroup"), "\"physics.hep.alice\"");
  Result u = run("executable = job.sh\naccounting_group = g\naccounting_group_user = bob\nqueue\n");
  EXPECT_EQ(attr(u, 0, "AccountingGroup"), "\"g.bob\"");
  EXPECT_EQ(attr(u, 0, "AcctGroupUser"), "\"bob\"");
}

TEST_F(SubmitTest, ConcurrencyLimitsAreNormalised) {
  EXPECT_EQ(one("executable = job.sh\nconcurrency_limits = Zeta, alpha:3 ,B.C:0.25\nqueue\n",
                "ConcurrencyLimits"),
            "\"alpha:3,b.c:0.25,zeta\"");
  EXPECT_EQ(one("executable = job.sh\nconcurrency_limits_expr = strcat(\"a\",\":\",2)\nqueue\n",
                "ConcurrencyLimits"),
            "strcat(\"a\",\":\",2)");
}

TEST_F(SubmitTest, SignalsBecomeNames) {
  Result r =
      run("executable = job.sh\nkill_sig = 10\nremove_kill_sig = sigkill\nhold_kill_sig = INT\n"
          "queue\n");
  EXPECT_EQ(attr(r, 0, "KillSig"), "\"SIGUSR1\"");
  EXPECT_EQ(attr(r, 0, "RemoveKillSig"), "\"SIGKILL\"");
  EXPECT_EQ(attr(r, 0, "HoldKillSig"), "\"SIGINT\"");
  EXPECT_NE(error("executable = job.sh\nkill_sig = SIGNOPE\nqueue\n").find("SIGNOPE"),
            std::string::npos);
}

TEST_F(SubmitTest, PolicyExpressionsAreCopiedUnevaluated) {
  Result r =
      run("executable = job.sh\non_exit_remove = ExitCode == 0\non_exit_hold = ExitCode > 1\n"
          "on_exit_hold_reason = \"bad exit\"\non_exit_hold_subcode = 3\n"
          "periodic_hold = NumJobStarts > 2\nperiodic_hold_reason = \"loops\"\n"
          "periodic_hold_subcode = 4\nperiodic_release = true\nperiodic_remove = JobStatus == 5\n"
          "max_job_retirement_time = 600\njob_max_vacate_time = 30\nqueue\n");
  expect_attrs(r, 0,
               {{"OnExitRemove", "ExitCode == 0"},
                {"OnExitHold", "ExitCode > 1"},
                {"OnExitHoldReason", "\"bad exit\""},
                {"OnExitHoldSubCode", "3"},
                {"PeriodicHold", "NumJobStarts > 2"},
                {"PeriodicHoldReason", "\"loops\""},
                {"PeriodicHoldSubCode", "4"},
                {"PeriodicRelease", "true"},
                {"PeriodicRemove", "JobStatus == 5"},
                {"MaxJobRetirementTime", "600"},
                {"JobMaxVacateTime", "30"}});
  Result none = run("executable = job.sh\nqueue\n");
  for (const char* a : {"OnExitRemove", "OnExitHold", "PeriodicHold", "PeriodicRelease",
                        "PeriodicRemove", "KillSig", "MaxJobRetirementTime", "DeferralTime"}) {
    EXPECT_EQ(attr(none, 0, a), "<absent>") << a;
  }
}

TEST_F(SubmitTest, DeferralTimeWritesItsAttributesAndClause) {
  Result r = run("executable = job.sh\ndeferral_time = 2000000000\nqueue\n");
  expect_attrs(r, 0,
               {{"DeferralTime", "2000000000"},
                {"DeferralWindow", "0"},
                {"DeferralPrepTime", "300"},
                {"ScheddInterval", "300"}});
  std::string req = attr(r, 0, "Requirements");
  EXPECT_NE(req.find(std::string(kFsDomain) + " && TARGET.HasJobDeferral && (((time() + "
                                              "ScheddInterval) >= (DeferralTime - "
                                              "DeferralPrepTime)) && (time() < (DeferralTime + "
                                              "DeferralWindow)))"),
            std::string::npos)
      << req;
}

TEST_F(SubmitTest, CronCommandsAreStringsAndNeedDeferralButWriteNoDeferralTime) {
  Result r =
      run("executable = job.sh\ncron_minute = 0,15\ncron_hour = *\ncron_day_of_month = 1\n"
          "cron_month = 1-6\ncron_day_of_week = 1\ncron_prep_time = 20\ncron_window = 40\nqueue\n");
  expect_attrs(r, 0,
               {{"CronMinute", "\"0,15\""},
                {"CronHour", "\"*\""},
                {"CronDayOfMonth", "\"1\""},
                {"CronMonth", "\"1-6\""},
                {"CronDayOfWeek", "\"1\""},
                {"DeferralPrepTime", "20"},
                {"DeferralWindow", "40"},
                {"DeferralTime", "<absent>"}});
  EXPECT_NE(attr(r, 0, "Requirements").find("TARGET.HasJobDeferral"), std::string::npos);
}

TEST_F(SubmitTest, HoldSubmitsHeld) {
  Result r = run("executable = job.sh\nhold = yes\nqueue 2\n");
  for (size_t p = 0; p < 2; ++p) {
    EXPECT_EQ(attr(r, p, "JobStatus"), "5");
    EXPECT_EQ(attr(r, p, "HoldReason"), "\"submitted on hold at user's request\"");
    EXPECT_EQ(attr(r, p, "HoldReasonCode"), "15");
  }
  Result idle = run("executable = job.sh\nqueue\n");
  EXPECT_EQ(attr(idle, 0, "JobStatus"), "1");
  EXPECT_EQ(attr(idle, 0, "HoldReason"), "<absent>");
}

TEST_F(SubmitTest, BatchNameAndNotification) {
  Result r =
      run("executable = job.sh\nbatch_name = b-$(Cluster)\nnotification = Complete\nqueue\n");
  EXPECT_EQ(attr(r, 0, "JobBatchName"), "\"b-1\"");
  EXPECT_EQ(attr(r, 0, "JobNotification"), "2");
  EXPECT_EQ(one("executable = job.sh\nnotification = always\nqueue\n", "JobNotification"), "1");
  EXPECT_EQ(one("executable = job.sh\nnotification = ERROR\nqueue\n", "JobNotification"), "3");
  EXPECT_EQ(one("executable = job.sh\nqueue\n", "JobNotification"), "0");
  EXPECT_NE(error("executable = job.sh\nnotification = sometimes\nqueue\n").find("Notification"),
            std::string::npos);
}

TEST_F(SubmitTest, PlusAndMyAttributesAreStoredUnevaluated) {
  Result r = run(
      "executable = job.sh\n+Project = \"p1\"\nMY.Weight = 2 + 3\n+Flag = Memory > 10\nqueue\n");
  EXPECT_EQ(attr(r, 0, "Project"), "\"p1\"");
  EXPECT_EQ(attr(r, 0, "Weight"), "2 + 3");
  EXPECT_EQ(attr(r, 0, "Flag"), "Memory > 10");
  EXPECT_EQ(one("executable = job.sh\n+JobPrio = 9\nqueue\n", "JobPrio"), "9");
}

TEST_F(SubmitTest, RealsPrintAsOldClassAdSyntaxDoes) {
  Result r = run("executable = job.sh\n+A = 2.5\n+B = 0.1 * x\n+C = 3.0\nrank = 0.0\nqueue\n");
  expect_attrs(r, 0, {{"A", "2.5"}, {"B", "0.1 * x"}, {"C", "3.0"}, {"Rank", "0.0"}});
}

TEST_F(SubmitTest, JobAttributeNamesAreAcceptedAsCommands) {
  Result r =
      run("executable = job.sh\nRequestCpus = 2\nRequestMemory = 1G\nOnExitRemove = false\n"
          "JobPrio = 3\nqueue\n");
  expect_attrs(r, 0,
               {{"RequestCpus", "2"},
                {"RequestMemory", "1024"},
                {"OnExitRemove", "false"},
                {"JobPrio", "3"}});
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
}

TEST_F(SubmitTest, AlwaysWrittenAttributes) {
  Result r = run("executable = job.sh\nqueue\n");
  expect_attrs(r, 0,
               {{"JobUniverse", "5"},
                {"ClusterId", "1"},
                {"ProcId", "0"},
                {"MyType", "\"Job\""},
                {"TargetType", "\"Machine\""},
                {"JobSubmitFile", "\"test.sub\""},
                {"FileSystemDomain", "\"example.org\""},
                {"ShouldTransferFiles", "\"IF_NEEDED\""},
                {"WhenToTransferOutput", "\"ON_EXIT\""},
                {"Owner", "undefined"}});
  EXPECT_EQ(one("executable = job.sh\nuniverse = Vanilla\nqueue\n", "JobUniverse"), "5");
}

TEST_F(SubmitTest, ProcsShareTheClusterAdAndKeepOnlyWhatDiffers) {
  Result r = run("executable = job.sh\narguments = \"$(Process)\"\nqueue 3\n");
  ASSERT_EQ(r.procs.size(), 3u);
  for (size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(r.procs[p].id, static_cast<int>(p));
    EXPECT_EQ(attr(r, p, "Arguments"), "\"" + std::to_string(p) + "\"");
    EXPECT_EQ(attr(r, p, "Cmd"), "\"" + dir_ + "/job.sh\"");
  }
  // Later procs hold ProcId, JobStatus and Arguments only.
  EXPECT_EQ(r.procs[2].own.size(), 3u);
  EXPECT_GT(r.cluster.size(), 50u);
}

}  // namespace
}  // namespace kite::submit::testing

namespace kite::submit::testing {
namespace {

// condor_submit's keyword table (submit_utils.cpp prunable_keywords): priority is an integer
// ("must eval to an integer"), batch_name loses its quotes, leave_in_queue replaces
// LeaveJobInQueue, and the simple commands keep their types.
TEST_F(SubmitTest, SimpleKeywordsKeepCondorSubmitsTypes) {
  Result r =
      run("executable = job.sh\npriority = 2 + 3\nbatch_name = \"my batch\"\ncore_size = 10\n"
          "run_as_owner = yes\nleave_in_queue = JobStatus == 4\nwant_graceful_removal = true\n"
          "queue\n");
  expect_attrs(r, 0,
               {{"JobPrio", "5"},
                {"JobBatchName", "\"my batch\""},
                {"CoreSize", "10"},
                {"RunAsOwner", "true"},
                {"LeaveJobInQueue", "JobStatus == 4"},
                {"WantGracefulRemoval", "true"}});
  EXPECT_EQ(error("executable = job.sh\npriority = high\nqueue\n"),
            "priority=high is invalid, must eval to an integer.");
}

}  // namespace
}  // namespace kite::submit::testing
