// Retirement and vacate time math: MAXJOBRETIREMENTTIME (machine and job), suspension not
// counted, the end of retirement, and the vacate time granted (retirement converted to vacate).
// HTCONDOR: ep-policy "State/Activity Transition Expression Summary".
#include "policy/startd/engine.h"

namespace kite::startd {

double Engine::max_retirement(SlotImpl& s) {
  double m = 0;
  if (!number(eval_job(s, s.pol.mjrt.get()), &m)) m = 0;
  if (s.has_job && s.job.ad) {
    const Expr* je = s.job.ad->lookup("MaxJobRetirementTime");
    if (je) {
      double j;
      if (number(s.job.ad->evaluate_expr(je, &sd.eval_env_), &j) && j < m) m = j;
    }
  }
  return m > 0 ? m : 0;  // negative or NaN: no retirement
}

int64_t Engine::suspended_so_far(SlotImpl& s) {
  int64_t t = s.job.suspended_total;
  if (s.job.suspend_since >= 0) t += now - s.job.suspend_since;
  return t;
}

int64_t Engine::retirement_end(SlotImpl& s) {
  if (s.retire_infinite) return kNever;
  int64_t end;
  if (s.retire == Retire::kLease ||
      (s.retire == Retire::kDrain && sd.drain_mode_ == DrainMode::kQuick)) {
    end = s.retire_end_override == kNever ? now : s.retire_end_override;
    return end;
  }
  double m = max_retirement(s);
  double e = static_cast<double>(s.job.start) + m + static_cast<double>(suspended_so_far(s));
  end = e > 9e18 ? kNever : whole(e);
  if (s.retire_end_override != kNever) {
    if (s.retire == Retire::kDrain) return s.retire_end_override;  // common end
    if (s.retire_end_override < end) end = s.retire_end_override;
  }
  return end;
}

int64_t Engine::vacate_time(SlotImpl& s, int64_t remaining) {
  int64_t m = s.job.mmvt;
  int64_t j = s.job.jmvt;
  if (j < 0) return m;
  if (j <= m) return j;
  if (remaining > m) return remaining < j ? remaining : j;
  return m;
}

int64_t Engine::retirement_remaining(SlotImpl& s) {
  int64_t end = retirement_end(s);
  if (end == kNever) return kNever;
  return end - now;
}

bool Engine::retirement_over(SlotImpl& s) {
  int64_t r = retirement_remaining(s);
  if (r == kNever) return false;
  return r <= vacate_time(s, r);
}

}  // namespace kite::startd
