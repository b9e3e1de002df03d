// Moving a slot along the transition table: the entry and exit work of each move (claims,
// jobs, signals, dynamic slot deletion) and following a chain of moves until stable.
#include "policy/startd/engine.h"
#include "policy/startd/requests.h"

#include <cstdio>

namespace kite::startd {

void Engine::act(SlotImpl& s, ActionKind k, std::string detail) {
  Action a;
  a.time = now;
  a.kind = k;
  a.slot = s.name;
  a.detail = std::move(detail);
  out->order.push_back(~static_cast<int>(out->actions.size()));
  out->actions.push_back(std::move(a));
}

void Engine::record(SlotImpl& s, State fs, Activity fa, int number, const std::string& cause) {
  TransitionRecord r;
  r.time = now;
  r.slot = s.name;
  r.from_state = fs;
  r.from_activity = fa;
  r.to_state = s.state;
  r.to_activity = s.activity;
  r.number = number;
  r.cause = cause;
  out->order.push_back(static_cast<int>(out->transitions.size()));
  out->transitions.push_back(std::move(r));
}

void Engine::end_job_accounting(SlotImpl& s, bool evicted) {
  if (!s.has_job) return;
  int64_t susp = suspended_so_far(s);
  int64_t run = now - s.job.start - susp;
  s.total_claim_run += run;
  s.total_claim_suspend += susp;
  s.total_job_run = run;
  if (evicted && (s.retire == Retire::kDrain || (sd.draining_ && s.fast))) {
    sd.drain_badput_ += static_cast<double>(run) * (s.res.cpus > 0 ? s.res.cpus : 1);
  }
  s.has_job = false;
  s.job = Job{};
  s.flag_ignores_softkill = false;
  s.flag_stuck = false;
  insert_policy(s);
}

void Engine::clear_claim(SlotImpl& s, const char* why) {
  if (s.has_claim) sd.last_claim_time_ = now;  // STARTD_NOCLAIM_SHUTDOWN counts from here
  // HTCONDOR: <Keyword>_HOOK_EVICT_CLAIM "is invoked whenever the condor_startd needs to
  // evict a claim representing fetched work".
  if (s.has_claim && s.claim.fetched) act(s, ActionKind::kEvictClaim, why);
  if (s.has_claim)
    act(s, ActionKind::kNotifyClaimant, std::string("claim ") + s.claim.id + " broken: " + why);
  s.has_claim = false;
  s.claim = Claim{};
  s.total_claim_run = s.total_claim_suspend = 0;
  s.accepted_while_draining = false;
  ins(s, "AcceptedWhileDraining", Value::boolean(false));
}

void Engine::start_job(SlotImpl& s) {
  s.activate_pending = false;
  s.preempt_was_true = false;
  s.has_job = true;
  s.job.start = now;
  s.job.starter_running = true;
  s.job.vanilla = false;
  int64_t uni = 0;
  if (s.job.ad && ad_int(*s.job.ad, "JobUniverse", &uni)) s.job.vanilla = uni == 5;
  std::string sig;
  if (s.job.ad && s.job.ad->evaluate_string("KillSig", sig) && !sig.empty()) s.job.kill_sig = sig;
  insert_policy(s);
  double m = 600;
  if (!number(eval_job(s, s.pol.mmvt.get()), &m)) m = 600;
  s.job.mmvt = duration(m);
  s.job.jmvt = -1;
  if (s.job.ad) {
    const Expr* je = s.job.ad->lookup("JobMaxVacateTime");
    double j;
    if (je && number(s.job.ad->evaluate_expr(je, &sd.eval_env_), &j)) s.job.jmvt = duration(j);
  }
  // HTCONDOR: ep-policy "The length of the claim lease is the job's ClassAd attribute
  // JobLeaseDuration": a job that brings one sets the lease from its start.
  int64_t jl = 0;
  if (s.job.ad && ad_int(*s.job.ad, "JobLeaseDuration", &jl) && jl > 0) {
    jl = jl > kLongestDuration ? kLongestDuration : jl;
    s.claim.lease = jl;
    s.claim.lease_expires = now + jl;
  }
  s.claim.activations++;
  count_stat(Stat::kJobStarts);
  if (s.adopt_start >= 0) {
    // The starter outlived the previous agent and still runs the job.
    s.job.start = s.adopt_start;
    s.adopt_start = -1;
    return;
  }
  act(s, ActionKind::kSpawnStarter, s.job.vanilla ? "vanilla" : "");
}

void Engine::enter_preempting(SlotImpl& s) {
  // Called after the move into Preempting/<act>; sends the signals for the activity.
  if (s.activity == Activity::kVacating) {
    if (s.has_job && s.job.starter_running) {
      if (s.job.suspend_since >= 0) resume(s);
      int64_t r = s.retire == Retire::kNone ? 0 : retirement_remaining(s);
      if (r == kNever || r < 0) r = 0;
      s.vacate_deadline = now + vacate_time(s, r);
      s.job.soft_killed = true;
      if (!hold_job(s, true)) act(s, ActionKind::kSoftKill, s.job.kill_sig);
    } else {
      s.vacate_deadline = kNever;
    }
  } else if (s.activity == Activity::kKilling) {
    if (s.has_job && s.job.starter_running) {
      if (s.job.suspend_since >= 0) resume(s);
      s.job.hard_killed = true;
      s.kill_deadline = now + s.pol.killing_timeout;
      if (!hold_job(s, false)) act(s, ActionKind::kHardKill, "SIGKILL");
    } else if (s.starter_cleaning) {
      s.kill_deadline = now + s.pol.killing_timeout;  // the job is gone: only the starter is left
    }
  }
}

void Engine::resume(SlotImpl& s) {
  if (s.job.suspend_since >= 0) {
    s.job.suspended_total += now - s.job.suspend_since;
    s.job.suspend_since = -1;
  }
  act(s, ActionKind::kContinue);
}

void Engine::claim_take(SlotImpl& s) {
  sd.last_claim_time_ = now;
  s.claim = std::move(s.pending_claim);
  s.pending_claim = Claim{};
  s.has_claim = true;
  s.claim_pending = false;
  s.match_pending = false;
  s.accepted_while_draining = sd.draining_;
  ins(s, "AcceptedWhileDraining", Value::boolean(sd.draining_));
}

void Engine::claim_switch(SlotImpl& s) {
  end_job_accounting(s, true);
  clear_claim(s, "preempted by a better claim");
  s.claim = std::move(s.preempting);
  s.preempting = Claim{};
  s.has_preempting = false;
  s.has_claim = true;
  reset_eviction(s);
}

void Engine::claim_end(SlotImpl& s) {
  std::string why = !s.end_cause.empty()        ? s.end_cause
                    : s.retire != Retire::kNone ? retire_text(s.retire)
                                                : "preempted";
  if (s.job.held) why += " (job put on hold)";
  end_job_accounting(s, true);
  clear_claim(s, why.c_str());
  if (s.has_preempting) {
    act(s, ActionKind::kNotifyClaimant, "preempting claim " + s.preempting.id + " dropped");
    s.has_preempting = false;
    s.preempting = Claim{};
  }
  reset_eviction(s);
}

void Engine::backfill_stop(SlotImpl& s) {
  // HTCONDOR: ep-policy "the condor_startd will only spawn a single instance of the BOINC
  // client": a slot leaving backfill while others still use the client just lets go of it.
  if (backfill_users(&s) > 0) {
    s.bf_running = false;
  } else {
    act(s, ActionKind::kKillBackfill);
  }
  if (s.bf_cause.empty()) {
    s.bf_cause = s.claim_pending     ? "claimed by schedd"
                 : s.match_pending   ? "matched by negotiator"
                 : sd.shutting_down_ ? "shutdown"
                 : sd.draining_      ? "draining"
                                     : "vacate";
  }
  if (!s.claim_pending && !s.match_pending) s.bf_evict_to_owner = true;
}

void Engine::entry_work(SlotImpl& s, EntryWork w) {
  switch (w) {
    case EntryWork::kNone: break;
    case EntryWork::kRunBenchmarks:
      s.benchmark_end = now + 1;
      act(s, ActionKind::kRunBenchmarks);
      break;
    case EntryWork::kTakeClaim: claim_take(s); break;
    case EntryWork::kAwaitClaim:
      s.match_pending = false;
      s.match_deadline = now + s.pol.match_timeout;
      break;
    case EntryWork::kStartJob: start_job(s); break;
    case EntryWork::kEndJob: end_job_accounting(s, false); break;
    case EntryWork::kSuspendJob:
      s.job.suspend_since = now;
      act(s, ActionKind::kSuspend);
      break;
    case EntryWork::kUnretire:
      s.retire = Retire::kNone;
      s.retire_end_override = kNever;
      break;
    case EntryWork::kKillJob: enter_preempting(s); break;
    case EntryWork::kSwitchClaim: claim_switch(s); break;
    case EntryWork::kEndClaim: claim_end(s); break;
    case EntryWork::kStopBackfill: backfill_stop(s); break;
    case EntryWork::kForgetBackfill:
      s.bf_evict_to_owner = false;
      s.bf_cause.clear();
      s.end_requested = false;
      break;
  }
}

Activity Engine::eviction_activity(SlotImpl& s, const TransitionRow& r) {
  // HTCONDOR: ep-policy "Depending on the value of WANT_VACATE ... Vacating ... Killing"
  if (s.fast || r.trigger == Trigger::kFastEviction) return Activity::kKilling;
  if (s.has_job && s.job.starter_running)
    return want_vacate(s) ? Activity::kVacating : Activity::kKilling;
  return Activity::kVacating;
}

void Engine::pair_leave(SlotImpl& s, State ts) {
  if (s.activity == Activity::kSuspended && s.state == State::kClaimed && ts == State::kClaimed)
    resume(s);
  if (s.activity == Activity::kBenchmarking) {
    s.benchmarked = true;
    s.last_benchmark = static_cast<double>(now);
    s.benchmark_end = kNever;
  }
  if (s.state == State::kMatched) {
    s.match_deadline = kNever;
    s.match_pending = false;
  }
  if (s.state == State::kPreempting) s.vacate_deadline = s.kill_deadline = kNever;
}

void Engine::backfill_join(SlotImpl& s) {
  // "If a given slot on a multi-core enters the Backfill state and a BOINC client is already
  // running under this condor_startd, the slot will immediately enter Backfill/Busy without
  // waiting to spawn another copy of the BOINC client."
  bool running = backfill_users(&s) > 0;
  s.bf_running = true;
  if (!running) act(s, ActionKind::kSpawnBackfill);
}

void Engine::eviction_start(SlotImpl& s) {
  if (s.has_job && s.job.starter_running && s.retire == Retire::kNone && !s.fast)
    s.retire = Retire::kVacate;
  // HTCONDOR: machine-classad-attributes JobPreemptions ("a running job has been preempted"),
  // JobRankPreemptions (for the machine's RANK), JobUserPrioPreemptions (fair share).
  if (s.has_job && s.job.starter_running) {
    count_stat(Stat::kJobPreemptions);
    if (s.has_preempting && s.retire == Retire::kRank) count_stat(Stat::kJobRankPreemptions);
    if ((s.has_preempting || s.pslot_victim) && s.retire == Retire::kPriority)
      count_stat(Stat::kJobUserPrioPreemptions);
  }
  enter_preempting(s);
}

bool Engine::apply(SlotImpl& s, const TransitionRow& r) {
  State fs = s.state;
  Activity fa = s.activity;
  std::string cause = cause_for(r, s);
  State ts = r.to_state;
  bool evicting = ts == State::kPreempting && fs == State::kClaimed;
  Activity ta = evicting ? eviction_activity(s, r) : r.to_activity;
  pair_leave(s, ts);
  int64_t entered = s.entered_activity;
  s.state = ts;
  s.activity = ta;
  if (ts != fs) s.entered_state = now;
  if (ta != fa || ts != fs) s.entered_activity = now;
  record(s, fs, fa, r.number, cause);
  publish_pair_times(s, fs, fa, entered);

  entry_work(s, r.work);
  bool client_killed = fs == State::kBackfill && fa == Activity::kKilling;
  if (ts == State::kBackfill && ta == Activity::kIdle && !s.bf_running && !s.bf_evict_to_owner &&
      !s.claim_pending && !s.match_pending && !client_killed)
    backfill_join(s);
  if (evicting) eviction_start(s);
  if (ts == State::kMatched && fs != State::kMatched) s.end_requested = false;
  refresh(s);
  act(s, ActionKind::kPublishAds);
  // A dynamic slot that has no claim left is deleted and its resources go back.
  if (s.dynamic && (ts == State::kOwner || ts == State::kUnclaimed)) {
    delete_dslot(s);
    return false;
  }
  return true;
}

int Engine::backfill_users(const SlotImpl* except) {
  int n = 0;
  for (auto& p : sd.slots_) {
    if (!p->dead && p.get() != except && p->bf_running) ++n;
  }
  return n;
}

void Engine::reset_eviction(SlotImpl& s) {
  s.retire = Retire::kNone;
  s.retire_end_override = kNever;
  s.retire_infinite = false;
  s.fast = false;
  s.end_requested = false;
  s.end_cause.clear();
  s.vacate_deadline = s.kill_deadline = kNever;
  s.preempt_was_true = false;
}

void Engine::delete_dslot(SlotImpl& s) {
  SlotImpl* p = s.parent;
  p->res_dirty = true;
  for (const StdResource& r : kStdResources) r.add(p->res, r.amount(s.res));
  for (size_t i = 0; i < s.res.custom.size() && i < p->res.custom.size(); ++i) {
    p->res.custom[i] += s.res.custom[i];
    for (const std::string& id : s.res.ids[i]) p->res.ids[i].push_back(id);
  }
  s.dead = true;
  refresh_total_slots();
  char buf[160];
  std::snprintf(buf, sizeof buf, "resources returned to %s (cpus=%d memory=%lld disk=%lld)",
                p->name.c_str(), s.res.cpus, static_cast<long long>(s.res.memory_mb),
                static_cast<long long>(s.res.disk_kb));
  act(s, ActionKind::kDeleteSlot, buf);
  refresh(*p);
  act(*p, ActionKind::kPublishAds);
}

void Engine::settle(SlotImpl& s) {
  uint64_t seen = 0;
  for (int guard = 0; guard < 64 && !s.dead; ++guard) {
    if (sd.shut_down_) return;
    seen |= uint64_t{1} << (static_cast<int>(s.state) * 8 + static_cast<int>(s.activity));
    Ctx c{this, &s};
    const TransitionRow* r = transition_step(s.state, s.activity, holds_cb, &c);
    if (!r) return;
    uint64_t to =
        uint64_t{1} << (static_cast<int>(r->to_state) * 8 + static_cast<int>(r->to_activity));
    if ((seen & to) && !r->revisits) return;
    if (!apply(s, *r)) return;
    refresh_cross();
  }
}

void Engine::killing_timeout(SlotImpl& s) {
  if (s.state == State::kPreempting && s.activity == Activity::kKilling && starter_alive(s) &&
      !s.job.starter_sigkilled && now >= s.kill_deadline) {
    s.job.starter_sigkilled = true;
    act(s, ActionKind::kKillStarter, "KILLING_TIMEOUT expired");
  }
}

}  // namespace kite::startd
