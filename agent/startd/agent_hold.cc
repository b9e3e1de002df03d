// WANT_HOLD in the agent: the core's hold-job action stops the job the way it says (the job's
// soft kill, or a hard kill when vacating is not wanted) and the job's exit, when it comes, is
// reported as held with HoldReasonCode 21 and WANT_HOLD's subcode and reason, the way the
// starter reports its own holds (outcome "hold").
// HTCONDOR: startd WANT_HOLD, WANT_HOLD_REASON, WANT_HOLD_SUBCODE.
#include <cstdlib>

#include "agent/core/log.h"
#include "agent/startd/agent.h"
#include "policy/classad/eval.h"
#include "policy/classad/parser.h"

namespace kite::agent {
namespace {

// The integer after `key` in `text`.
bool field_int(const std::string& text, const char* key, int64_t* out) {
  size_t at = text.find(key);
  if (at == std::string::npos) return false;
  const char* p = text.c_str() + at + std::char_traits<char>::length(key);
  char* end = nullptr;
  *out = std::strtoll(p, &end, 10);
  return end != p && (*end == ' ' || *end == '\0');
}

}  // namespace

bool parse_hold_detail(const std::string& detail, PendingHold* out, std::string* err) {
  if (detail.rfind("soft ", 0) == 0) {
    out->soft = true;
  } else if (detail.rfind("hard ", 0) == 0) {
    out->soft = false;
  } else {
    *err = "hold-job detail does not start with soft or hard: " + detail;
    return false;
  }
  if (!field_int(detail, " HoldReasonCode=", &out->code) ||
      !field_int(detail, " HoldReasonSubCode=", &out->subcode)) {
    *err = "hold-job detail lacks HoldReasonCode or HoldReasonSubCode: " + detail;
    return false;
  }
  // The reason is last, as a ClassAd string literal (quotes and escapes).
  const char* kReason = " HoldReason=";
  size_t at = detail.find(kReason);
  classad::ExprPtr e;
  if (at != std::string::npos)
    e = classad::parse_expr(detail.substr(at + std::char_traits<char>::length(kReason)));
  classad::Value v = e ? classad::evaluate(e.get()) : classad::Value::error();
  if (!v.is_string()) {
    *err = "hold-job detail lacks a HoldReason string: " + detail;
    return false;
  }
  out->reason = std::string(v.as_string());
  return true;
}

void Agent::hold_job(const startd::Action& a) {
  PendingHold hold;
  std::string err;
  if (!parse_hold_detail(a.detail, &hold, &err)) {
    // The core's own words, so this is a bug; still stop the job as a hard kill would.
    KLOG_ERROR("%s: %s", a.slot.c_str(), err.c_str());
    hold = PendingHold{false, 21, 0, "The startd put this job on hold."};
  }
  StarterRec* s = starter_of(a.slot);
  if (!s) {
    KLOG_WARN("%s: hold-job: no starter (the job has already gone)", a.slot.c_str());
    return;
  }
  bool soft = hold.soft;
  s->hold = std::move(hold);
  starter_send(a.slot, core::Json::message(soft ? "soft-kill" : "hard-kill"));
}

void Agent::apply_hold(const StarterRec& s, core::Json* exit) const {
  // A job that ended by itself before the kill reached it, or that the starter held for its
  // own reason (memory), keeps that outcome.
  if (!s.hold || exit->str("outcome", "exit") != "evict") return;
  exit->set("outcome", "hold");
  exit->set("HoldReason", s.hold->reason);
  exit->set("HoldReasonCode", s.hold->code);
  exit->set("HoldReasonSubCode", s.hold->subcode);
}

}  // namespace kite::agent
