// Draining (condor_drain): graceful, quick and fast; the draining START; coordination of
// retirement; finalizing; badput and unclaimed-time accounting.
// HTCONDOR: ep-policy "Drained State", machine-classad-attributes TotalMachineDraining*.
#include "policy/startd/engine.h"

namespace kite::startd {

bool Engine::drain_admitting() {
  if (!sd.draining_ || sd.drain_mode_ != DrainMode::kGraceful || sd.slots_.empty()) return false;
  if (!sd.drain_start_expr_ && !sd.slots_[0]->pol.has_draining_start) return false;
  for (auto& p : sd.slots_) {
    if (!p->dead && p->has_job && p->retire == Retire::kDrain && !p->accepted_while_draining)
      return true;
  }
  return false;
}

void Engine::drain_evict_admitted() {
  if (!sd.draining_ || drain_admitting()) return;
  for (auto& p : sd.slots_) {
    SlotImpl& t = *p;
    if (t.dead || !t.accepted_while_draining || t.state != State::kClaimed) continue;
    if (t.activity == Activity::kIdle) {
      t.end_requested = true;
      t.end_cause = "draining";
    } else if (t.retire != Retire::kDrain) {
      t.retire = Retire::kDrain;
      t.retire_end_override = now;
    }
  }
}

bool Engine::all_drained() {
  for (auto& p : sd.slots_) {
    SlotImpl& o = *p;
    if (o.dead) continue;
    if (o.dynamic) return false;
    if (o.state != State::kDrained) return false;
  }
  return true;
}

bool Engine::finalize_drain() {
  if (!sd.draining_ || !sd.drain_resume_) return false;
  for (auto& p : sd.slots_) {
    if (p->dead) continue;
    if (p->dynamic || p->state != State::kDrained || p->activity != Activity::kIdle) return false;
  }
  sd.draining_ = false;
  sd.drain_finalized_ = true;
  sd.last_drain_stop_ = now;
  for (auto& p : sd.slots_) {
    if (p->dead) continue;
    refresh(*p);
    settle(*p);
  }
  return true;
}

void Engine::accounting() {
  int64_t dt = now - sd.acct_time_;
  sd.acct_time_ = now;
  if (!sd.draining_ || dt <= 0) return;
  // HTCONDOR: machine-classad-attributes "TotalMachineDrainingUnclaimedTime": cpu-seconds
  // not used because of draining.
  int idle_cpus = 0;
  for (auto& p : sd.slots_) {
    if (p->dead) continue;
    if (p->has_job && p->job.starter_running) continue;
    if (p->partitionable) {
      idle_cpus += p->res.cpus;
    } else {
      idle_cpus += p->res.cpus;
    }
  }
  sd.drain_unclaimed_ += static_cast<double>(idle_cpus) * static_cast<double>(dt);
}

void Engine::on_drain(const Event& ev) {
  if (sd.draining_) return;
  sd.draining_ = true;
  sd.drain_mode_ = ev.drain;
  sd.drain_resume_ = ev.drain_resume;
  sd.drain_finalized_ = false;
  sd.drain_start_ = now;
  sd.last_drain_start_ = now;
  sd.drain_requests_++;
  sd.drain_reason_ = ev.drain_reason;
  // HTCONDOR: ep-policy "the eviction of jobs with shorter retirement time is delayed until
  // the job with the longest retirement time needs to be evicted"
  int64_t common_end = now;
  if (ev.drain == DrainMode::kGraceful) {
    for (auto& p : sd.slots_) {
      if (p->dead || !p->has_job || p->state != State::kClaimed) continue;
      p->retire = Retire::kDrain;
      p->retire_end_override = kNever;
      int64_t end = retirement_end(*p);
      if (p->retire == Retire::kDrain) {
        double e = static_cast<double>(p->job.start) + max_retirement(*p) +
                   static_cast<double>(suspended_so_far(*p));
        end = e > 9e18 ? kNever : whole(e);
      }
      if (end > common_end) common_end = end;
    }
  }
  for (auto& p : sd.slots_) {
    SlotImpl& t = *p;
    if (t.dead) continue;
    if (t.has_preempting) {
      act(t, ActionKind::kNotifyClaimant,
          "preempting claim " + t.preempting.id + " dropped: draining");
      t.has_preempting = false;
      t.preempting = Claim{};
    }
    if (t.state == State::kMatched ||
        (t.state == State::kClaimed && t.activity == Activity::kIdle)) {
      t.end_requested = true;
      t.end_cause = "draining";
    } else if (t.state == State::kClaimed) {
      if (ev.drain == DrainMode::kFast) {
        t.fast = true;
        t.end_cause = "draining (fast)";
      } else {
        t.retire = Retire::kDrain;
        t.retire_end_override = ev.drain == DrainMode::kGraceful ? common_end : now;
      }
    }
  }
  for (auto& p : sd.slots_) insert_policy(*p), refresh(*p);
  evaluate_all();
}

void Engine::on_cancel_drain() {
  if (!sd.draining_) return;
  sd.draining_ = false;
  sd.drain_start_expr_ = classad::ExprPtr();
  sd.drain_finalized_ = false;
  sd.last_drain_stop_ = now;
  for (auto& p : sd.slots_) {
    if (p->dead) continue;
    if (p->retire == Retire::kDrain) p->retire_end_override = kNever;
    insert_policy(*p);
    refresh(*p);
  }
  evaluate_all();
}

}  // namespace kite::startd
