// The claim layer's job-state updates in the queue (see job_updates.h).
#include "agent/negotiator/job_updates.h"

#include "agent/queue/job_events.h"

namespace kite::negotiator {

bool job_running(queue::JobStore* jobs, queue::JobId id, const std::string& remote_host,
                 int64_t now, std::string* err) {
  queue::JobStart start;
  start.remote_host = remote_host;
  return queue::job_started(*jobs, id, start, now, err);
}

bool job_suspended(queue::JobStore* jobs, queue::JobId id, bool suspended, int64_t now,
                   std::string* err) {
  return jobs->set_status(id, suspended ? queue::kSuspended : queue::kRunning, now, err);
}

bool job_idle(queue::JobStore* jobs, queue::JobId id, int64_t now, std::string* err) {
  // An eviction of a running job (event 004, wall time counted); a job the queue did not
  // think was running just goes back to Idle.
  if (queue::job_evicted(*jobs, id, now, err)) return true;
  err->clear();
  return jobs->set_status(id, queue::kIdle, now, err);
}

bool job_ended(queue::JobStore* jobs, queue::JobId id, const core::Json& exit, int64_t now,
               std::string* err) {
  std::string outcome = exit.str("outcome", "exit");
  if (outcome == "evict") return job_idle(jobs, id, now, err);
  if (outcome == "hold") {
    return queue::job_held_by_startd(*jobs, id, exit.str("HoldReason", "held by the startd"),
                                     static_cast<int>(exit.num("HoldReasonCode", 21)),
                                     static_cast<int>(exit.num("HoldReasonSubCode", 0)), now, err);
  }
  queue::JobExit e;
  e.by_signal = exit.flag("ExitBySignal");
  e.exit_code = static_cast<int>(exit.num("ExitCode"));
  e.signal = static_cast<int>(exit.num("ExitSignal"));
  if (exit.has("RemoteUserCpu")) e.user_cpu = exit.real("RemoteUserCpu");
  if (exit.has("RemoteSysCpu")) e.sys_cpu = exit.real("RemoteSysCpu");
  queue_policy::PolicyDecision decision;
  return queue::job_exited(*jobs, id, e, now, &decision, err);
}

}  // namespace kite::negotiator
