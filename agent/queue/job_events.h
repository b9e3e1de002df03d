// What happens to a queued job out on a slot, as the claim layer reports it: started, exited
// (then on_exit_hold / on_exit_remove decide), evicted, held by the startd; and the periodic
// policy. Each updates the durable queue in one transaction and writes the job's event log.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "agent/queue/job_store.h"
#include "policy/queue/job_policy.h"

namespace kite::queue {

struct JobStart {
  std::string remote_host;  // RemoteHost: the slot's name (slot1@node-a)
  std::string slot_name;    // for the execute event ("" = remote_host)
  std::vector<std::pair<std::string, std::string>> slot_attrs;  // 001's resource lines
  std::string host_address;                                     // "<ip:port>" in the event
};

struct JobExit {
  bool by_signal = false;
  int exit_code = 0;                 // when !by_signal
  int signal = 0;                    // when by_signal
  double user_cpu = 0, sys_cpu = 0;  // seconds of this run
};

// Idle -> Running: RemoteHost, JobStartDate (first run), JobCurrentStartDate, ShadowBday,
// NumJobStarts, JobRunCount; event 001.
bool job_started(JobStore& store, JobId id, const JobStart& s, int64_t now, std::string* err);

// Running -> Completed / Held / Idle by the job's on-exit policy: ExitCode or ExitSignal,
// ExitBySignal, RemoteWallClockTime (summed over runs), RemoteUserCpu/RemoteSysCpu; events 005
// (completed), 012 (held by on_exit_hold) or 004 (requeued). `decision` says which.
bool job_exited(JobStore& store, JobId id, const JobExit& e, int64_t now,
                queue_policy::PolicyDecision* decision, std::string* err);

// Running -> Idle without a result (preempted, claim lost): wall time counted; event 004.
bool job_evicted(JobStore& store, JobId id, int64_t now, std::string* err);

// The startd held the job (WANT_HOLD: code 21 with its reason and subcode): event 012.
bool job_held_by_startd(JobStore& store, JobId id, const std::string& reason, int code, int subcode,
                        int64_t now, std::string* err);

// Evaluates every queued job's periodic policy and applies it; `stopped` gets the jobs that
// were running and must stop (held or removed). Returns how many jobs changed.
int apply_periodic_policy(JobStore& store, const queue_policy::SystemPeriodic& sys, int64_t now,
                          std::vector<JobId>* stopped, bool* released, std::string* err);

}  // namespace kite::queue
