// The triggers of the transition table answered for one slot now (Engine::holds), and the
// cause each transition records.
#include "policy/startd/engine.h"

namespace kite::startd {

const char* retire_text(Retire r) {
  switch (r) {
    case Retire::kNone: return "";
    case Retire::kPreempt: return "PREEMPT is true";
    case Retire::kRank: return "preempted by a claim of higher RANK";
    case Retire::kPriority: return "preempted by a claim of better user priority";
    case Retire::kVacate: return "vacate";
    case Retire::kRelease: return "claim released";
    case Retire::kDrain: return "draining";
    case Retire::kShutdown: return "shutdown";
    case Retire::kLease: return "claim lease expired";
  }
  return "";
}

// HTCONDOR: ep-policy "If the startd was retiring because of a preempting claim only and the
// preempting claim goes away, the normal Claimed/Busy state is resumed ... If instead the
// retirement is due to owner activity (PREEMPT) ... no unretirement is possible." PREEMPT keeps
// being evaluated while retiring; once true it is remembered (for WANT_HOLD too).
// HTCONDOR: startd CLAIM_WORKLIFE: the claim stops accepting jobs once its age exceeds the
// work life; -1 is infinite, and "a value of 0 has the effect of not allowing more than one job
// to run per claim, since it immediately expires after the first job starts running".
bool Engine::worklife_over(SlotImpl& s) {
  int64_t w = s.pol.claim_worklife;
  if (s.claim.activations == 0 || w < 0) return false;
  return w == 0 || now - s.claim.start > w;
}

void Engine::note_preempt(SlotImpl& s) {
  if (s.retire == Retire::kPreempt || want_suspend(s) || !preempt(s)) return;
  s.preempt_was_true = true;
  if (s.retire == Retire::kRank || s.retire == Retire::kPriority) s.retire = Retire::kPreempt;
}

bool Engine::holds(Trigger t, SlotImpl& s) {
  switch (t) {
    case Trigger::kIsOwnerFalse:
      return !sd.shutting_down_ && !truthy(eval_local(s, s.pol.is_owner.get()));
    case Trigger::kIsOwnerTrue: return truthy(eval_local(s, s.pol.is_owner.get()));
    case Trigger::kDrainRequested:
      // With a draining START expression, idle slots keep taking (interruptible) jobs until
      // the last job retiring for the drain is done.
      return sd.draining_ && !sd.shutting_down_ && !drain_admitting();
    case Trigger::kShutdown: return sd.shutting_down_;
    case Trigger::kRunBenchmarks:
      // HTCONDOR: ep-policy "If RUNBENCHMARKS is defined and set to something other than
      // FALSE, the startd will automatically run one set of benchmarks when it first starts"
      if (sd.shutting_down_ || !s.pol.runbench || s.dynamic) return false;
      return !s.benchmarked || truthy(eval_local(s, s.pol.runbench.get()));
    case Trigger::kBenchmarkDone: return now >= s.benchmark_end;
    case Trigger::kClaimAccepted:
    case Trigger::kClaimInOwner: return s.claim_pending;
    case Trigger::kMatchAccepted: return s.match_pending;
    case Trigger::kStartBackfill: {
      if (sd.shutting_down_ || s.dynamic || s.partitionable || !sd.enable_backfill_) return false;
      return truthy(eval_local(s, s.pol.start_backfill.get()));
    }
    case Trigger::kMatchEnds:
      if (s.end_requested) return true;
      if (now >= s.match_deadline) {
        s.end_cause = "MATCH_TIMEOUT expired";
        return true;
      }
      if (is_false(eval_local(s, start_expr(s)))) {
        s.end_cause = "START is false";
        return true;
      }
      return false;
    case Trigger::kClaimEnds:
      if (s.end_requested) return true;
      if (s.has_preempting) {
        s.end_cause = retire_text(s.preempting.by_priority ? Retire::kPriority : Retire::kRank);
        return true;
      }
      if (s.claim.lease_expires <= now) {
        s.end_cause = "claim lease expired";
        return true;
      }
      if (worklife_over(s)) {
        s.end_cause = "CLAIM_WORKLIFE expired";
        return true;
      }
      if (is_false(eval_with(s, start_expr(s), s.claim.ad.get()))) {
        s.end_cause = "START is false";
        return true;
      }
      return false;
    case Trigger::kActivated: return s.activate_pending;
    case Trigger::kStarterExited: return !s.job.starter_running && !s.starter_cleaning;
    case Trigger::kJobExited: return !s.job.starter_running && s.starter_cleaning;
    case Trigger::kCleanedEvict:
      return !s.starter_cleaning &&
             (s.retire != Retire::kNone || s.fast || s.has_preempting || s.end_requested);
    case Trigger::kCleaned: return !s.starter_cleaning;
    case Trigger::kFastEviction: return s.fast;
    case Trigger::kSuspend: return want_suspend(s) && suspend(s);
    case Trigger::kRetire:
      if (s.retire != Retire::kNone) return true;
      if (s.claim.lease_expires <= now) {
        s.retire = Retire::kLease;
        return true;
      }
      // HTCONDOR: ep-policy "If WANT_SUSPEND is any value other than TRUE, then the startd
      // will evaluate the PREEMPT expression"
      if (!want_suspend(s) && preempt(s)) {
        s.retire = Retire::kPreempt;
        s.preempt_was_true = true;
        return true;
      }
      return false;
    case Trigger::kContinue: return cont(s);
    case Trigger::kContinueRetiring: return s.retire != Retire::kNone && cont(s);
    case Trigger::kPreemptSuspended:
      if (preempt(s)) {
        s.retire = Retire::kPreempt;
        s.preempt_was_true = true;
        return true;
      }
      return false;
    case Trigger::kRetirementOver:
      // HTCONDOR: ep-policy "The Claimed State and Leases": an expired lease evicts the job.
      if (s.has_claim && s.claim.lease_expires <= now && s.retire != Retire::kLease) {
        s.retire = Retire::kLease;
        s.retire_end_override = kNever;
      }
      if (s.activity == Activity::kRetiring) note_preempt(s);
      return s.retire != Retire::kNone && retirement_over(s);
    case Trigger::kUnretire:
      return ((s.retire == Retire::kRank || s.retire == Retire::kPriority) && !s.has_preempting) ||
             (s.retire == Retire::kDrain && !sd.draining_);
    case Trigger::kKillNow:
      if (now >= s.vacate_deadline) {
        s.end_cause = "vacate time expired";
        return true;
      }
      if (kill(s)) {
        s.end_cause = "KILL is true";
        return true;
      }
      return false;
    case Trigger::kGoneToNewClaim:
      return !s.job.starter_running && !s.starter_cleaning && s.has_preempting && !sd.draining_ &&
             !sd.shutting_down_;
    case Trigger::kGoneToOwner: return !s.job.starter_running && !s.starter_cleaning;
    case Trigger::kBackfillSpawned: return s.bf_running;
    case Trigger::kBackfillEvict:
      if (s.claim_pending || s.match_pending || s.end_requested || sd.shutting_down_ ||
          sd.draining_)
        return true;
      if (truthy(eval_local(s, s.pol.evict_backfill.get()))) {
        s.bf_evict_to_owner = true;
        s.bf_cause = "EVICT_BACKFILL is true";
        return true;
      }
      return false;
    case Trigger::kBackfillExited: return !s.bf_running;
    case Trigger::kBackfillToOwner:
      return s.bf_evict_to_owner || sd.shutting_down_ || sd.draining_ || s.end_requested;
    case Trigger::kBackfillToClaimed: return s.claim_pending;
    case Trigger::kBackfillToMatched: return s.match_pending;
    case Trigger::kAllDrained: return all_drained();
    case Trigger::kDrainCanceled: return !sd.draining_ || sd.shutting_down_;
  }
  return false;
}

bool Engine::holds_cb(Trigger t, void* ctx) {
  Ctx* c = static_cast<Ctx*>(ctx);
  return c->e->holds(t, *c->s);
}

std::string Engine::cause_for(const TransitionRow& r, SlotImpl& s) {
  switch (r.trigger) {
    case Trigger::kMatchEnds:
    case Trigger::kClaimEnds:
    case Trigger::kKillNow: return s.end_cause.empty() ? trigger_text(r.trigger) : s.end_cause;
    case Trigger::kRetire:
    case Trigger::kPreemptSuspended: return retire_text(s.retire);
    case Trigger::kFastEviction: return s.end_cause.empty() ? "fast eviction" : s.end_cause;
    case Trigger::kRetirementOver:
      if (s.retire == Retire::kLease) return "claim lease expired";
      return "retirement over (soft kill before its end)";
    case Trigger::kDrainRequested: return "draining";
    case Trigger::kDrainCanceled:
      if (sd.shutting_down_) return "shutdown";
      return sd.drain_finalized_ ? "draining finalized" : "draining canceled";
    case Trigger::kBackfillEvict:
    case Trigger::kBackfillToOwner:
      return s.bf_cause.empty() ? trigger_text(r.trigger) : s.bf_cause;
    default: return trigger_text(r.trigger);
  }
}

}  // namespace kite::startd
