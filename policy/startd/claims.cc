// Claims and the job-level events on them: claim requests (new and preempting), matches,
// activations, deactivation, starter and backfill exits, keep-alives, lease expiry, the
// preempting claimant withdrawing, release and vacate.
// HTCONDOR: ep-policy "Claimed State", "The Claimed State and Leases".
#include "policy/startd/engine.h"

#include <strings.h>

#include <cstdio>

#include "policy/classad/match.h"
#include "policy/startd/requests.h"

namespace kite::startd {

SlotImpl* Engine::find_slot(const std::string& name) {
  for (auto& s : sd.slots_) {
    if (!s->dead && strcasecmp(s->name.c_str(), name.c_str()) == 0) return s.get();
  }
  return nullptr;
}

void Engine::refuse(SlotImpl& s, const std::string& why) {
  act(s, ActionKind::kRefuse, why);
}

Claim Engine::new_claim(SlotImpl& s, const ClassAd* ad, ClassAd* copy) {
  Claim c;
  char buf[64];
  std::snprintf(buf, sizeof buf, "#%lld#%lld", static_cast<long long>(sd.start_time_),
                static_cast<long long>(++sd.claim_counter_));
  c.id = "<" + sd.facts_.hostname + ">" + buf;
  if (copy) copy->ref();
  c.ad = AdPtr(copy ? copy : ad ? ad->copy() : ClassAd::make());
  c.start = now;
  int64_t alive = sd.claim_alive_, missed = sd.claim_missed_;
  alive = alive > kLongestDuration ? kLongestDuration : alive;
  missed = missed > kLongestDuration ? kLongestDuration : missed;
  if (__builtin_mul_overflow(alive, missed, &c.lease) || c.lease > kLongestDuration)
    c.lease = kLongestDuration;
  int64_t jl = 0;
  // HTCONDOR: ep-policy "The Claimed State and Leases": JobLeaseDuration, else
  // MAX_CLAIM_ALIVES_MISSED * alive interval.
  if (ad_int(*c.ad, "JobLeaseDuration", &jl) && jl > 0)
    c.lease = jl > kLongestDuration ? kLongestDuration : jl;
  c.lease_expires = now + c.lease;
  c.rank = rank_for(s, c.ad.get());
  return c;
}

// HTCONDOR: ep-policy "The START Expression" / "Requirements": the negotiator only matches a
// job whose Requirements hold for the slot and that fits the slot's Requirements, which
// HTCondor advertises as START && WithinResourceLimits (observed slot ads). The startd checks
// again when claimed: a request that is not a sane amount (requests.h: negative, not finite,
// more than the machine), or names more Cpus, Memory, Disk or custom resources than a static
// (or dynamic) slot has, or whose Requirements are false for the slot, is refused. A
// partitionable slot checks its free resources when it carves.
bool Engine::request_fits(SlotImpl& s, ClassAd* req, std::string* why) {
  if (!req) return true;
  classad::MatchPair mp(*req, *s.ad);
  if (const Expr* r = req->lookup("Requirements")) {
    if (is_false(mp.evaluate_left(r))) {
      *why = "the job's Requirements are false for the slot";
      return false;
    }
  }
  RequestAmounts want;
  if (!requests_read(*req, s.ad.get(), sd.layout_, &want, why)) return false;
  if (s.partitionable) return true;
  char buf[160];
  for (size_t i = 0; i < kStdResourceCount; ++i) {
    const StdResource& r = kStdResources[i];
    if (!want.given[i] || want.std[i] <= r.amount(s.res)) continue;  // no request: no check
    std::snprintf(buf, sizeof buf, "%s %lld is more than the slot's %s %lld", r.request_attr,
                  static_cast<long long>(want.std[i]), r.name,
                  static_cast<long long>(r.amount(s.res)));
    *why = buf;
    return false;
  }
  const Layout& L = sd.layout_;
  for (size_t i = 0; i < L.resources.size(); ++i) {
    double have = i < s.res.custom.size() ? s.res.custom[i] : 0;
    if (static_cast<double>(want.custom[i]) <= have) continue;
    std::snprintf(buf, sizeof buf, "Request%s %lld is more than the slot's %s %g",
                  L.resources[i].name.c_str(), static_cast<long long>(want.custom[i]),
                  L.resources[i].name.c_str(), have);
    *why = buf;
    return false;
  }
  return true;
}

SlotImpl* Engine::claim_request(SlotImpl& t, const ClassAd* ad, bool by_priority) {
  count_stat(Stat::kClaimRequests);
  if (sd.shutting_down_) {
    refuse(t, "claim refused: shutting down");
    return nullptr;
  }
  AdPtr req(ad ? ad->copy() : ClassAd::make());
  bool start_ok = start_for(t, req.get());
  if (sd.draining_ && (!start_ok || !drain_admitting())) {
    refuse(t, "claim refused: draining");
    return nullptr;
  }
  std::string why;
  if (t.partitionable) {
    if (!(t.state == State::kUnclaimed || t.state == State::kOwner)) {
      refuse(t, std::string("claim refused: slot is ") + state_name(t.state));
      return nullptr;
    }
    if (!start_ok) {
      refuse(t, "claim refused: START is not true for the job");
      return nullptr;
    }
    if (!request_fits(t, req.get(), &why)) {
      // The job's Requirements may be false only for what the slot has left now: a claim by
      // priority may still preempt dynamic slots (the negotiator matched the sum).
      std::string why2;
      if (by_priority && pslot_preempt(t, req.get(), &why2)) return nullptr;  // carved later
      refuse(t, "claim refused: " + why + (why2.empty() ? "" : "; " + why2));
      return nullptr;
    }
    SlotImpl* d = carve(t, ad, &why);
    if (!d) {
      std::string why2;
      if (by_priority && pslot_preempt(t, req.get(), &why2)) return nullptr;  // carved later
      refuse(t, "claim refused: " + why + (why2.empty() ? "" : "; " + why2));
      return nullptr;
    }
    d->pending_claim = new_claim(*d, ad);
    d->claim_pending = true;
    settle(*d);
    return d;
  }
  if (t.state == State::kClaimed) {
    Claim c = new_claim(t, ad, req.get());
    c.by_priority = by_priority;
    if (!start_ok) {
      refuse(t, "preempting claim refused: START is not true for the job");
      return nullptr;
    }
    if (!request_fits(t, req.get(), &why)) {
      refuse(t, "preempting claim refused: " + why);
      return nullptr;
    }
    if (t.has_preempting) {
      refuse(t, "preempting claim refused: another preempting claim is pending");
      return nullptr;
    }
    // HTCONDOR: ep-policy "If this expression evaluates to a higher number for a pending
    // resource request than it does for the current request, the machine may preempt";
    // central-manager "Negotiation": a preemption by user priority needs "the machine.RANK on
    // this job is not worse than the currently running job" (PREEMPTION_REQUIREMENTS is the
    // negotiator's), so the startd accepts it at an equal RANK.
    bool better = by_priority ? c.rank >= t.claim.rank : c.rank > t.claim.rank;
    if (!better) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "preempting claim refused: RANK %g is %s CurrentRank %g",
                    c.rank, by_priority ? "below" : "not above", t.claim.rank);
      refuse(t, buf);
      return nullptr;
    }
    t.preempting = std::move(c);
    t.has_preempting = true;
    if (t.has_job && t.retire == Retire::kNone)
      t.retire = by_priority ? Retire::kPriority : Retire::kRank;
    refresh(t);
    settle(t);
    return &t;
  }
  bool ok_state = (t.state == State::kUnclaimed && t.activity == Activity::kIdle) ||
                  t.state == State::kMatched || t.state == State::kOwner ||
                  (t.state == State::kBackfill);
  if (!ok_state) {
    refuse(t, std::string("claim refused: slot is ") + state_name(t.state) + "/" +
                  activity_name(t.activity));
    return nullptr;
  }
  if (!start_ok) {
    refuse(t, "claim refused: START is not true for the job");
    return nullptr;
  }
  if (!request_fits(t, req.get(), &why)) {
    refuse(t, "claim refused: " + why);
    return nullptr;
  }
  t.pending_claim = new_claim(t, ad, req.get());
  t.claim_pending = true;
  settle(t);
  return &t;
}

void Engine::on_match(SlotImpl& s, const ClassAd* ad) {
  // A pslot stays Unclaimed; the claim that follows carves the dynamic slot.
  if (s.partitionable) return;
  // A static slot is not matched to a job it cannot run (more than it has, or no sane amount).
  AdPtr job(ad ? ad->copy() : ClassAd::make());
  std::string why;
  if (!request_fits(s, job.get(), &why)) {
    refuse(s, "match refused: " + why);
    return;
  }
  if ((s.state == State::kUnclaimed && s.activity == Activity::kIdle) ||
      s.state == State::kBackfill) {
    s.match_pending = true;
    s.match_ad = AdPtr(ad ? ad->copy() : ClassAd::make());
    settle(s);
  } else {
    refuse(s, std::string("match ignored: slot is ") + state_name(s.state) + "/" +
                  activity_name(s.activity));
  }
}

void Engine::on_activate(SlotImpl& s, const ClassAd* ad) {
  count_stat(Stat::kActivationRequests);
  SlotImpl* t = &s;
  if (s.partitionable) {
    t = nullptr;
    for (auto& d : sd.slots_) {
      if (!d->dead && d->parent == &s && d->state == State::kClaimed &&
          d->activity == Activity::kIdle)
        t = d.get();
    }
    if (!t) t = claim_request(s, ad);
    if (!t) return;
  } else if (s.state != State::kClaimed) {
    t = claim_request(s, ad);
    if (!t) return;
  }
  if (!(t->state == State::kClaimed && t->activity == Activity::kIdle)) {
    refuse(*t, std::string("activation refused: slot is ") + state_name(t->state) + "/" +
                   activity_name(t->activity));
    return;
  }
  if (worklife_over(*t)) {
    refuse(*t, "activation refused: CLAIM_WORKLIFE expired");
    return;
  }
  // HTCONDOR: the startd checks the job it is asked to run as it checked the claim: the
  // machine's Requirements (START, resources) and the job's own. Only a definite no refuses
  // here: a job ad that leaves START undefined still runs on the claim it came with.
  AdPtr job(ad ? ad->copy() : ClassAd::make());
  std::string why;
  if (is_false(eval_with(*t, start_expr(*t), job.get()))) {
    refuse(*t, "activation refused: START is false for the job");
    return;
  }
  if (!request_fits(*t, job.get(), &why)) {
    refuse(*t, "activation refused: " + why);
    return;
  }
  t->job = Job{};
  t->job.ad = std::move(job);
  if (ev && !ev->adopt_slot.empty()) {
    if (!ev->adopt_claim_id.empty())
      (t->claim_pending ? t->pending_claim : t->claim).id = ev->adopt_claim_id;
    t->adopt_start = ev->adopt_job_start >= 0 ? ev->adopt_job_start : now;
  }
  t->activate_pending = true;
  settle(*t);
}

void Engine::on_job_event(SlotImpl& s, const Event& ev) {
  switch (ev.kind) {
    case EventKind::kDeactivate:
      if (s.has_job && s.job.starter_running && !s.job.soft_killed) {
        s.job.soft_killed = true;
        act(s, ActionKind::kSoftKill, s.job.kill_sig);
      }
      break;
    case EventKind::kStarterExited:
    case EventKind::kStarterCleaned:
      // The starter is gone: after its cleanup, or (starter-exit) job exit and cleanup at once.
      if (s.starter_cleaning) {
        s.starter_cleaning = false;
        settle(s);
        break;
      }
      if (ev.kind == EventKind::kStarterCleaned) {
        refuse(s, "starter-cleaned ignored: no starter cleaning up");
        break;
      }
      [[fallthrough]];
    case EventKind::kJobExited:
      if (!s.has_job || !s.job.starter_running) {
        refuse(s, ev.kind == EventKind::kJobExited ? "job-exit ignored: no job running"
                                                   : "starter-exit ignored: no starter running");
        break;
      }
      s.job.starter_running = false;
      s.starter_cleaning = ev.kind == EventKind::kJobExited;
      settle(s);
      break;
    case EventKind::kBackfillExited: {
      // The one backfill client is gone for every slot that was using it.
      std::vector<SlotImpl*> users;
      for (auto& p : sd.slots_) {
        if (!p->dead && p->bf_running) users.push_back(p.get());
      }
      if (users.empty()) users.push_back(&s);
      for (SlotImpl* u : users) u->bf_running = false;
      for (SlotImpl* u : users) settle(*u);
      break;
    }
    case EventKind::kAlive:
      if (s.has_claim) s.claim.lease_expires = now + s.claim.lease;
      break;
    case EventKind::kLeaseExpired:
      if (s.has_claim) {
        s.claim.lease_expires = now;
        settle(s);
      }
      break;
    case EventKind::kWithdraw:
      if (s.has_preempting) {
        act(s, ActionKind::kNotifyClaimant, "preempting claim " + s.preempting.id + " withdrawn");
        s.has_preempting = false;
        s.preempting = Claim{};
        settle(s);
      }
      break;
    default: break;
  }
}

void Engine::on_release(SlotImpl& s, EventKind kind) {
  const char* why = kind == EventKind::kRelease  ? "claim released"
                    : kind == EventKind::kVacate ? "vacate"
                                                 : "fast vacate";
  std::vector<SlotImpl*> targets;
  if (s.partitionable) {
    for (auto& d : sd.slots_) {
      if (!d->dead && d->parent == &s) targets.push_back(d.get());
    }
  } else {
    targets.push_back(&s);
  }
  for (SlotImpl* t : targets) {
    if (t->state == State::kMatched ||
        (t->state == State::kClaimed && t->activity == Activity::kIdle)) {
      t->end_requested = true;
      t->end_cause = why;
      if (kind == EventKind::kVacateFast) t->fast = true;
    } else if (t->state == State::kClaimed) {
      if (kind == EventKind::kVacateFast) {
        t->fast = true;
        t->end_cause = why;
      } else if (t->retire == Retire::kNone || t->retire == Retire::kRank ||
                 t->retire == Retire::kPriority) {
        t->retire = kind == EventKind::kRelease ? Retire::kRelease : Retire::kVacate;
      }
    } else if (t->state == State::kPreempting && kind == EventKind::kVacateFast &&
               t->activity == Activity::kVacating) {
      t->vacate_deadline = now;
    } else if (t->state == State::kBackfill && kind != EventKind::kRelease) {
      t->end_requested = true;
      t->bf_cause = why;
    }
    settle(*t);
  }
}

}  // namespace kite::startd
