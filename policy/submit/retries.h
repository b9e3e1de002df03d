// Internal to policy/submit: job retries as condor_submit writes them (max_retries,
// success_exit_code, retry_until folded into OnExitRemove).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "policy/submit/submit.h"

namespace kite::submit {

/// The commands as the submit file gives them; null when not given.
struct RetryCommands {
  const std::string* max_retries = nullptr;
  const std::string* success_exit_code = nullptr;
  const std::string* retry_until = nullptr;
  const std::string* on_exit_remove = nullptr;
  const std::string* on_exit_hold = nullptr;
};

/// Whether any retry command is given (then plan_retries decides OnExitRemove/OnExitHold).
bool retries_wanted(const RetryCommands& in);

/// The attributes (name, expression text) condor_submit's SetJobRetries writes when retries
/// are wanted: JobMaxRetries (2 unless given), JobSuccessExitCode, OnExitHold (false unless
/// given) and OnExitRemove = "NumJobCompletions > JobMaxRetries || ExitCode =?= <code>
/// [|| <retry_until>] [|| <on_exit_remove>]".
Status plan_retries(const RetryCommands& in, std::vector<std::pair<std::string, std::string>>* out);

}  // namespace kite::submit
