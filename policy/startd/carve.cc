// Carving a dynamic slot out of a partitionable slot for a claim: MODIFY_REQUEST_EXPR_*
// quantization of the request, custom resources and device ids, the new slot's ad and inputs.
// HTCONDOR: ep-configuration "Dynamic Provisioning: Partitionable and Dynamic Slots".
#include <cstdlib>

#include "policy/startd/engine.h"
#include "policy/startd/text_util.h"

#include <strings.h>

#include <cmath>
#include <cstdio>

#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/config/typed.h"

namespace kite::startd {

SlotImpl* Engine::carve(SlotImpl& p, const ClassAd* ad, std::string* why) {
  AdPtr req(ad ? ad->copy() : ClassAd::make());
  // HTCONDOR: ep-configuration "Defaults for Partitionable Slot Sizes" (MODIFY_REQUEST_EXPR_*)
  // and "condor_negotiator-Side Resource Consumption Policies" (CONSUMPTION_POLICY,
  // CONSUMPTION_<resource>, per slot type SLOT_TYPE_<N>_...): how much a job's request takes.
  auto cfg_text = [&](const std::string& name, std::string* out) {
    config::Entry e;
    if (!sd.cfg_.lookup_slot(name, p.id, p.type_id, &e)) return false;
    return sd.cfg_.get(e.name, out) && !trim(*out).empty();
  };
  // A value that is not a boolean reads as false here (layout_build reports it per slot type).
  auto cfg_flag = [&](const char* name) {
    config::Entry e;
    bool b = false;
    if (sd.cfg_.lookup_slot(name, p.id, p.type_id, &e)) config::read_bool(sd.cfg_, e, &b);
    return b;
  };
  std::string text;
  bool consumption = cfg_flag("CONSUMPTION_POLICY");
  bool must_modify = cfg_flag("MUST_MODIFY_REQUEST_EXPRS");
  struct Req {
    const char* attr;
    const char* modify;
    const char* dflt;
    const char* consume;
    const char* consume_dflt;
    double raw, value;
  } reqs[] = {
      {"RequestCpus", "MODIFY_REQUEST_EXPR_REQUESTCPUS", "quantize(RequestCpus, {1})",
       "CONSUMPTION_CPUS", "quantize(target.RequestCpus, {1})", 1, 1},
      {"RequestMemory", "MODIFY_REQUEST_EXPR_REQUESTMEMORY", "quantize(RequestMemory, {128})",
       "CONSUMPTION_MEMORY", "quantize(target.RequestMemory, {128})", 1, 1},
      {"RequestDisk", "MODIFY_REQUEST_EXPR_REQUESTDISK", "quantize(RequestDisk, {1024})",
       "CONSUMPTION_DISK", "quantize(target.RequestDisk, {1024})", 1, 1},
  };
  for (Req& r : reqs) {
    double d;
    if (!req->lookup(r.attr)) req->insert_value(r.attr, Value::integer(1));
    if (!number(req->evaluate_attr(r.attr), &d)) d = 1;
    r.raw = std::ceil(d);
    Value v;
    if (consumption) {
      // Evaluated by the partitionable slot, the job as TARGET.
      if (!cfg_text(r.consume, &text)) text = r.consume_dflt;
      ExprPtr e = classad::parse_expr(trim(text));
      if (e) v = classad::MatchPair(*p.ad, *req).evaluate_left(e.get());
    } else {
      if (!sd.cfg_.get(r.modify, &text) || trim(text).empty()) text = r.dflt;
      ExprPtr e = classad::parse_expr(trim(text));
      if (e) v = classad::MatchPair(*req, *p.ad).evaluate_left(e.get());
    }
    r.value = number(v, &d) ? std::ceil(d) : r.raw;
  }
  size_t nres = sd.layout_.resources.size();
  std::vector<double> custom(nres, 0), custom_raw(nres, 0);
  for (size_t i = 0; i < nres; ++i) {
    const std::string& name = sd.layout_.resources[i].name;
    double d;
    if (number(req->evaluate_attr("Request" + name), &d) && d > 0) custom_raw[i] = std::ceil(d);
    custom[i] = custom_raw[i];
    // "Custom resources have no default consumption policy."
    if (consumption && cfg_text("CONSUMPTION_" + name, &text)) {
      ExprPtr e = classad::parse_expr(trim(text));
      if (e && number(classad::MatchPair(*p.ad, *req).evaluate_left(e.get()), &d))
        custom[i] = d > 0 ? std::ceil(d) : 0;
    }
  }
  auto fits = [&](bool modified) {
    for (const Req& r : reqs) {
      double want = modified ? r.value : r.raw;
      double have = &r == &reqs[0]   ? p.res.cpus
                    : &r == &reqs[1] ? static_cast<double>(p.res.memory_mb)
                                     : static_cast<double>(p.res.disk_kb);
      if (want > have) return false;
    }
    for (size_t i = 0; i < nres; ++i) {
      if ((modified ? custom[i] : custom_raw[i]) > p.res.custom[i]) return false;
    }
    return true;
  };
  char buf[256];
  // HTCONDOR: startd MUST_MODIFY_REQUEST_EXPRS (default False): "MODIFY_REQUEST_EXPR ... are
  // only applied if the job claim still matches the partitionable slot after modification".
  if (!fits(true)) {
    if (!consumption && !must_modify && fits(false)) {
      for (Req& r : reqs) r.value = r.raw;
      custom = custom_raw;
    } else {
      std::snprintf(buf, sizeof buf,
                    "insufficient resources in %s: request cpus=%.0f memory=%.0f disk=%.0f, "
                    "free cpus=%d memory=%lld disk=%lld",
                    p.name.c_str(), reqs[0].value, reqs[1].value, reqs[2].value, p.res.cpus,
                    static_cast<long long>(p.res.memory_mb), static_cast<long long>(p.res.disk_kb));
      *why = buf;
      for (size_t i = 0; i < nres; ++i) {
        if (custom[i] > p.res.custom[i])
          *why = "insufficient " + sd.layout_.resources[i].name + " in " + p.name;
      }
      return nullptr;
    }
  }
  auto d = std::make_unique<SlotImpl>();
  d->parent = &p;
  d->dynamic = true;
  d->id = p.id;
  d->type_id = p.type_id;
  d->dslot_id = p.next_dslot++;
  if (ev && !ev->adopt_slot.empty()) {
    // Re-adoption keeps the dynamic slot's old name.
    size_t us = ev->adopt_slot.rfind('_');
    int id = us == std::string::npos ? 0 : std::atoi(ev->adopt_slot.c_str() + us + 1);
    if (id > 0) {
      d->dslot_id = id;
      if (p.next_dslot <= id) p.next_dslot = id + 1;
    }
  }
  d->name = p.name + "_" + std::to_string(d->dslot_id);
  d->res.cpus = static_cast<int>(reqs[0].value);
  d->res.memory_mb = static_cast<int64_t>(reqs[1].value);
  d->res.disk_kb = static_cast<int64_t>(reqs[2].value);
  d->res.swap_kb = p.res.swap_kb;
  d->res.custom = custom;
  d->res.ids.resize(custom.size());
  for (size_t i = 0; i < custom.size(); ++i) {
    for (int k = 0; k < static_cast<int>(custom[i]) && !p.res.ids[i].empty(); ++k) {
      d->res.ids[i].push_back(p.res.ids[i].front());
      p.res.ids[i].erase(p.res.ids[i].begin());
    }
    p.res.custom[i] -= custom[i];
  }
  p.res_dirty = true;
  p.res.cpus -= d->res.cpus;
  p.res.memory_mb -= d->res.memory_mb;
  p.res.disk_kb -= d->res.disk_kb;
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
  // Inputs: machine-wide, then the parent's.
  size_t pos = 0;
  for (size_t i = 0; i < sd.slots_.size(); ++i) {
    if (sd.slots_[i].get() == &p || (sd.slots_[i]->parent == &p)) pos = i + 1;
  }
  sd.slots_.insert(sd.slots_.begin() + static_cast<long>(pos), std::move(d));
  std::string ignore;
  if (!sd.machine_inputs_.empty()) sd.set_inputs(raw->name, sd.machine_inputs_, &ignore);
  if (!p.inputs.empty()) sd.set_inputs(raw->name, p.inputs, &ignore);
  raw->inputs.clear();
  insert_policy(*raw);
  refresh(*raw);
  publish_pair_times(*raw, raw->state, raw->activity, now);
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
