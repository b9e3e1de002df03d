// Startd cron output into the slot ads: each record goes to the slots its routing names (or,
// unrouted, to the whole machine so dynamic slots carved later inherit it), then the policy
// is evaluated at once, as for any changed input.
#include "agent/core/log.h"
#include "agent/startd/agent.h"

namespace kite::agent {

void Agent::cron_publish(const startd::CronJob& job, std::vector<startd::CronRecord>* recs) {
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
      startd::CronSlot slot;
      slot.name = v.name;
      slot.ad = v.ad;
      v.ad->evaluate_int("SlotID", slot.id);
      v.ad->evaluate_int("SlotTypeID", slot.type_id);
      if (!startd::cron_record_applies(rec, job.slots, slot)) continue;
      if (!sd_->set_inputs(v.name, rec.attrs, &err))
        KLOG_WARN("cron %s: record not merged into %s: %s", job.name.c_str(), v.name.c_str(),
                  err.c_str());
    }
  }
  evaluate();
}

bool Agent::cron_condition(const classad::Expr* cond) {
  // "A context similar to a slot ad": the first slot's ad stands for the machine.
  std::vector<startd::SlotView> slots = sd_->slots();
  if (slots.empty()) return false;
  classad::Value v = slots.front().ad->evaluate_expr(cond);
  return v.is_boolean() && v.as_boolean();
}

}  // namespace kite::agent
