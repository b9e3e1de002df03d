// Job state changes reported from the slots, and the periodic policy, applied to the queue.
#include "agent/queue/job_events.h"

#include "agent/queue/event_log.h"
#include "agent/queue/job_log.h"
#include "agent/queue/job_render.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::queue {
namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;
using queue_policy::PolicyDecision;

std::string quoted(const std::string& s) {
  std::string out;
  classad::unparse_value(out, classad::Value::string(s));
  return out;
}

std::string real_text(double v) {
  std::string out;
  classad::unparse_value(out, classad::Value::real(v));
  return out;
}

void write_event(const classad::ClassAd& ad, const std::string& text) {
  std::string path = job_log_path(ad), err;
  if (!path.empty()) append_job_log(path, text, &err);  // the queue's state is what counts
}

int64_t int_of(const classad::ClassAd& ad, const char* name, int64_t dflt = 0) {
  int64_t v = dflt;
  ad_int(ad, name, &v);
  return v;
}

EventJob event_job(JobId id) {
  return {id.cluster, id.proc, 0};
}

// This run's wall time added to the job's total (RemoteWallClockTime, and the last run's).
void add_wall_time(const classad::ClassAd& ad, int64_t now, Attrs* attrs) {
  int64_t start = int_of(ad, "JobCurrentStartDate", now);
  double total = 0;
  ad_real(ad, "RemoteWallClockTime", &total);
  double run = static_cast<double>(now - start);
  attrs->push_back({"RemoteWallClockTime", real_text(total + run)});
  attrs->push_back({"LastRemoteWallClockTime", real_text(run)});
  attrs->push_back({"JobLastStartDate", std::to_string(start)});
}

}  // namespace

bool job_started(JobStore& store, JobId id, const JobStart& s, int64_t now, std::string* err) {
  classad::AdPtr ad = store.job_ad(id, err);
  if (!ad) return false;
  Attrs attrs = {{"RemoteHost", quoted(s.remote_host)},
                 {"JobCurrentStartDate", std::to_string(now)},
                 {"ShadowBday", std::to_string(now)},
                 {"NumJobStarts", std::to_string(int_of(*ad, "NumJobStarts") + 1)},
                 {"JobRunCount", std::to_string(int_of(*ad, "JobRunCount") + 1)}};
  if (!ad->lookup("JobStartDate")) attrs.push_back({"JobStartDate", std::to_string(now)});
  if (!store.set_status(id, kRunning, now, err, attrs)) return false;
  std::string text;
  event_execute(text, event_job(id), now, s.host_address,
                s.slot_name.empty() ? s.remote_host : s.slot_name, s.slot_attrs);
  write_event(*ad, text);
  return true;
}

bool job_exited(JobStore& store, JobId id, const JobExit& e, int64_t now, PolicyDecision* decision,
                std::string* err) {
  classad::AdPtr ad = store.job_ad(id, err);
  if (!ad) return false;
  Attrs attrs = {{"ExitBySignal", e.by_signal ? "true" : "false"},
                 {"RemoteUserCpu", real_text(e.user_cpu)},
                 {"RemoteSysCpu", real_text(e.sys_cpu)}};
  attrs.push_back(
      e.by_signal ? std::pair<std::string, std::string>{"ExitSignal", std::to_string(e.signal)}
                  : std::pair<std::string, std::string>{"ExitCode", std::to_string(e.exit_code)});
  add_wall_time(*ad, now, &attrs);
  // The policy sees the ad as it is after the exit.
  for (const auto& [name, text] : attrs) {
    classad::ExprPtr v = classad::parse_expr(text);
    if (v) ad->insert(name, v.release());
  }
  *decision = queue_policy::exit_decision(*ad);
  RunTotals run;
  run.run_remote = {static_cast<int64_t>(e.user_cpu), static_cast<int64_t>(e.sys_cpu)};
  run.total_remote = run.run_remote;
  std::string text;
  const EventJob ev = event_job(id);
  int status = kCompleted;
  switch (decision->action) {
    case PolicyDecision::kHold:
      status = kHeld;
      attrs.push_back({"HoldReason", quoted(decision->reason)});
      attrs.push_back({"HoldReasonCode", std::to_string(decision->code)});
      attrs.push_back({"HoldReasonSubCode", std::to_string(decision->subcode)});
      event_held(text, ev, now, decision->reason, decision->code, decision->subcode);
      break;
    case PolicyDecision::kRequeue:
      status = kIdle;
      event_evicted(text, ev, now, 0, 0, run, "");
      break;
    default:
      event_terminated(text, ev, now, e.by_signal, e.by_signal ? e.signal : e.exit_code, run);
      break;
  }
  if (!store.set_status(id, status, now, err, attrs)) return false;
  write_event(*ad, text);
  return true;
}

bool job_evicted(JobStore& store, JobId id, int64_t now, std::string* err) {
  classad::AdPtr ad = store.job_ad(id, err);
  if (!ad) return false;
  Attrs attrs;
  add_wall_time(*ad, now, &attrs);
  if (!store.set_status(id, kIdle, now, err, attrs)) return false;
  std::string text;
  event_evicted(text, event_job(id), now, 0, 0, RunTotals{}, "");
  write_event(*ad, text);
  return true;
}

bool job_held_by_startd(JobStore& store, JobId id, const std::string& reason, int code, int subcode,
                        int64_t now, std::string* err) {
  classad::AdPtr ad = store.job_ad(id, err);
  if (!ad) return false;
  Attrs attrs = {{"HoldReason", quoted(reason)},
                 {"HoldReasonCode", std::to_string(code)},
                 {"HoldReasonSubCode", std::to_string(subcode)}};
  int64_t status = int_of(*ad, "JobStatus");
  if (status == kRunning || status == kSuspended) add_wall_time(*ad, now, &attrs);
  if (!store.set_status(id, kHeld, now, err, attrs)) return false;
  std::string text;
  event_held(text, event_job(id), now, reason, code, subcode);
  write_event(*ad, text);
  return true;
}

int apply_periodic_policy(JobStore& store, const queue_policy::SystemPeriodic& sys, int64_t now,
                          std::vector<JobId>* stopped, bool* released, std::string* err) {
  std::vector<JobSummary> jobs = store.jobs();  // the queue changes as jobs leave it
  int changed = 0;
  for (const JobSummary& s : jobs) {
    classad::AdPtr ad = store.job_ad(s.id, err);
    if (!ad) continue;
    PolicyDecision d = queue_policy::periodic_decision(*ad, sys);
    if (d.action == PolicyDecision::kNone) continue;
    const bool running = s.status == kRunning || s.status == kSuspended;
    std::string text;
    const EventJob ev = event_job(s.id);
    bool ok = false;
    if (d.action == PolicyDecision::kHold) {
      Attrs attrs = {{"HoldReason", quoted(d.reason)},
                     {"HoldReasonCode", std::to_string(d.code)},
                     {"HoldReasonSubCode", std::to_string(d.subcode)}};
      ok = store.set_status(s.id, kHeld, now, err, attrs);
      event_held(text, ev, now, d.reason, d.code, d.subcode);
    } else if (d.action == PolicyDecision::kRelease) {
      Attrs attrs = {{"ReleaseReason", quoted(d.reason)}};
      ok = store.set_status(s.id, kIdle, now, err, attrs);
      event_released(text, ev, now, d.reason);
      if (ok) *released = true;
    } else if (d.action == PolicyDecision::kRemove) {
      Attrs attrs = {{"RemoveReason", quoted(d.reason)}};
      ok = store.set_status(s.id, kRemoved, now, err, attrs);
      event_aborted(text, ev, now, d.reason);
    }
    if (!ok) continue;
    ++changed;
    if (running && d.action != PolicyDecision::kRelease) stopped->push_back(s.id);
    write_event(*ad, text);
  }
  return changed;
}

}  // namespace kite::queue
