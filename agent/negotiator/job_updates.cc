// The claim layer's job-state updates in the queue (see job_updates.h).
#include "agent/negotiator/job_updates.h"

#include <cstdio>

namespace kite::negotiator {

namespace {

bool set_int(queue::JobStore* jobs, queue::JobId id, const char* name, int64_t v,
             std::string* err) {
  return jobs->set_attribute(id, name, std::to_string(v), err);
}

bool set_real(queue::JobStore* jobs, queue::JobId id, const char* name, double v,
              std::string* err) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string text = buf;
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return jobs->set_attribute(id, name, text, err);
}

bool set_str(queue::JobStore* jobs, queue::JobId id, const char* name, const std::string& v,
             std::string* err) {
  std::string quoted = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') quoted += '\\';
    if (c == '\n') {
      quoted += "\\n";
      continue;
    }
    quoted += c;
  }
  quoted += '"';
  return jobs->set_attribute(id, name, quoted, err);
}

}  // namespace

bool job_running(queue::JobStore* jobs, queue::JobId id, const std::string& remote_host,
                 int64_t now, std::string* err) {
  return jobs->set_status(id, queue::kRunning, now, err) &&
         set_str(jobs, id, "RemoteHost", remote_host, err) &&
         set_int(jobs, id, "JobCurrentStartDate", now, err);
}

bool job_suspended(queue::JobStore* jobs, queue::JobId id, bool suspended, int64_t now,
                   std::string* err) {
  return jobs->set_status(id, suspended ? queue::kSuspended : queue::kRunning, now, err);
}

bool job_idle(queue::JobStore* jobs, queue::JobId id, int64_t now, std::string* err) {
  return jobs->set_status(id, queue::kIdle, now, err);
}

bool job_ended(queue::JobStore* jobs, queue::JobId id, const core::Json& exit, int64_t now,
               std::string* err) {
  std::string outcome = exit.str("outcome", "exit");
  if (outcome == "evict") return job_idle(jobs, id, now, err);
  for (const char* k : {"RemoteUserCpu", "RemoteSysCpu", "JobDuration"}) {
    if (exit.has(k) && !set_real(jobs, id, k, exit.real(k), err)) return false;
  }
  if (outcome == "hold") {
    return set_str(jobs, id, "HoldReason", exit.str("HoldReason", "held by the startd"), err) &&
           set_int(jobs, id, "HoldReasonCode", exit.num("HoldReasonCode", 21), err) &&
           set_int(jobs, id, "HoldReasonSubCode", exit.num("HoldReasonSubCode", 0), err) &&
           jobs->set_status(id, queue::kHeld, now, err);
  }
  bool by_signal = exit.flag("ExitBySignal");
  if (!jobs->set_attribute(id, "ExitBySignal", by_signal ? "true" : "false", err)) return false;
  if (by_signal) {
    if (!set_int(jobs, id, "ExitSignal", exit.num("ExitSignal"), err)) return false;
  } else if (!set_int(jobs, id, "ExitCode", exit.num("ExitCode"), err)) {
    return false;
  }
  return set_int(jobs, id, "CompletionDate", now, err) &&
         jobs->set_status(id, queue::kCompleted, now, err);
}

}  // namespace kite::negotiator
