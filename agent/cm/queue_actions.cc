// The job tools' actions on the CM's queue: rm, hold, release, prio, vacate-job. Each user acts
#if KITE_HAS_JOB_STORE  // the queue needs the durable store (SQLite)
// on their own jobs; a holder of ADMINISTRATOR (the queue superuser) on every job.
#include <ctime>

#include "agent/cm/collector_server.h"
#include "agent/cm/job_commits.h"
#include "agent/cm/queue_service.h"
#include "agent/core/log.h"
#include "agent/queue/event_log.h"
#include "agent/queue/job_log.h"
#include "policy/classad/unparse.h"

namespace kite::cm {
namespace {

using queue::JobId;

std::string quoted(const std::string& s) {
  std::string out;
  classad::unparse_value(out, classad::Value::string(s));
  return out;
}

void log_event(const classad::ClassAd& ad, const std::string& text) {
  std::string path = queue::job_log_path(ad), err;
  if (!path.empty() && !queue::append_job_log(path, text, &err))
    KLOG_WARN("queue: %s", err.c_str());
}

bool was_running(int status) {
  return status == queue::kRunning || status == queue::kSuspended ||
         status == queue::kTransferringOutput;
}

struct Request {
  std::string action;  // rm hold release prio vacate
  std::string user;    // who asks (for the reasons' "(by user X)")
  std::string reason;  // hold: -reason
  int64_t prio = 0;
  bool relative = false;
};

// Does `r` to one job; true when the job changed (or was told to stop, for vacate).
bool act_on(CmContext* ctx, const Request& r, JobId id, int status, const classad::ClassAd& ad,
            std::string* err) {
  queue::JobStore& jobs = *ctx->jobs;
  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  const queue::EventJob ev{id.cluster, id.proc, 0};
  std::string text;
  if (r.action == "rm") {
    if (!queue::status_transition_allowed(status, queue::kRemoved)) return false;
    std::string why = "via condor_rm (by user " + r.user + ")";
    std::pair<std::string, std::string> attrs[] = {{"RemoveReason", quoted(why)}};
    if (!jobs.set_status(id, queue::kRemoved, now, err, attrs)) return false;
    if (was_running(status)) ctx->stop_job(id.cluster, id.proc, false);
    queue::event_aborted(text, ev, now, why);
  } else if (r.action == "hold") {
    if (status == queue::kHeld || !queue::status_transition_allowed(status, queue::kHeld))
      return false;
    std::string why =
        (r.reason.empty() ? "via condor_hold" : r.reason) + " (by user " + r.user + ")";
    std::pair<std::string, std::string> attrs[] = {
        {"HoldReason", quoted(why)}, {"HoldReasonCode", "1"}, {"HoldReasonSubCode", "0"}};
    if (!jobs.set_status(id, queue::kHeld, now, err, attrs)) return false;
    if (was_running(status)) ctx->stop_job(id.cluster, id.proc, false);
    queue::event_held(text, ev, now, why, 1, 0);
  } else if (r.action == "release") {
    if (status != queue::kHeld) return false;
    std::string hold, why = "via condor_release (by user " + r.user + ")";
    queue::ad_string(ad, "HoldReason", &hold);
    int64_t code = 0;
    queue::ad_int(ad, "HoldReasonCode", &code);
    std::pair<std::string, std::string> attrs[] = {{"LastHoldReason", quoted(hold)},
                                                   {"LastHoldReasonCode", std::to_string(code)},
                                                   {"ReleaseReason", quoted(why)}};
    if (!jobs.set_status(id, queue::kIdle, now, err, attrs)) return false;
    queue::event_released(text, ev, now, why);
    ctx->reschedule();
  } else if (r.action == "prio") {
    int64_t prio = r.prio;
    if (r.relative) {
      int64_t cur = 0;
      queue::ad_int(ad, "JobPrio", &cur);
      prio += cur;
    }
    return jobs.set_attribute(id, "JobPrio", std::to_string(prio), err);
  } else {  // vacate: back to Idle through the claim layer
    if (!was_running(status)) return false;
    ctx->stop_job(id.cluster, id.proc, true);
    return true;
  }
  log_event(ad, text);
  return true;
}

}  // namespace

void QueueService::action(net::TlsConn* c, core::Json& msg) {
  Request r;
  r.action = msg.str("action");
  if (r.action != "rm" && r.action != "hold" && r.action != "release" && r.action != "prio" &&
      r.action != "vacate") {
    c->send_error("job action: unknown action '" + r.action + "'");
    return;
  }
  if (!authorized(c, policy::AuthLevel::kWrite, "job action")) return;
  bool admin = ctx_->collector->has_level(c, policy::AuthLevel::kAdministrator);
  if (!submitter_of(c, &r.user) && !admin) {
    c->send_error("job action: " + c->peer().role + "/" + c->peer().cn + " owns no jobs");
    return;
  }
  if (r.user.empty()) r.user = c->peer().cn;
  if (!ctx_->jobs) {
    c->send_error("job action: this central manager has no job queue");
    return;
  }
  r.reason = msg.str("reason");
  r.prio = msg.num("prio");
  r.relative = msg.flag("relative");

  // The target: one id (C or C.P), an owner, a constraint, or every job.
  queue::JobSelection sel;
  const cJSON* target = msg.child("target");
  std::string id_text = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(target, "id"))
                            ? cJSON_GetObjectItemCaseSensitive(target, "id")->valuestring
                            : "";
  const cJSON* owner = cJSON_GetObjectItemCaseSensitive(target, "owner");
  const cJSON* constraint = cJSON_GetObjectItemCaseSensitive(target, "constraint");
  std::string err;
  if (!id_text.empty()) {
    sel.add_positional(id_text);
    if (sel.ids.empty()) {
      c->send_error("job action: '" + id_text + "' is not a job id");
      return;
    }
  } else if (cJSON_IsString(owner)) {
    sel.owners.push_back(owner->valuestring);
  } else if (cJSON_IsString(constraint)) {
    if (!sel.add_constraint(constraint->valuestring, &err)) {
      c->send_error("job action: " + err);
      return;
    }
  } else if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(target, "all"))) {
    c->send_error("job action: no target (id, owner, constraint or all)");
    return;
  }

  // The queue changes as jobs are removed: work from a copy of the ids and statuses.
  std::vector<queue::JobSummary> jobs = ctx_->jobs->jobs();
  int64_t matched = 0, acted = 0, denied = 0;
  for (const queue::JobSummary& s : jobs) {
    if (!sel.ids.empty() && (s.id.cluster != sel.ids[0].cluster ||
                             (sel.ids[0].proc >= 0 && s.id.proc != sel.ids[0].proc)))
      continue;
    classad::AdPtr ad = ctx_->jobs->job_ad(s.id, &err);
    if (!ad || !sel.selects(*ad)) continue;
    ++matched;
    std::string job_owner;
    queue::ad_string(*ad, "Owner", &job_owner);
    if (!admin && job_owner != r.user) {
      ++denied;
      continue;
    }
    err.clear();
    if (act_on(ctx_, r, s.id, s.status, *ad, &err)) {
      ++acted;
    } else if (!err.empty()) {
      KLOG_WARN("queue: %s of job %d.%d: %s", r.action.c_str(), s.id.cluster, s.id.proc,
                err.c_str());
    }
  }
  if (acted) {
    KLOG_INFO("queue: %s/%s: %s of %lld job(s)", c->peer().role.c_str(), c->peer().cn.c_str(),
              r.action.c_str(), static_cast<long long>(acted));
  }
  core::Json reply = core::Json::message("job_action_done");
  reply.set("matched", matched);
  reply.set("acted", acted);
  reply.set("denied", denied);
  // Answered once the changes are on disk (the loop turn's commit).
  ctx_->commits->send(c, std::move(reply));
}

}  // namespace kite::cm
#endif  // KITE_HAS_JOB_STORE
