// The schedd's job policy: what a job's own periodic_hold / periodic_release / periodic_remove
// and the pool's SYSTEM_PERIODIC_* say at each PERIODIC_EXPR_INTERVAL, and what on_exit_hold /
// on_exit_remove say when the job exits. Pure: the caller applies the decision to the queue.
#pragma once

#include <string>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"
#include "policy/config/config.h"

namespace kite::queue_policy {

// HoldReasonCode values the queue writes (job-classad-attributes.rst, "Hold Reason Codes").
enum HoldCode : int {
  kHoldUserRequest = 1,
  kHoldJobPolicy = 3,  // periodic_hold, on_exit_hold
  kHoldStartdHeldJob = 21,
  kHoldSystemPolicy = 26,  // SYSTEM_PERIODIC_HOLD
};

// SYSTEM_PERIODIC_HOLD (with _REASON and _SUBCODE), SYSTEM_PERIODIC_RELEASE,
// SYSTEM_PERIODIC_REMOVE: null when not configured.
struct SystemPeriodic {
  classad::ExprPtr hold, hold_reason, hold_subcode, release, remove;
};
config::Status load_system_periodic(const config::Config& cfg, SystemPeriodic* out);

struct PolicyDecision {
  enum Action { kNone, kHold, kRelease, kRemove, kComplete, kRequeue };
  Action action = kNone;
  std::string reason;  // HoldReason / RemoveReason / ReleaseReason
  int code = 0;        // HoldReasonCode
  int subcode = 0;     // HoldReasonSubCode
};

// At a periodic evaluation of `job` (JobStatus read from it): a job not held is held when
// PeriodicHold or SYSTEM_PERIODIC_HOLD is true; a held job is released when PeriodicRelease or
// SYSTEM_PERIODIC_RELEASE is true; then any job is removed when PeriodicRemove or
// SYSTEM_PERIODIC_REMOVE is true.
PolicyDecision periodic_decision(const classad::ClassAd& job, const SystemPeriodic& sys);

// When the job has exited (its ad already carries ExitCode, ExitBySignal, ...): held when
// OnExitHold is true, else completed when OnExitRemove is true or missing, else requeued.
PolicyDecision exit_decision(const classad::ClassAd& job);

}  // namespace kite::queue_policy
