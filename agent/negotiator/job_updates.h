// The queue updates the claim layer makes as a job runs on a claim (running, back to idle, ended),
// in the words of the claiming protocol's frames, through the queue's job-state functions
// (agent/queue/job_events.h: on_exit_hold/on_exit_remove, event logs).
#pragma once

#include <cstdint>
#include <string>

#include "agent/core/frame.h"
#include "agent/queue/job_store.h"

namespace kite::negotiator {

/// The job started on `remote_host` (slot@machine): Running, RemoteHost, JobCurrentStartDate.
bool job_running(queue::JobStore* jobs, queue::JobId id, const std::string& remote_host,
                 int64_t now, std::string* err);
/// The job was suspended on its slot (SUSPEND) or continued: Suspended / Running.
bool job_suspended(queue::JobStore* jobs, queue::JobId id, bool suspended, int64_t now,
                   std::string* err);
/// The claim broke or the job was evicted without a result: Idle again.
bool job_idle(queue::JobStore* jobs, queue::JobId id, int64_t now, std::string* err);
/// The starter's exit report (`exit`: outcome exit|evict|hold, ExitCode or ExitSignal, usage):
/// Completed with the exit attributes, Held with the reason, or Idle for an eviction.
bool job_ended(queue::JobStore* jobs, queue::JobId id, const core::Json& exit, int64_t now,
               std::string* err);

}  // namespace kite::negotiator
