// Startd cron output into the slot ads: each record goes to the slots its routing names (or,
// unrouted, to the whole machine so dynamic slots carved later inherit it), then the policy
// is evaluated at once, as for any changed input. A resource monitor's (_METRICS) records
// first go through its device and job accounting.
#include <algorithm>

#include "agent/core/log.h"
#include "agent/startd/agent.h"

namespace kite::agent {
namespace {

startd::CronSlot cron_slot(const startd::SlotView& v) {
  startd::CronSlot slot;
  slot.name = v.name;
  slot.ad = v.ad;
  v.ad->evaluate_int("SlotID", slot.id);
  v.ad->evaluate_int("SlotTypeID", slot.type_id);
  return slot;
}

// The job running in the slot ("" when none): a new value restarts the per-job accounting.
std::string running_job(const classad::ClassAd& ad) {
  std::string id;
  int64_t start = 0;
  if (!ad.evaluate_string("JobId", id) || !ad.evaluate_int("JobStart", start)) return "";
  return id + "@" + std::to_string(start);
}

}  // namespace

void Agent::cron_publish(const startd::CronJob& job, std::vector<startd::CronRecord>* recs) {
  if (!job.metrics.empty()) monitor_publish(job, recs);
  std::string err;
  // Machine-wide records first: a record that names slots wins over them there.
  auto machine_wide = [&](const startd::CronRecord& rec) {
    return job.slots.empty() && startd::cron_record_unrouted(rec);
  };
  for (const startd::CronRecord& rec : *recs) {
    if (rec.attrs.empty() || !machine_wide(rec)) continue;
    if (!sd_->set_inputs("", rec.attrs, &err))
      KLOG_WARN("cron %s: record not merged: %s", job.name.c_str(), err.c_str());
  }
  for (const startd::CronRecord& rec : *recs) {
    if (rec.attrs.empty() || machine_wide(rec)) continue;
    for (const startd::SlotView& v : sd_->slots()) {
      if (!startd::cron_record_applies(rec, job.slots, cron_slot(v))) continue;
      if (!sd_->set_inputs(v.name, rec.attrs, &err))
        KLOG_WARN("cron %s: record not merged into %s: %s", job.name.c_str(), v.name.c_str(),
                  err.c_str());
    }
  }
  evaluate();
}

void Agent::monitor_publish(const startd::CronJob& job, std::vector<startd::CronRecord>* recs) {
  std::unique_ptr<startd::CronMonitorState>& state = monitors_[job.name];
  if (!state || !state->same_metrics(job.metrics, job.prefix))
    state = std::make_unique<startd::CronMonitorState>(job.metrics, job.prefix);
  const int64_t now = clock_.now();
  std::vector<std::string> fresh, errors;
  for (startd::CronRecord& rec : *recs) {
    state->report(&rec, now, &errors);
    fresh.push_back(rec.tag);
  }
  for (const std::string& e : errors) KLOG_WARN("cron %s: %s", job.name.c_str(), e.c_str());
  std::string err;
  for (const startd::SlotView& v : sd_->slots()) {
    startd::CronSlot slot = cron_slot(v);
    std::vector<std::string> devices, fresh_here;
    for (const auto& [tag, route] : state->devices()) {
      if (!startd::cron_record_applies(route, job.slots, slot)) continue;
      devices.push_back(tag);
      if (std::find(fresh.begin(), fresh.end(), tag) != fresh.end()) fresh_here.push_back(tag);
    }
    if (devices.empty()) continue;
    std::vector<std::pair<std::string, std::string>> attrs =
        state->slot_attrs(v.name, devices, fresh_here, running_job(*v.ad), now, started_at_);
    if (!sd_->set_inputs(v.name, attrs, &err))
      KLOG_WARN("cron %s: usage not merged into %s: %s", job.name.c_str(), v.name.c_str(),
                err.c_str());
  }
}

bool Agent::cron_condition(const classad::Expr* cond) {
  // "A context similar to a slot ad": the first slot's ad stands for the machine.
  std::vector<startd::SlotView> slots = sd_->slots();
  if (slots.empty()) return false;
  classad::Value v = slots.front().ad->evaluate_expr(cond);
  return v.is_boolean() && v.as_boolean();
}

}  // namespace kite::agent
