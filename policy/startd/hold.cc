// WANT_HOLD: a job evicted because PREEMPT became true is put on hold (HoldReasonCode 21, with
// WANT_HOLD_REASON and WANT_HOLD_SUBCODE) instead of going back to the queue.
// HTCONDOR: startd WANT_HOLD, WANT_HOLD_REASON, WANT_HOLD_SUBCODE.
#include "policy/startd/engine.h"

#include "policy/classad/unparse.h"

namespace kite::startd {

namespace {
// HTCONDOR: startd "The attribute HoldReasonCode in the job ClassAd is set to the value 21 when
// WANT_HOLD is responsible for putting the job on hold."
constexpr int kStartdHeldJob = 21;
}  // namespace

// "When True and the value of PREEMPT becomes True and WANT_SUSPEND is False and
// MAXJOBRETIREMENTTIME has expired, the job is put on hold": checked as the slot enters
// Preempting for a job that PREEMPT is evicting. The hold replaces the soft kill (Vacating) or
// the hard kill (Killing); the starter stops the job the same way. Detail:
// `soft|hard HoldReasonCode=21 HoldReasonSubCode=N HoldReason="..."`.
bool Engine::hold_job(SlotImpl& s, bool soft) {
  if (s.job.held || !s.preempt_was_true) return false;
  int u = v(s);
  const Expr* want = s.pol.want_hold[u].get();
  if (!want || !truthy(eval_job(s, want))) return false;
  std::string reason;
  Value rv = eval_job(s, s.pol.want_hold_reason[u].get());
  if (rv.is_string()) reason = std::string(rv.as_string());
  if (reason.empty()) {
    // "If not defined or if the expression evaluates to Undefined, a default hold reason is
    // provided."
    reason = "The startd put this job on hold: WANT_HOLD (" + classad::to_string(want) +
             ") was true when the job was preempted.";
  }
  int64_t subcode = 0;
  double d;
  // "If not defined or if the expression evaluates to Undefined, the value is set to 0."
  if (number(eval_job(s, s.pol.want_hold_subcode[u].get()), &d)) subcode = whole(d);
  s.job.held = true;
  std::string detail = soft ? "soft" : "hard";
  detail += " HoldReasonCode=" + std::to_string(kStartdHeldJob);
  detail += " HoldReasonSubCode=" + std::to_string(subcode);
  detail += " HoldReason=" + classad::to_string(Value::string(reason));
  act(s, ActionKind::kHoldJob, detail);
  return true;
}

}  // namespace kite::startd
