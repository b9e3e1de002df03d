// Periodic and on-exit job policy: which expression fires, in which order, with which reason
// and codes.
#include "policy/queue/job_policy.h"

#include <gtest/gtest.h>

#include "policy/classad/parser.h"

namespace kite::queue_policy {
namespace {

classad::AdPtr job(const std::string& text) {
  classad::AdPtr ad = classad::parse_classad_old(text);
  EXPECT_TRUE(ad) << text;
  return ad;
}

SystemPeriodic system(const std::string& text) {
  config::Config cfg("SCHEDD");
  EXPECT_TRUE(cfg.load_string(text).ok);
  cfg.finish();
  SystemPeriodic s;
  config::Status st = load_system_periodic(cfg, &s);
  EXPECT_TRUE(st.ok) << st.message;
  return s;
}

TEST(PeriodicPolicy, PeriodicHoldHoldsARunningJobWithTheJobPolicyCode) {
  classad::AdPtr j = job("JobStatus = 2\nImageSize = 5000\nPeriodicHold = ImageSize > 1000\n");
  PolicyDecision d = periodic_decision(*j, {});
  EXPECT_EQ(d.action, PolicyDecision::kHold);
  EXPECT_EQ(d.code, 3);
  EXPECT_EQ(d.subcode, 0);
  EXPECT_EQ(d.reason,
            "The job attribute PeriodicHold expression 'ImageSize > 1000' evaluated to "
            "TRUE");
}

TEST(PeriodicPolicy, TheJobsOwnReasonAndSubcodeWin) {
  classad::AdPtr j =
      job("JobStatus = 1\nPeriodicHold = true\nPeriodicHoldReason = \"too big\"\n"
          "PeriodicHoldSubCode = 42\n");
  PolicyDecision d = periodic_decision(*j, {});
  EXPECT_EQ(d.action, PolicyDecision::kHold);
  EXPECT_EQ(d.reason, "too big");
  EXPECT_EQ(d.subcode, 42);
}

TEST(PeriodicPolicy, AHeldJobIsNotHeldAgainButMayBeReleasedOrRemoved) {
  classad::AdPtr held = job("JobStatus = 5\nPeriodicHold = true\nPeriodicRelease = false\n");
  EXPECT_EQ(periodic_decision(*held, {}).action, PolicyDecision::kNone);
  classad::AdPtr release =
      job("JobStatus = 5\nHoldReasonCode = 3\nPeriodicRelease = HoldReasonCode == 3\n");
  EXPECT_EQ(periodic_decision(*release, {}).action, PolicyDecision::kRelease);
  classad::AdPtr remove = job("JobStatus = 5\nPeriodicRemove = JobStatus == 5\n");
  PolicyDecision d = periodic_decision(*remove, {});
  EXPECT_EQ(d.action, PolicyDecision::kRemove);
  EXPECT_EQ(d.reason,
            "The job attribute PeriodicRemove expression 'JobStatus == 5' evaluated "
            "to TRUE");
  // Hold is looked at before remove.
  classad::AdPtr both = job("JobStatus = 1\nPeriodicHold = true\nPeriodicRemove = true\n");
  EXPECT_EQ(periodic_decision(*both, {}).action, PolicyDecision::kHold);
}

TEST(PeriodicPolicy, SystemPeriodicExpressionsUseTheSystemCodeAndReason) {
  SystemPeriodic sys = system(
      "SYSTEM_PERIODIC_HOLD = NumJobStarts > 3\n"
      "SYSTEM_PERIODIC_HOLD_SUBCODE = 7\n"
      "SYSTEM_PERIODIC_REMOVE = JobStatus == 5 && HoldReasonCode == 26\n");
  classad::AdPtr j = job("JobStatus = 1\nNumJobStarts = 4\n");
  PolicyDecision d = periodic_decision(*j, sys);
  EXPECT_EQ(d.action, PolicyDecision::kHold);
  EXPECT_EQ(d.code, 26);
  EXPECT_EQ(d.subcode, 7);
  EXPECT_EQ(d.reason,
            "The system macro SYSTEM_PERIODIC_HOLD expression 'NumJobStarts > 3' "
            "evaluated to TRUE");
  classad::AdPtr h = job("JobStatus = 5\nHoldReasonCode = 26\n");
  EXPECT_EQ(periodic_decision(*h, sys).action, PolicyDecision::kRemove);
  classad::AdPtr fine = job("JobStatus = 1\nNumJobStarts = 1\n");
  EXPECT_EQ(periodic_decision(*fine, sys).action, PolicyDecision::kNone);
}

TEST(PeriodicPolicy, ABadSystemExpressionIsNamed) {
  config::Config cfg("SCHEDD");
  ASSERT_TRUE(cfg.load_string("SYSTEM_PERIODIC_REMOVE = (JobStatus ==\n").ok);
  cfg.finish();
  SystemPeriodic s;
  config::Status st = load_system_periodic(cfg, &s);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("SYSTEM_PERIODIC_REMOVE"), std::string::npos) << st.message;
}

TEST(ExitPolicy, CompletedByDefaultRequeuedWhenOnExitRemoveIsFalseHeldByOnExitHold) {
  classad::AdPtr plain = job("ExitCode = 1\nExitBySignal = false\n");
  EXPECT_EQ(exit_decision(*plain).action, PolicyDecision::kComplete);
  classad::AdPtr retry = job("ExitCode = 1\nExitBySignal = false\nOnExitRemove = ExitCode == 0\n");
  EXPECT_EQ(exit_decision(*retry).action, PolicyDecision::kRequeue);
  classad::AdPtr good = job("ExitCode = 0\nExitBySignal = false\nOnExitRemove = ExitCode == 0\n");
  EXPECT_EQ(exit_decision(*good).action, PolicyDecision::kComplete);
  classad::AdPtr hold =
      job("ExitCode = 0\nExitBySignal = true\nExitSignal = 9\nOnExitHold = ExitBySignal\n"
          "OnExitRemove = true\n");
  PolicyDecision d = exit_decision(*hold);
  EXPECT_EQ(d.action, PolicyDecision::kHold);
  EXPECT_EQ(d.code, 3);
  EXPECT_EQ(d.reason, "The job attribute OnExitHold expression 'ExitBySignal' evaluated to TRUE");
}

}  // namespace
}  // namespace kite::queue_policy
