// Claimed/Cleaning in the agent: the slot leaves Cleaning (or, evicted, Preempting) once its
// finished starter is gone.
// HTCONDOR: machine-classad-attributes Activity "Cleaning" (final update sent, starter not yet
// reaped); the job's exit report moved the slot there (starter_exited sends kJobExited).
#include <csignal>

#include "agent/core/log.h"
#include "agent/startd/agent.h"

namespace kite::agent {

void Agent::starter_cleaned(const std::string& slot) {
  if (cleaning(slot) || !sd_) return;  // another finished starter of the slot is still there
  startd::SlotView v;
  if (!sd_->slot(slot, &v) || !v.starter_cleaning) return;
  startd::Event ev;
  ev.kind = startd::EventKind::kStarterCleaned;
  ev.slot = slot;
  std::string err;
  if (!handle(ev, &err)) KLOG_DEBUG("%s: %s", slot.c_str(), err.c_str());
  run_deferred_activation(slot);
}

StarterRec* Agent::cleaning_starter(const std::string& slot) {
  for (auto& f : finished_) {
    if (f->slot == slot) return f.get();
  }
  return nullptr;
}

void Agent::kill_cleaning_starter(const std::string& slot) {
  StarterRec* s = cleaning_starter(slot);
  if (!s) return;
  if (s->pid > 0) ::kill(s->pid, SIGKILL);
  std::string dir = s->dir;
  s->gone = true;
  forget_starter(s);  // ends Claimed/Cleaning
  remove_starter_leftovers(dir);
  // The job's cgroup is killed and removed off the loop, as any KILLING_TIMEOUT kill.
  kill_queue_.push([this, slot] { begin_kill(slot, nullptr); });
}

}  // namespace kite::agent
