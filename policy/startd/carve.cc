// Carving a dynamic slot out of a partitionable slot for a claim, as named steps: the job's
// requests read and checked (requests.h), sized by MODIFY_REQUEST_EXPR_* or the consumption
// policy, checked against what the slot has left, and the new slot made with its ad and inputs.
// HTCONDOR: ep-configuration "Dynamic Provisioning: Partitionable and Dynamic Slots".
#include <strings.h>

#include <climits>
#include <cstdio>
#include <cstdlib>

#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/config/typed.h"
#include "policy/startd/engine.h"
#include "policy/startd/requests.h"
#include "policy/startd/text_util.h"

namespace kite::startd {

namespace {

// How a partitionable slot sizes its dynamic slots.
// HTCONDOR: ep-configuration "Defaults for Partitionable Slot Sizes" (MODIFY_REQUEST_EXPR_*)
// and "condor_negotiator-Side Resource Consumption Policies" (CONSUMPTION_POLICY,
// CONSUMPTION_<resource>, per slot type SLOT_TYPE_<N>_...).
struct SizingPolicy {
  const config::Config& cfg;
  int slot_id, type_id;
  bool consumption = false;  // CONSUMPTION_POLICY
  bool must_modify = false;  // MUST_MODIFY_REQUEST_EXPRS

  // The slot's (or its type's) value of `name`, when set and not blank.
  bool text(const std::string& name, std::string* out) const {
    config::Entry e;
    if (!cfg.lookup_slot(name, slot_id, type_id, &e)) return false;
    if (!cfg.get(e.name, out)) return false;
    *out = trim(*out);
    return !out->empty();
  }
  // A value that is not a boolean reads as false here (layout_build reports it per slot type).
  bool flag(const char* name) const {
    config::Entry e;
    bool b = false;
    if (cfg.lookup_slot(name, slot_id, type_id, &e)) config::read_bool(cfg, e, &b);
    return b;
  }
};

SizingPolicy sizing_policy(const config::Config& cfg, const SlotImpl& p) {
  SizingPolicy pol{cfg, p.id, p.type_id};
  pol.consumption = pol.flag("CONSUMPTION_POLICY");
  pol.must_modify = pol.flag("MUST_MODIFY_REQUEST_EXPRS");
  return pol;
}

// `expr_text` evaluated for the request: by the pslot with the job as TARGET (consumption
// policy) or by the job with the pslot as TARGET (MODIFY_REQUEST_EXPR_*). A number is checked
// as a request is (`what` names the macro in a refusal); anything else (undefined, an error, a
// string) keeps `raw`, as before the check.
bool sized_amount(const SizingPolicy& pol, ClassAd& pslot, ClassAd& req, const char* what,
                  const std::string& expr_text, int64_t raw, int64_t* out, std::string* why) {
  *out = raw;
  ExprPtr e = classad::parse_expr(expr_text);
  if (!e) return true;
  Value v = pol.consumption ? classad::MatchPair(pslot, req).evaluate_left(e.get())
                            : classad::MatchPair(req, pslot).evaluate_left(e.get());
  if (!v.is_number() && !v.is_boolean()) return true;  // no size: the request as it is
  // A size bigger than the machine is not refused here: it does not fit, and without
  // MUST_MODIFY_REQUEST_EXPRS the raw request is tried instead.
  return request_amount(what, v, INT64_MAX, out, why) != RequestValue::kBad;
}

// Step 2: what the dynamic slot would get of each resource.
bool requests_size(const SizingPolicy& pol, const config::Config& cfg, ClassAd& pslot, ClassAd& req,
                   const Layout& layout, const RequestAmounts& raw, RequestAmounts* out,
                   std::string* why) {
  *out = raw;
  std::string text;
  for (size_t i = 0; i < kStdResourceCount; ++i) {
    const StdResource& r = kStdResources[i];
    const char* macro = pol.consumption ? r.consume_macro : r.modify_macro;
    if (pol.consumption) {
      if (!pol.text(macro, &text)) text = r.consume_default;
    } else if (!cfg.get(macro, &text) || trim(text).empty()) {
      text = r.modify_default;
    }
    if (!sized_amount(pol, pslot, req, macro, trim(text), raw.std[i], &out->std[i], why))
      return false;
  }
  // "Custom resources have no default consumption policy."
  if (!pol.consumption) return true;
  for (size_t i = 0; i < layout.resources.size(); ++i) {
    std::string macro = "CONSUMPTION_" + layout.resources[i].name;
    if (!pol.text(macro, &text)) continue;
    if (!sized_amount(pol, pslot, req, macro.c_str(), text, raw.custom[i], &out->custom[i], why))
      return false;
  }
  return true;
}

// Step 3: whether `want` fits in what the slot has left; else the first resource that does not.
bool requests_fit(const RequestAmounts& want, const SlotResources& have, const Layout& layout,
                  std::string* short_of) {
  for (size_t i = 0; i < kStdResourceCount; ++i) {
    if (want.std[i] > kStdResources[i].amount(have)) {
      *short_of = "resources";
      return false;
    }
  }
  for (size_t i = 0; i < want.custom.size() && i < have.custom.size(); ++i) {
    if (static_cast<double>(want.custom[i]) > have.custom[i]) {
      *short_of = layout.resources[i].name;
      return false;
    }
  }
  return true;
}

}  // namespace

void publish_consumption(const config::Config& cfg, const Layout& layout, SlotImpl& p) {
  SizingPolicy pol = sizing_policy(cfg, p);
  if (!p.partitionable || !pol.consumption) return;
  // HTCONDOR: the negotiator matches a partitionable slot by its consumption policy when the ad
  // has Consumption<resource> for every resource it advertises (ep-configuration "condor_
  // negotiator-Side Resource Consumption Policies"); custom resources take what they request.
  std::string text;
  for (const StdResource& r : kStdResources) {
    if (!pol.text(r.consume_macro, &text)) text = r.consume_default;
    ExprPtr e = classad::parse_expr(text);
    if (e) p.ad->insert(std::string("Consumption") + r.name, e.release());
  }
  for (const CustomResource& r : layout.resources) {
    if (!pol.text("CONSUMPTION_" + r.name, &text))
      text =
          "ifThenElse(target.Request" + r.name + " =?= undefined, 0, target.Request" + r.name + ")";
    ExprPtr e = classad::parse_expr(text);
    if (e) p.ad->insert("Consumption" + r.name, e.release());
  }
}

SlotImpl* Engine::carve(SlotImpl& p, const ClassAd* ad, std::string* why) {
  AdPtr req(ad ? ad->copy() : ClassAd::make());
  // Step 1: the job's requests, checked; an absent standard request is 1, in the ad too, as
  // the sizing expressions read it.
  RequestAmounts raw, sized;
  if (!requests_read(*req, nullptr, sd.layout_, &raw, why)) return nullptr;
  for (size_t i = 0; i < kStdResourceCount; ++i) {
    if (!req->lookup(kStdResources[i].request_attr))
      req->insert_value(kStdResources[i].request_attr, Value::integer(1));
  }
  SizingPolicy pol = sizing_policy(sd.cfg_, p);
  if (!requests_size(pol, sd.cfg_, *p.ad, *req, sd.layout_, raw, &sized, why)) return nullptr;
  // HTCONDOR: startd MUST_MODIFY_REQUEST_EXPRS (default False): "MODIFY_REQUEST_EXPR ... are
  // only applied if the job claim still matches the partitionable slot after modification".
  std::string short_of;
  if (!requests_fit(sized, p.res, sd.layout_, &short_of)) {
    std::string ignore;
    if (pol.consumption || pol.must_modify || !requests_fit(raw, p.res, sd.layout_, &ignore)) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "insufficient %s in %s: request cpus=%lld memory=%lld disk=%lld, "
                    "free cpus=%d memory=%lld disk=%lld",
                    short_of.c_str(), p.name.c_str(), static_cast<long long>(sized.std[0]),
                    static_cast<long long>(sized.std[1]), static_cast<long long>(sized.std[2]),
                    p.res.cpus, static_cast<long long>(p.res.memory_mb),
                    static_cast<long long>(p.res.disk_kb));
      *why = buf;
      return nullptr;
    }
    sized = raw;
  }
  return dslot_make(p, sized);
}

// Step 4: the dynamic slot: its name, the resources taken from `p`, its ad, inputs and policy.
SlotImpl* Engine::dslot_make(SlotImpl& p, const RequestAmounts& size) {
  auto d = std::make_unique<SlotImpl>();
  d->parent = &p;
  d->dynamic = true;
  d->id = p.id;
  d->type_id = p.type_id;
  d->dslot_id = p.next_dslot++;
  if (ev && !ev->adopt_slot.empty()) {
    // Re-adoption keeps the dynamic slot's old name.
    size_t us = ev->adopt_slot.rfind('_');
    long id = 0;
    if (us != std::string::npos) {
      char* end = nullptr;
      id = std::strtol(ev->adopt_slot.c_str() + us + 1, &end, 10);
      if (*end || id > INT_MAX) id = 0;  // not a dynamic slot's name: a new one
    }
    if (id > 0) {
      d->dslot_id = static_cast<int>(id);
      if (p.next_dslot <= d->dslot_id) p.next_dslot = d->dslot_id + 1;
    }
  }
  d->name = p.name + "_" + std::to_string(d->dslot_id);
  d->res.swap_kb = p.res.swap_kb;
  for (size_t i = 0; i < kStdResourceCount; ++i) {
    kStdResources[i].add(d->res, size.std[i]);
    kStdResources[i].add(p.res, -size.std[i]);
  }
  d->res.custom.assign(size.custom.size(), 0);
  d->res.ids.resize(size.custom.size());
  for (size_t i = 0; i < size.custom.size(); ++i) {
    d->res.custom[i] = static_cast<double>(size.custom[i]);
    std::vector<std::string>& free_ids = p.res.ids[i];
    for (int64_t k = 0; k < size.custom[i] && !free_ids.empty(); ++k) {
      d->res.ids[i].push_back(free_ids.front());
      free_ids.erase(free_ids.begin());
    }
    p.res.custom[i] -= d->res.custom[i];
  }
  p.res_dirty = true;
  d->total = d->res;
  d->flag_ignores_softkill = p.flag_ignores_softkill;
  d->flag_stuck = p.flag_stuck;
  p.flag_ignores_softkill = p.flag_stuck = false;
  d->state = State::kUnclaimed;
  d->entered_state = d->entered_activity = now;
  std::string e;
  load_policy(sd.cfg_, d->id, d->type_id, &d->pol, &e);
  bool ok = true;
  build_static_ad(sd, sd.cfg_, sd.facts_, *d, sd.start_time_, &e, &ok);
  for (const char* a : {"TotalCpus", "TotalMemory"}) {
    const Expr* x = p.ad->lookup(a);
    if (x) {
      classad::expr_ref(const_cast<Expr*>(x));
      d->ad->insert(a, const_cast<Expr*>(x));
    }
  }
  SlotImpl* raw = d.get();
  // Dynamic slots follow their parent and its older dynamic slots.
  size_t pos = 0;
  for (size_t i = 0; i < sd.slots_.size(); ++i) {
    if (sd.slots_[i].get() == &p || (sd.slots_[i]->parent == &p)) pos = i + 1;
  }
  sd.slots_.insert(sd.slots_.begin() + static_cast<long>(pos), std::move(d));
  // Inputs: machine-wide, then the parent's.
  std::string ignore;
  if (!sd.machine_inputs_.empty()) sd.set_inputs(raw->name, sd.machine_inputs_, &ignore);
  if (!p.inputs.empty()) sd.set_inputs(raw->name, p.inputs, &ignore);
  raw->inputs.clear();
  insert_policy(*raw);
  refresh(*raw);
  publish_pair_times(*raw, raw->state, raw->activity, now);
  char buf[160];
  std::snprintf(buf, sizeof buf, "from %s: cpus=%d memory=%lld disk=%lld", p.name.c_str(),
                raw->res.cpus, static_cast<long long>(raw->res.memory_mb),
                static_cast<long long>(raw->res.disk_kb));
  act(*raw, ActionKind::kCreateSlot, buf);
  refresh(p);
  refresh_total_slots();
  act(p, ActionKind::kPublishAds);
  return raw;
}

}  // namespace kite::startd
