// Fetch-work hooks in the startd core: when a slot asks its hook for work (Unclaimed/Idle with
// START not false, or Claimed/Idle on a fetched claim, FetchWorkDelay after the last attempt),
// and what becomes of the job a hook supplied: a claim and an activation like any job, or a
// rejection, or on a claimed slot a preempting claim when the machine RANKs the fetched job
// higher. The agent runs the hooks; this file only decides.
// HTCONDOR: ep-configuration "Job Hooks That Fetch Work", "Defining the FetchWorkDelay
// Expression"; hooks.rst.
#include "policy/startd/engine.h"

namespace kite::startd {

namespace {

bool fetched_idle_claim(const SlotImpl& s) {
  return s.state == State::kClaimed && s.activity == Activity::kIdle && s.has_claim &&
         s.claim.fetched && !s.end_requested && !s.has_preempting && !s.starter_cleaning;
}

bool unclaimed_idle(const SlotImpl& s) {
  return s.state == State::kUnclaimed && s.activity == Activity::kIdle && !s.dynamic &&
         !s.match_pending && !s.claim_pending;
}

}  // namespace

// A slot that would fetch now if its FetchWorkDelay allowed. START is checked without a job
// (not false): a START that names job attributes is only decided against the fetched job.
bool Engine::fetch_waiting(SlotImpl& s) {
  if (s.dead || !s.pol.hooks.active() || s.fetch_in_flight) return false;
  if (sd.shutting_down_ || sd.draining_) return false;
  if (fetched_idle_claim(s)) return true;
  return unclaimed_idle(s) && !is_false(eval_local(s, start_expr(s)));
}

void Engine::fetch_due() {
  for (size_t i = 0; i < sd.slots_.size(); ++i) {
    SlotImpl& s = *sd.slots_[i];
    if (s.dead) continue;
    // A fetched job that preempted by RANK runs as soon as its claim is the slot's own.
    if (fetched_idle_claim(s) && s.claim.fetched_job) {
      AdPtr job = std::move(s.claim.fetched_job);
      on_activate(s, job.get());
      continue;
    }
    if (!fetch_waiting(s) || now < s.next_fetch) continue;
    s.fetch_in_flight = true;
    act(s, ActionKind::kFetchWork, s.pol.hooks.keyword);
  }
}

int64_t Engine::next_fetch_time() {
  int64_t t = kNever;
  for (auto& p : sd.slots_) {
    if (fetch_waiting(*p) && p->next_fetch < t) t = p->next_fetch;
  }
  return t;
}

void Engine::on_fetched(SlotImpl& s, const ClassAd* job) {
  if (!s.pol.hooks.active()) {
    refuse(s, "fetched work ignored: the slot has no fetch-work hook");
    return;
  }
  s.fetch_in_flight = false;
  // HTCONDOR: "the number of seconds since the last fetch attempt completed before the
  // condor_startd will attempt to fetch more work", evaluated in the slot ad (and the running
  // job's); an expression that is not a number means the default 300.
  double d = 300;
  if (!number(eval_job(s, s.pol.fetch_delay.get()), &d)) d = 300;
  s.next_fetch = now + duration(d);
  if (!job) {
    // HTCONDOR: "If the hook returns that there is no more work to perform, the claim will
    // be evicted, and the slot will return to the Owner state."
    if (fetched_idle_claim(s)) {
      s.end_requested = true;
      s.end_cause = "no more fetched work";
      settle(s);
    }
    return;
  }
  AdPtr ad(job->copy());
  // HTCONDOR: "the condor_startd will insert the keyword used to fetch that job into the job
  // ClassAd as HookKeyword".
  ad->insert_value("HookKeyword", Value::string(s.pol.hooks.keyword));
  size_t mark = out->actions.size();
  auto last_refusal = [&]() -> std::string {
    for (size_t i = out->actions.size(); i > mark; --i) {
      if (out->actions[i - 1].kind == ActionKind::kRefuse) return out->actions[i - 1].detail;
    }
    return "refused";
  };
  SlotImpl* t = nullptr;
  bool new_claim = false;
  if (fetched_idle_claim(s)) {
    t = &s;
  } else if (unclaimed_idle(s)) {
    t = claim_request(s, ad.get());
    if (!t) {
      act(s, ActionKind::kReplyFetch, "reject: " + last_refusal());
      return;
    }
    new_claim = true;
    Claim& c = t->has_claim ? t->claim : t->pending_claim;
    c.fetched = true;
    // No claimant keeps a fetched claim alive: it lasts until it is evicted.
    c.lease = kLongestDuration;
    c.lease_expires = kNever;
  } else if (s.state == State::kClaimed && !s.partitionable) {
    // HTCONDOR: "If the slot is claimed, the condor_startd will evaluate the Rank expression
    // relative to the fetched job, compare it to the value of Rank for the currently running
    // job, and decide if the existing job should be preempted"; with no user priority behind
    // a fetched job, only a strictly higher RANK preempts.
    t = claim_request(s, ad.get());
    if (!t) {
      act(s, ActionKind::kReplyFetch, "reject: " + last_refusal());
      return;
    }
    Claim& c = t->preempting;
    c.fetched = true;
    c.lease = kLongestDuration;
    c.lease_expires = kNever;
    c.fetched_job = std::move(ad);
    act(*t, ActionKind::kReplyFetch, "accept");
    return;
  } else {
    act(s, ActionKind::kReplyFetch,
        std::string("reject: slot is ") + state_name(s.state) + "/" + activity_name(s.activity));
    return;
  }
  on_activate(*t, ad.get());
  if (t->has_job && t->job.starter_running) {
    act(*t, ActionKind::kReplyFetch, "accept");
    return;
  }
  act(*t, ActionKind::kReplyFetch, "reject: " + last_refusal());
  if (new_claim && t->has_claim && !t->has_job) {
    t->end_requested = true;
    t->end_cause = "fetched job rejected";
    settle(*t);
  }
}

}  // namespace kite::startd
