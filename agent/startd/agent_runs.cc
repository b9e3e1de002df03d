// Local runs (`kite run --local`): the agent acts as its own claimant. A run reuses an idle
// local claim that fits, else claims a slot (a partitionable slot carves a dynamic one) and
// activates it; idle local claims are kept for LOCAL_CLAIM_IDLE_TIME, then released.
#include <unistd.h>

#include <ctime>

#include "agent/core/accounts.h"
#include "agent/core/ad_json.h"
#include "agent/core/log.h"
#include "agent/core/sock.h"
#include "agent/startd/agent.h"
#include "policy/classad/json.h"
#include "policy/classad/match.h"
#include "policy/classad/parser.h"

namespace kite::agent {

RunRec* Agent::run_of(int64_t id) {
  auto it = runs_.find(id);
  return it == runs_.end() ? nullptr : it->second.get();
}

void Agent::tell_run(RunRec* r, core::Json msg) {
  msg.set("id", r->id);
  if (r->client) r->client->send(msg);
}

void Agent::run_request(core::Conn* c, core::Json& msg) {
  std::string why;
  classad::AdPtr ad = core::get_ad(msg, "job", &why);
  if (!ad) {
    core::Json e = core::Json::message("error");
    e.set("message", "run: bad job ad: " + why);
    c->send(e);
    return;
  }
  auto r = std::make_unique<RunRec>();
  r->id = next_run_id_++;
  r->client = c;
  // What a schedd would have put in the ad.
  std::string owner;
  if (!stamp_owner(c, ad.get(), &owner, &why)) {
    core::Json e = core::Json::message("error");
    e.set("message", "run: " + why);
    c->send(e);
    return;
  }
  ad->insert_value("ClusterId", classad::Value::integer(r->id));
  ad->insert_value("ProcId", classad::Value::integer(0));
  ad->insert_value("QDate", classad::Value::integer(std::time(nullptr)));
  ad->insert_value("KiteLocalRun", classad::Value::boolean(true));
  if (!ad->lookup("JobUniverse")) ad->insert_value("JobUniverse", classad::Value::integer(5));
  if (!ad->lookup("RequestCpus")) ad->insert_value("RequestCpus", classad::Value::integer(1));
  if (!ad->lookup("RequestMemory")) ad->insert_value("RequestMemory", classad::Value::integer(128));
  if (!ad->lookup("RequestDisk")) ad->insert_value("RequestDisk", classad::Value::integer(1024));
  if (!ad->lookup("Out")) ad->insert_value("Out", classad::Value::string("_condor_stdout"));
  if (!ad->lookup("Err")) ad->insert_value("Err", classad::Value::string("_condor_stderr"));
  if (!ad->lookup("Requirements")) ad->insert_value("Requirements", classad::Value::boolean(true));
  r->job = std::move(ad);
  RunRec* raw = r.get();
  runs_[raw->id] = std::move(r);
  KLOG_INFO("run %lld: %s queued", static_cast<long long>(raw->id), owner.c_str());
  schedule_runs();
  if (run_of(raw->id) && raw->state == RunRec::State::kQueued && !raw->told_queued) {
    raw->told_queued = true;
    tell_run(raw, core::Json::message("queued"));
  }
}

namespace {

// The job's Requirements (and the slot's START, through its Requirements) against `slot_ad`.
// MatchPair only links the ads for the duration and restores them, so the const slot ad is
// left as it was.
bool run_fits(classad::ClassAd& job, const classad::ClassAd* slot_ad) {
  if (!slot_ad) return false;
  classad::MatchPair mp(job, const_cast<classad::ClassAd&>(*slot_ad));
  return mp.symmetric();
}

bool refused(const startd::Output& out, const std::string& slot) {
  for (const startd::Action& a : out.actions) {
    if (a.kind == startd::ActionKind::kRefuse && a.slot == slot) return true;
  }
  return false;
}

bool request_fits(classad::ClassAd& job, const classad::ClassAd* slot_ad) {
  if (!slot_ad) return false;
  static const char* const kPairs[][2] = {
      {"RequestCpus", "Cpus"}, {"RequestMemory", "Memory"}, {"RequestDisk", "Disk"}};
  for (const auto& p : kPairs) {
    double want = 0, have = 0;
    if (job.evaluate_real(p[0], want) && slot_ad->evaluate_real(p[1], have) && want > have)
      return false;
  }
  return true;
}

}  // namespace

bool Agent::activate_run(RunRec* r, const std::string& slot) {
  activating_[slot] = r->id;
  startd::Event ev;
  ev.kind = startd::EventKind::kActivate;
  ev.slot = slot;
  ev.ad = r->job.get();
  std::string err;
  handle(ev, &err);
  if (activating_.count(slot)) {
    activating_.erase(slot);
    KLOG_INFO("run %lld: activation of %s refused %s", static_cast<long long>(r->id), slot.c_str(),
              err.c_str());
    return false;
  }
  if (!r->remote) local_claims_[slot] = 0;
  return r->state != RunRec::State::kQueued;
}

// False while the claim still waits for the backfill client to go.
bool Agent::claim_in_hand(const std::string& slot) const {
  startd::SlotView v;
  return !sd_->slot(slot, &v) || v.state != startd::State::kBackfill;
}

std::string Agent::claim_slot(const std::string& slot, const classad::ClassAd* ad, std::string* why,
                              bool* after_backfill) {
  startd::SlotView before;
  bool backfill = sd_->slot(slot, &before) && before.state == startd::State::kBackfill;
  startd::Event ev;
  ev.kind = startd::EventKind::kClaim;
  ev.slot = slot;
  ev.ad = ad;
  startd::Output out;
  std::string err, claimed;
  sd_->handle(ev, &out, &err);
  for (const startd::Action& a : out.actions) {
    if (a.kind == startd::ActionKind::kCreateSlot) claimed = a.slot;
    if (a.kind == startd::ActionKind::kRefuse && why->empty()) *why = a.detail;
  }
  startd::SlotView after;
  if (claimed.empty() && sd_->slot(slot, &after) && after.state == startd::State::kClaimed)
    claimed = slot;
  process(out);
  // A slot running backfill is claimed once the backfill client is gone.
  if (after_backfill) *after_backfill = claimed.empty() && backfill && !refused(out, slot);
  if (claimed.empty() && why->empty()) *why = err.empty() ? "the slot refused the claim" : err;
  return claimed;
}

Agent::Placement Agent::place_run(RunRec* r) {
  int64_t now = std::time(nullptr);
  // 1. An idle local claim that fits: claim reuse. A claim whose last job has just ended is
  // reused too, once its starter has cleaned up (the client hears the exit before that).
  std::vector<std::string> idle;
  bool wait_for_cleanup = false;
  for (auto& [slot, idle_since] : local_claims_) {
    if (idle_since != 0 && !starters_.count(slot)) idle.push_back(slot);
  }
  for (const std::string& slot : idle) {
    startd::SlotView v;
    if (sd_->slot(slot, &v) && v.state == startd::State::kBackfill && request_fits(*r->job, v.ad) &&
        run_fits(*r->job, v.ad)) {
      wait_for_cleanup = true;  // a claim of ours is waiting for the backfill client to go
      continue;
    }
    if (!sd_->slot(slot, &v) || v.state != startd::State::kClaimed ||
        (v.activity != startd::Activity::kIdle && v.activity != startd::Activity::kCleaning))
      continue;
    if (!request_fits(*r->job, v.ad) || !run_fits(*r->job, v.ad)) continue;
    if (cleaning(slot)) {
      wait_for_cleanup = wait_for_cleanup || briefly_cleaning(slot);
      continue;
    }
    if (activate_run(r, slot)) return Placement::kPlaced;
  }
  if (wait_for_cleanup) return Placement::kWaiting;
  // 2. A new claim.
  for (const startd::SlotView& v : sd_->slots()) {
    // A slot running backfill is free for a real claim: the claim evicts the backfill client.
    bool backfill = v.state == startd::State::kBackfill;
    if (v.dynamic || (v.state != startd::State::kUnclaimed && !backfill)) continue;
    if (!request_fits(*r->job, v.ad)) {
      KLOG_DEBUG("run %lld: %s has too little left", static_cast<long long>(r->id), v.name.c_str());
      continue;
    }
    if (!run_fits(*r->job, v.ad)) {
      KLOG_DEBUG("run %lld: %s and the job do not match", static_cast<long long>(r->id),
                 v.name.c_str());
      continue;
    }
    std::string why;
    bool after_backfill = false;
    std::string claimed = claim_slot(v.name, r->job.get(), &why, &after_backfill);
    if (after_backfill) {
      // Claimed once the backfill client is gone; the run then takes the idle claim.
      local_claims_[v.name] = now;
      return Placement::kWaiting;
    }
    if (claimed.empty()) continue;
    local_claims_[claimed] = now;
    if (activate_run(r, claimed)) return Placement::kPlaced;
  }
  return Placement::kBlocked;
}

void Agent::schedule_runs() {
  if (scheduling_ || stopping_ || !sd_) {
    reschedule_ = true;
    return;
  }
  scheduling_ = true;
  do {
    reschedule_ = false;
    bool blocked = false;
    std::vector<int64_t> queued;
    for (auto& [id, r] : runs_) {
      if (r->state == RunRec::State::kQueued && !r->remote) queued.push_back(id);
    }
    for (int64_t id : queued) {
      RunRec* r = run_of(id);
      if (!r || r->state != RunRec::State::kQueued) continue;
      if (place_run(r) == Placement::kBlocked) blocked = true;
    }
    // Idle local claims hold resources a waiting run may need.
    if (blocked) {
      bool released = false;
      for (auto& [slot, idle_since] : local_claims_) {
        if (idle_since > 0 && !starters_.count(slot) && !cleaning(slot) && claim_in_hand(slot))
          released = true;
      }
      if (released) {
        scheduling_ = false;
        release_idle_claims(true);
        scheduling_ = true;
        reschedule_ = true;
      }
    }
  } while (reschedule_ && !stopping_);
  scheduling_ = false;
}

void Agent::release_idle_claims(bool all) {
  int64_t now = std::time(nullptr);
  std::vector<std::string> victims;
  for (auto& [slot, idle_since] : local_claims_) {
    if (idle_since == 0 || starters_.count(slot) || cleaning(slot) || !claim_in_hand(slot))
      continue;
    if (all || now - idle_since >= ac_.local_claim_idle) victims.push_back(slot);
  }
  for (const std::string& slot : victims) {
    local_claims_.erase(slot);
    startd::Event ev;
    ev.kind = startd::EventKind::kRelease;
    ev.slot = slot;
    std::string err;
    KLOG_DEBUG("%s: releasing the idle local claim", slot.c_str());
    handle(ev, &err);
  }
}

void Agent::keep_local_claims_alive() {
  std::vector<std::string> slots;
  for (auto& [slot, idle_since] : local_claims_) slots.push_back(slot);
  for (const std::string& slot : slots) {
    startd::Event ev;
    ev.kind = startd::EventKind::kAlive;
    ev.slot = slot;
    startd::Output out;
    std::string err;
    sd_->handle(ev, &out, &err);
    process(out);
  }
}

}  // namespace kite::agent
