// Job retries: condor_submit's SetJobRetries (submit_utils.cpp) writes JobMaxRetries (2 when
// only success_exit_code or retry_until is given), JobSuccessExitCode, OnExitHold = false and
// OnExitRemove = "NumJobCompletions > JobMaxRetries || ExitCode =?= <code>" with retry_until
// (a number N meaning "ExitCode =?= N") and on_exit_remove or'ed in, parenthesised when they
// bind more loosely than ||.
#include "tests/policy/submit/submit_helpers.h"

namespace kite::submit::testing {
namespace {

TEST_F(SubmitTest, MaxRetriesWritesJobMaxRetriesAndTheRemoveCheck) {
  Result r = run("executable = job.sh\nmax_retries = 3\nqueue\n");
  expect_attrs(r, 0,
               {{"JobMaxRetries", "3"},
                {"MaxRetries", "<absent>"},
                {"OnExitHold", "false"},
                {"OnExitRemove", "NumJobCompletions > JobMaxRetries || ExitCode =?= 0"}});
}

TEST_F(SubmitTest, SuccessCodeRetryUntilAndOnExitRemoveJoinTheRemoveCheck) {
  Result r =
      run("executable = job.sh\nsuccess_exit_code = 5\nretry_until = ExitCode == 2\n"
          "on_exit_hold = ExitCode > 100\nqueue\n");
  expect_attrs(r, 0,
               {{"JobMaxRetries", "2"},
                {"JobSuccessExitCode", "5"},
                {"OnExitHold", "ExitCode > 100"},
                {"OnExitRemove",
                 "NumJobCompletions > JobMaxRetries || ExitCode =?= JobSuccessExitCode || "
                 "ExitCode == 2"}});
  Result n = run("executable = job.sh\nretry_until = 7\non_exit_remove = x ? y : z\nqueue\n");
  EXPECT_EQ(attr(n, 0, "OnExitRemove"),
            "NumJobCompletions > JobMaxRetries || ExitCode =?= 0 || ExitCode =?= 7 || (x ? y : z)");
}

TEST_F(SubmitTest, WithoutRetriesOnExitCommandsAreCopied) {
  Result r = run("executable = job.sh\non_exit_remove = ExitCode == 0\nqueue\n");
  expect_attrs(r, 0,
               {{"OnExitRemove", "ExitCode == 0"},
                {"OnExitHold", "<absent>"},
                {"JobMaxRetries", "<absent>"}});
  expect_error("executable = job.sh\nmax_retries = many\nqueue\n", "max_retries=many is invalid");
}

}  // namespace
}  // namespace kite::submit::testing
