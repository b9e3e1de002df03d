// Periodic and on-exit job policy: which expression fires and the reason the schedd writes.
#include "policy/queue/job_policy.h"

#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::queue_policy {
namespace {

using config::Status;

bool is_true(const classad::ClassAd& job, const classad::Expr* e) {
  return e && classad::requirements_accept(job.evaluate_expr(e));
}

std::string text_of(const classad::Expr* e) {
  std::string out;
  classad::unparse_expr(out, e);
  return out;
}

// The job's own `attr` fired: its reason is <attr>Reason when that is a string, else the
// schedd's sentence naming the expression; its subcode <attr>SubCode.
PolicyDecision job_fired(const classad::ClassAd& job, const std::string& attr,
                         PolicyDecision::Action action, int code) {
  PolicyDecision d;
  d.action = action;
  d.code = code;
  if (!job.evaluate_string(attr + "Reason", d.reason) || d.reason.empty()) {
    d.reason = "The job attribute " + attr + " expression '" + text_of(job.lookup(attr)) +
               "' evaluated to TRUE";
  }
  int64_t sub = 0;
  if (job.evaluate_int(attr + "SubCode", sub)) d.subcode = static_cast<int>(sub);
  return d;
}

PolicyDecision system_fired(const classad::ClassAd& job, const char* macro,
                            const classad::Expr* expr, const classad::Expr* reason,
                            const classad::Expr* subcode, PolicyDecision::Action action, int code) {
  PolicyDecision d;
  d.action = action;
  d.code = code;
  if (reason) {
    classad::Value v = job.evaluate_expr(reason);
    if (v.is_string()) d.reason = std::string(v.as_string());
  }
  if (d.reason.empty()) {
    d.reason = std::string("The system macro ") + macro + " expression '" + text_of(expr) +
               "' evaluated to TRUE";
  }
  if (subcode) {
    classad::Value v = job.evaluate_expr(subcode);
    if (v.is_integer()) d.subcode = static_cast<int>(v.as_integer());
  }
  return d;
}

Status read_expr(const config::Config& cfg, const char* name, classad::ExprPtr* out) {
  std::string text;
  if (!cfg.get(name, &text)) return Status::Ok();
  size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return Status::Ok();
  classad::ParseError pe;
  *out = classad::parse_expr(text, &pe);
  if (!*out) return Status::Error(std::string(name) + ": not an expression: " + pe.to_string());
  return Status::Ok();
}

}  // namespace

Status load_system_periodic(const config::Config& cfg, SystemPeriodic* out) {
  Status st = read_expr(cfg, "SYSTEM_PERIODIC_HOLD", &out->hold);
  if (st.ok) st = read_expr(cfg, "SYSTEM_PERIODIC_HOLD_REASON", &out->hold_reason);
  if (st.ok) st = read_expr(cfg, "SYSTEM_PERIODIC_HOLD_SUBCODE", &out->hold_subcode);
  if (st.ok) st = read_expr(cfg, "SYSTEM_PERIODIC_RELEASE", &out->release);
  if (st.ok) st = read_expr(cfg, "SYSTEM_PERIODIC_REMOVE", &out->remove);
  return st;
}

PolicyDecision periodic_decision(const classad::ClassAd& job, const SystemPeriodic& sys) {
  int64_t status = 0;
  job.evaluate_int("JobStatus", status);
  const bool held = status == 5;
  if (!held) {
    if (is_true(job, job.lookup("PeriodicHold")))
      return job_fired(job, "PeriodicHold", PolicyDecision::kHold, kHoldJobPolicy);
    if (is_true(job, sys.hold.get()))
      return system_fired(job, "SYSTEM_PERIODIC_HOLD", sys.hold.get(), sys.hold_reason.get(),
                          sys.hold_subcode.get(), PolicyDecision::kHold, kHoldSystemPolicy);
  } else {
    if (is_true(job, job.lookup("PeriodicRelease")))
      return job_fired(job, "PeriodicRelease", PolicyDecision::kRelease, 0);
    if (is_true(job, sys.release.get()))
      return system_fired(job, "SYSTEM_PERIODIC_RELEASE", sys.release.get(), nullptr, nullptr,
                          PolicyDecision::kRelease, 0);
  }
  if (is_true(job, job.lookup("PeriodicRemove")))
    return job_fired(job, "PeriodicRemove", PolicyDecision::kRemove, 0);
  if (is_true(job, sys.remove.get()))
    return system_fired(job, "SYSTEM_PERIODIC_REMOVE", sys.remove.get(), nullptr, nullptr,
                        PolicyDecision::kRemove, 0);
  return {};
}

PolicyDecision exit_decision(const classad::ClassAd& job) {
  if (is_true(job, job.lookup("OnExitHold")))
    return job_fired(job, "OnExitHold", PolicyDecision::kHold, kHoldJobPolicy);
  PolicyDecision d;
  const classad::Expr* remove = job.lookup("OnExitRemove");
  if (!remove) {
    d.action = PolicyDecision::kComplete;
    return d;
  }
  classad::Value v = job.evaluate_expr(remove);
  // Only a definite false keeps the job in the queue (an undefined value lets it leave).
  bool keep = (v.is_boolean() || v.is_integer()) && !classad::requirements_accept(v);
  d.action = keep ? PolicyDecision::kRequeue : PolicyDecision::kComplete;
  return d;
}

}  // namespace kite::queue_policy
