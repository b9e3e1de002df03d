// The cycle's view of slot ads and the resources of partitionable slots (see slots.h).
#include "policy/negotiator/slots.h"

#include <strings.h>

#include <algorithm>
#include <climits>
#include <map>
#include <utility>

#include "policy/classad/match.h"
#include "policy/fairshare/slot_weight.h"
#include "policy/negotiator/job_order.h"
#include "policy/startd/text_util.h"

namespace kite::negotiator {
namespace {

using classad::ClassAd;
using classad::Value;

struct SlotIds {
  uint32_t state = classad::intern_name("State").id;
  uint32_t activity = classad::intern_name("Activity").id;
  uint32_t remote_user = classad::intern_name("RemoteUser").id;
  uint32_t current_rank = classad::intern_name("CurrentRank").id;
  uint32_t partitionable = classad::intern_name("PartitionableSlot").id;
  uint32_t resources = classad::intern_name("MachineResources").id;
  uint32_t dynamic = classad::intern_name("DynamicSlot").id;
  uint32_t retirement = classad::intern_name("RetirementTimeRemaining").id;
  uint32_t slot_weight = classad::intern_name("SlotWeight").id;
  uint32_t std_consumption[startd::kStdResourceCount];
  uint32_t machine = classad::intern_name("Machine").id;
  uint32_t slot_id = classad::intern_name("SlotID").id;
  uint32_t parent_id = classad::intern_name("ParentSlotId").id;
  uint32_t std_res[startd::kStdResourceCount];
  uint32_t std_req[startd::kStdResourceCount];
  SlotIds() {
    for (size_t i = 0; i < startd::kStdResourceCount; ++i) {
      std_res[i] = classad::intern_name(startd::kStdResources[i].name).id;
      std_req[i] = classad::intern_name(startd::kStdResources[i].request_attr).id;
      std_consumption[i] =
          classad::intern_name(std::string("Consumption") + startd::kStdResources[i].name).id;
    }
  }
};
const SlotIds& ids() {
  static const SlotIds s;
  return s;
}

Value eval_attr(const ClassAd& ad, uint32_t id) {
  const classad::Expr* e = ad.lookup_id(id);
  if (!e) return Value::undefined();
  if (e->kind == classad::ExprKind::kLiteral) return classad::as_literal(e)->value;
  return ad.evaluate_expr(e);
}

bool string_attr(const ClassAd& ad, uint32_t id, std::string* out) {
  Value v = eval_attr(ad, id);
  if (!v.is_string()) return false;
  *out = std::string(v.as_string());
  return true;
}

bool is_std_resource(const std::string& name) {
  for (const startd::StdResource& r : startd::kStdResources) {
    if (strcasecmp(r.name, name.c_str()) == 0) return true;
  }
  return false;
}

// One request, read as the startd reads it; `dflt` when the job does not say.
bool request(const Value& v, const char* attr, int64_t dflt, int64_t* out) {
  std::string why;
  startd::RequestValue r = startd::request_amount(attr, v, INT64_MAX, out, &why);
  if (r == startd::RequestValue::kUndefined) *out = dflt;
  return r != startd::RequestValue::kBad;
}

}  // namespace

SlotView slot_view(ClassAd* ad) {
  SlotView s;
  if (!ad) return s;
  const SlotIds& id = ids();
  std::string state = "Unclaimed", activity;
  string_attr(*ad, id.state, &state);
  string_attr(*ad, id.activity, &activity);
  if (strcasecmp(state.c_str(), "Unclaimed") == 0 || strcasecmp(state.c_str(), "Backfill") == 0) {
    s.use = SlotUse::kIdle;
  } else if (strcasecmp(state.c_str(), "Claimed") == 0 &&
             strcasecmp(activity.c_str(), "Idle") != 0 &&
             string_attr(*ad, id.remote_user, &s.remote_user)) {
    s.use = SlotUse::kRunning;
    Value r = eval_attr(*ad, id.current_rank);
    double d = 0;
    if (r.is_number() && r.to_number(d)) s.current_rank = d;
  }
  Value p = eval_attr(*ad, id.partitionable);
  s.partitionable = p.is_boolean() && p.as_boolean();
  Value d = eval_attr(*ad, id.dynamic);
  s.dynamic = d.is_boolean() && d.as_boolean();
  if (!s.partitionable || s.use != SlotUse::kIdle) {
    s.ad = ad;
    s.partitionable = false;  // a claimed partitionable slot is not carved by this cycle
    if (s.dynamic && s.use == SlotUse::kRunning) {
      for (size_t i = 0; i < startd::kStdResourceCount; ++i)
        s.have[i] = int_attr(*ad, id.std_res[i], 0);
    }
    return s;
  }
  s.copy = classad::AdPtr(ad->copy());
  s.ad = s.copy.get();
  for (size_t i = 0; i < startd::kStdResourceCount; ++i)
    s.have[i] = int_attr(*ad, id.std_res[i], 0);
  s.consumption = true;
  for (size_t i = 0; i < startd::kStdResourceCount; ++i)
    s.consumption = s.consumption && ad->lookup_id(id.std_consumption[i]);
  std::string list;
  if (string_attr(*ad, id.resources, &list)) {
    for (const std::string& name : startd::split_list(list)) {
      if (is_std_resource(name) || strcasecmp(name.c_str(), "Swap") == 0) continue;
      uint32_t res = classad::intern_name(name).id;
      s.custom_ids.push_back(res);
      s.custom_req.push_back(classad::intern_name("Request" + name).id);
      s.custom_consumption.push_back(classad::intern_name("Consumption" + name).id);
      s.custom_have.push_back(int_attr(*ad, res, 0));
      s.consumption = s.consumption && ad->lookup_id(s.custom_consumption.back());
    }
  }
  return s;
}

int64_t retirement_left(const ClassAd& ad, const classad::EvalEnv* env) {
  const classad::Expr* e = ad.lookup_id(ids().retirement);
  if (!e) return 0;
  Value v = ad.evaluate_expr(e, env);
  double d = 0;
  if (!v.is_number() || !v.to_number(d) || !(d > 0)) return 0;
  return d > 1e15 ? INT64_MAX : static_cast<int64_t>(d);
}

void link_children(std::vector<SlotView>* slots) {
  const SlotIds& id = ids();
  std::map<std::pair<std::string, int64_t>, uint32_t> parents;
  std::string machine;
  for (uint32_t i = 0; i < slots->size(); ++i) {
    SlotView& s = (*slots)[i];
    if (!s.partitionable || !string_attr(*s.ad, id.machine, &machine)) continue;
    parents.emplace(std::make_pair(machine, int_attr(*s.ad, id.slot_id, -1)), i);
  }
  if (parents.empty()) return;
  for (uint32_t i = 0; i < slots->size(); ++i) {
    const SlotView& s = (*slots)[i];
    if (!s.dynamic || s.use != SlotUse::kRunning || !string_attr(*s.ad, id.machine, &machine))
      continue;
    // One already retiring is being preempted (by an earlier match): not again.
    std::string activity;
    if (string_attr(*s.ad, id.activity, &activity) && strcasecmp(activity.c_str(), "Retiring") == 0)
      continue;
    auto it = parents.find({machine, int_attr(*s.ad, id.parent_id, -2)});
    if (it != parents.end()) (*slots)[it->second].children.push_back(i);
  }
}

namespace {

// A consumption policy's amount: Consumption<resource> with the slot as MY and the job as
// TARGET; `raw` when it gives no number (as the startd carves).
bool consumed(const classad::MatchPair& by_slot, const ClassAd& slot, uint32_t attr,
              const char* what, int64_t raw, int64_t* out) {
  *out = raw;
  const classad::Expr* e = slot.lookup_id(attr);
  if (!e) return true;
  Value v = by_slot.evaluate_left(e);
  if (!v.is_number() && !v.is_boolean()) return true;
  return request(v, what, raw, out);
}

}  // namespace

bool take_fits(const Knobs& knobs, ClassAd& job, const SlotView& s, Take* take) {
  const SlotIds& id = ids();
  classad::MatchPair pair(job, *s.ad);
  classad::MatchPair by_slot(*s.ad, job);
  for (size_t i = 0; i < startd::kStdResourceCount; ++i) {
    const char* attr = startd::kStdResources[i].request_attr;
    int64_t raw;
    if (!request(eval_attr(job, id.std_req[i]), attr, 1, &raw)) return false;
    take->std[i] = raw;
    if (s.consumption) {
      if (!consumed(by_slot, *s.ad, id.std_consumption[i], attr, raw, &take->std[i])) return false;
    } else if (knobs.modify_request[i]) {
      Value v = pair.evaluate_left(knobs.modify_request[i].get());
      if ((v.is_number() || v.is_boolean()) && !request(v, attr, raw, &take->std[i])) return false;
    }
    if (take->std[i] > s.have[i]) return false;
  }
  take->custom.assign(s.custom_ids.size(), 0);
  for (size_t i = 0; i < s.custom_ids.size(); ++i) {
    if (!request(eval_attr(job, s.custom_req[i]), "Request<resource>", 0, &take->custom[i]))
      return false;
    if (s.consumption && !consumed(by_slot, *s.ad, s.custom_consumption[i], "Request<resource>",
                                   take->custom[i], &take->custom[i]))
      return false;
    if (take->custom[i] > s.custom_have[i]) return false;
  }
  return true;
}

double consumption_cost(const SlotView& s, const Take& take) {
  const SlotIds& id = ids();
  const double before = fairshare::slot_weight(*s.ad);
  // "Only Memory, Cpus and Disk are valid attributes for this parameter": the expression in an
  // ad of what would be left.
  classad::AdPtr after(ClassAd::make());
  for (size_t i = 0; i < startd::kStdResourceCount; ++i) {
    after->insert(classad::intern_name(startd::kStdResources[i].name),
                  new classad::LiteralExpr(Value::integer(s.have[i] - take.std[i])));
  }
  if (classad::Expr* e = const_cast<classad::Expr*>(s.ad->lookup_id(id.slot_weight))) {
    classad::expr_ref(e);
    after->insert(classad::intern_name("SlotWeight"), e);
  }
  return std::max(0.0, before - fairshare::slot_weight(*after));
}

void take_from(SlotView& s, const Take& take) {
  for (size_t i = 0; i < startd::kStdResourceCount; ++i) {
    s.have[i] -= take.std[i];
    s.ad->insert(classad::intern_name(startd::kStdResources[i].name),
                 new classad::LiteralExpr(Value::integer(s.have[i])));
  }
  for (size_t i = 0; i < s.custom_ids.size() && i < take.custom.size(); ++i) {
    if (take.custom[i] == 0) continue;
    s.custom_have[i] -= take.custom[i];
    const classad::ClassAd::Entry e = s.ad->find_entry(s.custom_ids[i]);
    if (e.expr) {
      s.ad->insert(classad::InternedName{s.custom_ids[i], e.name},
                   new classad::LiteralExpr(Value::integer(s.custom_have[i])));
    }
  }
  ++s.version;
}

}  // namespace kite::negotiator
