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
  snapshot();
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
  for (const Action& a : out.actions) {
    if (a.kind == ActionKind::kRefuse && strcasecmp(a.slot.c_str(), slot.c_str()) == 0)
      refused = true;
    if (a.kind == ActionKind::kCreateSlot) claimed = a.slot;
  }
  follow(out);
  if (refused) return "";
  const SimSlot* s = find(claimed);
  if (!s) return "";  // (a partitionable slot preempting its dynamic slots: not simulated)
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
