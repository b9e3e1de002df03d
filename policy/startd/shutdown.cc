// Shutting down (condor_off): peaceful (retirement without end), graceful (retirement capped
// by SHUTDOWN_GRACEFUL_TIMEOUT) and fast (hard kill at once); done when every slot is Owner/Idle.
// HTCONDOR: ep-policy "Claimed State" (shutdown retirement), startd MAXJOBRETIREMENTTIME.
#include "policy/startd/engine.h"

namespace kite::startd {

void Engine::on_shutdown(const Event& ev) {
  if (sd.shutting_down_) return;
  sd.shutting_down_ = true;
  sd.shutdown_mode_ = ev.shutdown;
  sd.shutdown_start_ = now;
  int64_t cap = kNever, n;
  if (ev.shutdown == ShutdownMode::kGraceful && cfg_int(sd.cfg_, "SHUTDOWN_GRACEFUL_TIMEOUT", &n) &&
      n >= 0)
    cap = now + n;
  for (auto& p : sd.slots_) {
    SlotImpl& t = *p;
    if (t.dead) continue;
    if (t.has_preempting) {
      t.has_preempting = false;
      t.preempting = Claim{};
    }
    if (t.state == State::kMatched ||
        (t.state == State::kClaimed && t.activity == Activity::kIdle)) {
      t.end_requested = true;
      t.end_cause = "shutdown";
    } else if (t.state == State::kClaimed) {
      if (ev.shutdown == ShutdownMode::kFast) {
        t.fast = true;
        t.end_cause = "fast shutdown";
      } else {
        t.retire = Retire::kShutdown;
        t.retire_infinite = ev.shutdown == ShutdownMode::kPeaceful;
        t.retire_end_override = cap;
      }
    } else if (t.state == State::kPreempting && ev.shutdown == ShutdownMode::kFast &&
               t.activity == Activity::kVacating) {
      t.vacate_deadline = now;
    }
  }
  evaluate_all();
}

void Engine::check_shutdown_done() {
  if (!sd.shutting_down_ || sd.shut_down_) return;
  for (auto& p : sd.slots_) {
    if (p->dead) continue;
    if (p->dynamic || p->state != State::kOwner || p->has_job || p->bf_running) return;
  }
  sd.shut_down_ = true;
  for (auto& p : sd.slots_) {
    if (p->dead) continue;
    refresh(*p);
  }
  std::string why = "shutdown complete";
  if (!sd.shutdown_why_.empty()) why += " (" + sd.shutdown_why_ + ")";
  if (!sd.slots_.empty()) act(*sd.slots_[0], ActionKind::kExit, why);
}

}  // namespace kite::startd
