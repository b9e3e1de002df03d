// One simulated machine: the startd core driven by the pool simulator's events (see
// sim_machine.h).
#include "policy/pool/sim_machine.h"

#include <strings.h>

#include "policy/fairshare/slot_weight.h"

namespace kite::pool {

using startd::Action;
using startd::ActionKind;
using startd::Event;
using startd::EventKind;
using startd::Output;

Event event(EventKind kind, const std::string& slot) {
  Event ev;
  ev.kind = kind;
  ev.slot = slot;
  return ev;
}

SimMachine::SimMachine(const config::Config& cfg, const startd::MachineFacts& facts,
                       const startd::Clock& clock)
    : sd_(cfg, facts, clock) {}

bool SimMachine::init(const std::vector<std::pair<std::string, std::string>>& inputs,
                      std::string* err) {
  if (!sd_.init(err)) return false;
  if (!inputs.empty() && !sd_.set_inputs("", inputs, err)) return false;
  evaluate();
  return true;
}

bool SimMachine::set_inputs(const std::vector<std::pair<std::string, std::string>>& inputs,
                            std::string* err) {
  if (!sd_.set_inputs("", inputs, err)) return false;
  evaluate();
  return true;
}

bool SimMachine::reload_policy(std::string* err) {
  if (!sd_.reload_policy(err)) return false;
  evaluate();
  return true;
}

void SimMachine::evaluate() {
  Output out;
  sd_.evaluate(&out);
  follow(out);
}

// The simulated world: a starter told to die hard exits at once; a soft kill is ignored (the
// job uses its whole vacate time, the longest a preempted job may keep its slot).
void SimMachine::follow(Output& out) {
  for (size_t i = 0; i < out.actions.size(); ++i) {
    const Action a = out.actions[i];  // handle() below may grow the vector
    if (a.kind != ActionKind::kHardKill && a.kind != ActionKind::kKillStarter &&
        a.kind != ActionKind::kHoldJob)
      continue;
    startd::SlotView v;
    if (!sd_.slot(a.slot, &v) || !(v.starter_running || v.starter_cleaning)) continue;
    Event ev = event(EventKind::kStarterExited, a.slot);
    std::string err;
    sd_.handle(ev, &out, &err);
  }
  note_pslot_claims(out);
  snapshot();
}

// A waiting partitionable-slot claim is decided when the startd carves its dynamic slot
// ("from slot1: ...") or drops it ("preempting claim dropped: ...").
void SimMachine::note_pslot_claims(const Output& out) {
  if (pslot_waiting_.empty()) return;
  for (const Action& a : out.actions) {
    for (size_t i = 0; i < pslot_waiting_.size(); ++i) {
      const std::string& p = pslot_waiting_[i];
      const bool carved =
          a.kind == ActionKind::kCreateSlot && a.detail.rfind("from " + p + ":", 0) == 0;
      const bool dropped = a.kind == ActionKind::kRefuse &&
                           strcasecmp(a.slot.c_str(), p.c_str()) == 0 &&
                           a.detail.rfind("preempting claim dropped", 0) == 0;
      if (!carved && !dropped) continue;
      pslot_done_.emplace_back(p, carved ? a.slot : std::string());
      pslot_waiting_.erase(pslot_waiting_.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
}

bool SimMachine::pslot_claim_done(const std::string& pslot, std::string* dslot) {
  for (size_t i = 0; i < pslot_done_.size(); ++i) {
    if (strcasecmp(pslot_done_[i].first.c_str(), pslot.c_str()) != 0) continue;
    *dslot = pslot_done_[i].second;
    pslot_done_.erase(pslot_done_.begin() + static_cast<std::ptrdiff_t>(i));
    return true;
  }
  return false;
}

void SimMachine::snapshot() {
  std::vector<startd::SlotView> views = sd_.slots();
  slots_.resize(views.size());
  for (size_t i = 0; i < views.size(); ++i) {
    const startd::SlotView& v = views[i];
    SimSlot& s = slots_[i];
    s.name = v.name;
    s.ad = const_cast<classad::ClassAd*>(v.ad);  // evaluating a const ad is not offered
    s.partitionable = v.partitionable;
    s.dynamic = v.dynamic;
    s.running = v.starter_running;
    s.state = v.state;
    s.activity = v.activity;
    // Read here, once per change, not by every cycle.
    s.weight = fairshare::slot_weight(*s.ad);
    if (!s.ad->evaluate_int("Cpus", s.cpus)) s.cpus = 0;
    if (!s.ad->evaluate_int("TotalSlotCpus", s.total_cpus)) s.total_cpus = s.cpus;
  }
}

const SimSlot* SimMachine::find(const std::string& name) const {
  for (const SimSlot& s : slots_)
    if (strcasecmp(s.name.c_str(), name.c_str()) == 0) return &s;
  return nullptr;
}

std::string SimMachine::claim(const std::string& slot, const classad::ClassAd& job, bool priority,
                              bool* waits) {
  *waits = false;
  Output out;
  Event ev = event(EventKind::kClaim, slot);
  ev.ad = &job;
  ev.priority_preemption = priority;
  std::string err;
  bool refused = !sd_.handle(ev, &out, &err);
  std::string claimed = slot;
  bool pslot_preempting = false;
  for (const Action& a : out.actions) {
    if (a.kind == ActionKind::kRefuse && strcasecmp(a.slot.c_str(), slot.c_str()) == 0)
      refused = true;
    if (a.kind == ActionKind::kCreateSlot) claimed = a.slot;
    if (a.kind == ActionKind::kNotifyClaimant && strcasecmp(a.slot.c_str(), slot.c_str()) == 0 &&
        a.detail.rfind("preempting dynamic slots", 0) == 0)
      pslot_preempting = true;
  }
  if (pslot_preempting && !refused) pslot_waiting_.push_back(slot);
  follow(out);
  if (refused) return "";
  if (pslot_preempting) {
    // Its victims may all have gone at once (no job, or a hard kill): then it is carved already.
    std::string dslot;
    for (const auto& [p, d] : pslot_done_) {
      if (strcasecmp(p.c_str(), slot.c_str()) == 0) dslot = d;
    }
    *waits = dslot.empty();
    if (!dslot.empty()) pslot_claim_done(slot, &dslot);
    return dslot.empty() ? slot : dslot;
  }
  const SimSlot* s = find(claimed);
  if (!s) return "";
  *waits = s->running;
  return claimed;
}

bool SimMachine::activate(const std::string& slot, const classad::ClassAd& job) {
  Output out;
  Event ev = event(EventKind::kActivate, slot);
  ev.ad = &job;
  std::string err;
  sd_.handle(ev, &out, &err);
  follow(out);
  const SimSlot* s = find(slot);
  return s && s->running;
}

void SimMachine::job_exited(const std::string& slot) {
  Output out;
  Event ev = event(EventKind::kStarterExited, slot);
  std::string err;
  sd_.handle(ev, &out, &err);
  follow(out);
}

void SimMachine::release(const std::string& slot) {
  Output out;
  Event ev = event(EventKind::kRelease, slot);
  std::string err;
  sd_.handle(ev, &out, &err);
  follow(out);
}

}  // namespace kite::pool
