// Slot layout from configuration (see slot_layout.h), as named steps: custom resources, the
// machine's totals, slot types, their instances, each resource shared out, named devices
// handed to slots, and the slots' resources.
#include "policy/startd/slot_layout.h"

#include <strings.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/config/typed.h"
#include "policy/startd/slot_share.h"
#include "policy/startd/text_util.h"
#include "policy/util/double_to_int.h"

namespace kite::startd {

using namespace layout_detail;

namespace {

constexpr int kMaxSlotTypes = 64;
constexpr int64_t kMaxSlotsPerType = 4096;

// The typed reader, keeping the first error in *bad (the value then reads as undefined).
bool config_int(const config::Config& cfg, const std::string& name, int64_t* out,
                std::string* bad) {
  bool found = false;
  config::Status st = config::read_int(cfg, name, out, &found);
  if (!st.ok && bad->empty()) *bad = st.message;
  return found;
}

bool config_bool(const config::Config& cfg, const config::Entry& e, bool dflt, std::string* bad) {
  config::Status st = config::read_bool(cfg, e, &dflt);
  if (!st.ok && bad->empty()) *bad = st.message;
  return dflt;
}

bool config_bool(const config::Config& cfg, const std::string& name, bool dflt, std::string* bad) {
  config::Entry e;
  return cfg.lookup(name, &e) ? config_bool(cfg, e, dflt, bad) : dflt;
}

// HTCONDOR: startd OFFLINE_MACHINE_RESOURCE_<name>: "resource identifiers ... that are
// currently offline, and therefore should not be allocated to a slot. The identifiers specified
// here must match those specified by ... MACHINE_RESOURCE_<name> ... or the identifiers will be
// ignored."
void take_offline(const config::Config& cfg, CustomResource* r) {
  std::string v;
  if (!cfg.get("OFFLINE_MACHINE_RESOURCE_" + r->name, &v)) return;
  for (const std::string& id : split_list(v)) {
    for (size_t i = 0; i < r->ids.size(); ++i) {
      if (r->ids[i] != id) continue;
      r->offline.push_back(id);
      r->ids.erase(r->ids.begin() + static_cast<long>(i));
      r->props.erase(r->props.begin() + static_cast<long>(i));
      r->total -= 1;
      break;
    }
  }
}

// The names of MACHINE_RESOURCE_<name>, filtered by MACHINE_RESOURCE_NAMES if set.
std::vector<std::string> custom_resource_names(const config::Config& cfg) {
  std::string names_v;
  bool have_names = cfg.get("MACHINE_RESOURCE_NAMES", &names_v);
  std::vector<std::string> names = split_list(names_v);
  if (have_names) return names;
  for (const config::Entry& e : cfg.entries()) {
    const std::string& n = e.name;
    if (n.size() > 17 && strncasecmp(n.c_str(), "MACHINE_RESOURCE_", 17) == 0 &&
        strcasecmp(n.c_str(), "MACHINE_RESOURCE_NAMES") != 0 &&
        strncasecmp(n.c_str(), "MACHINE_RESOURCE_INVENTORY_", 27) != 0) {
      names.push_back(n.substr(17));
    }
  }
  return names;
}

// Step 1. MACHINE_RESOURCE_<name>: a count or a list of device ids; the GPUs the HAL found when
// the configuration names none (listed first).
bool custom_resources_read(const config::Config& cfg, const MachineFacts& facts,
                           std::vector<CustomResource>* out, std::string* err) {
  bool have_gpus = false;
  for (const std::string& n : custom_resource_names(cfg)) {
    std::string v;
    if (!cfg.get("MACHINE_RESOURCE_" + n, &v)) continue;
    CustomResource r;
    r.name = n;
    v = trim(v);
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (!v.empty() && end && *end == '\0') {
      if (!std::isfinite(d) || d < 0) {
        *err = "MACHINE_RESOURCE_" + n + " = " + v + ": not a count (0 or more) or a list of ids";
        return false;
      }
      r.total = std::floor(d);
    } else {
      r.ids = split_list(v);
      r.total = static_cast<double>(r.ids.size());
      r.props.assign(r.ids.size(), "");
    }
    if (strcasecmp(n.c_str(), "GPUs") == 0) {
      r.name = "GPUs";
      have_gpus = true;
      for (size_t i = 0; i < r.ids.size(); ++i) {
        for (const GpuDevice& g : facts.gpus) {
          if (g.id == r.ids[i]) r.props[i] = g.properties;
        }
      }
    }
    take_offline(cfg, &r);
    out->push_back(r);
  }
  if (!have_gpus) {
    CustomResource r;
    r.name = "GPUs";
    for (const GpuDevice& g : facts.gpus) {
      r.ids.push_back(g.id);
      r.props.push_back(g.properties);
    }
    r.total = static_cast<double>(r.ids.size());
    take_offline(cfg, &r);
    out->insert(out->begin(), r);
  }
  return true;
}

// Step 2. What the machine has of each resource (ResourceIndex order), never negative.
std::vector<double> machine_totals(const config::Config& cfg, const MachineFacts& facts,
                                   const std::vector<CustomResource>& custom, std::string* bad) {
  std::vector<double> total(kFirstCustom + custom.size(), 0);
  int64_t n;
  total[kCpus] = config_int(cfg, "NUM_CPUS", &n, bad) && n > 0 ? static_cast<double>(n) : facts.cpus;
  total[kMemory] = config_int(cfg, "MEMORY", &n, bad) && n > 0 ? static_cast<double>(n)
                                                          : static_cast<double>(facts.memory_mb);
  if (config_int(cfg, "RESERVED_MEMORY", &n, bad) && n > 0) total[kMemory] -= static_cast<double>(n);
  total[kDisk] = static_cast<double>(facts.disk_kb);
  if (config_int(cfg, "RESERVED_DISK", &n, bad) && n > 0)
    total[kDisk] -= static_cast<double>(n) * 1024;  // MB
  total[kSwap] = static_cast<double>(facts.swap_kb);
  for (size_t i = 0; i < custom.size(); ++i) total[kFirstCustom + i] = custom[i].total;
  for (double& t : total) t = t < 0 ? 0 : t;
  return total;
}

// Step 3. NUM_SLOTS_TYPE_<N> / SLOT_TYPE_<N> / SLOT_TYPE_<N>_PARTITIONABLE; without any, NUM_SLOTS
// equal static slots, and without that one partitionable slot with everything.
bool slot_types_read(const config::Config& cfg, const std::vector<double>& total,
                     const std::vector<CustomResource>& custom, std::vector<TypeSpec>* types,
                     std::string* err) {
  const size_t nres = total.size();
  std::string bad;  // the first value that does not read
  for (int t = 1; t <= kMaxSlotTypes; ++t) {
    char name[48];
    std::snprintf(name, sizeof name, "NUM_SLOTS_TYPE_%d", t);
    int64_t count = 0;
    if (!config_int(cfg, name, &count, &bad) || count <= 0) continue;
    std::snprintf(name, sizeof name, "SLOT_TYPE_%d", t);
    std::string text;
    if (!cfg.get(name, &text)) text = "auto";
    TypeSpec ts;
    ts.type_id = t;
    ts.count = static_cast<int>(count > kMaxSlotsPerType ? kMaxSlotsPerType : count);
    std::snprintf(name, sizeof name, "SLOT_TYPE_%d_PARTITIONABLE", t);
    ts.partitionable = config_bool(cfg, name, false, &bad);
    // Read by the carving (carve.cc) per slot: checked here so a bad value stops the start.
    for (const char* flag : {"CONSUMPTION_POLICY", "MUST_MODIFY_REQUEST_EXPRS"}) {
      config::Entry e;
      if (cfg.lookup_slot(flag, 0, t, &e)) config_bool(cfg, e, false, &bad);
    }
    if (!bad.empty()) {
      *err = bad;
      return false;
    }
    if (!type_shares_parse(text, t, custom, &ts, err)) return false;
    types->push_back(std::move(ts));
  }
  if (!types->empty()) return true;
  int64_t num_slots = 0;
  bool have_num_slots = config_int(cfg, "NUM_SLOTS", &num_slots, &bad);
  if (!bad.empty()) {
    *err = bad;
    return false;
  }
  if (have_num_slots && num_slots > 0) {
    int64_t cpus =
        util::double_to_int64_clamped(total[kCpus], util::Round::kTowardZero, 0, INT64_MAX, 0);
    if (num_slots > cpus) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "NUM_SLOTS = %lld: more slots than the %lld CPUs of the machine (NUM_CPUS)",
                    static_cast<long long>(num_slots), static_cast<long long>(cpus));
      *err = buf;
      return false;
    }
    TypeSpec ts;
    ts.type_id = 0;
    // at most the CPUs; as many as NUM_SLOTS_TYPE_<N> may make
    ts.count = static_cast<int>(num_slots > kMaxSlotsPerType ? kMaxSlotsPerType : num_slots);
    ts.shares.assign(nres, Share{ShareKind::kAuto, 0, ""});
    types->push_back(std::move(ts));
    return true;
  }
  // HTCONDOR: ep-policy "Beginning with HTCondor 23.0 ... a single partitionable slot"
  TypeSpec ts;
  ts.type_id = 1;
  ts.count = 1;
  ts.partitionable = true;
  ts.shares.assign(nres, Share{ShareKind::kFraction, 1.0, ""});
  types->push_back(std::move(ts));
  return true;
}

// One slot being laid out: its type, its spec, and its amount of each resource.
struct Instance {
  const TypeSpec* type;
  SlotSpec spec;
  std::vector<double> amount;  // ResourceIndex order
};

// Step 4. The slots of every type, numbered from 1 in type order.
std::vector<Instance> instances_make(const std::vector<TypeSpec>& types, size_t nres) {
  std::vector<Instance> inst;
  int id = 1;
  for (const TypeSpec& ts : types) {
    for (int i = 0; i < ts.count; ++i) {
      Instance x;
      x.type = &ts;
      x.spec.id = id++;
      x.spec.type_id = ts.type_id;
      x.spec.partitionable = ts.partitionable;
      x.amount.assign(nres, 0);
      inst.push_back(std::move(x));
    }
  }
  return inst;
}

// The amount a fraction or absolute share gives of a machine total.
double share_amount(const Share& s, const ResourceRule& rule, double total) {
  if (s.kind == ShareKind::kFraction) {
    double a = std::floor(total * s.value + 1e-9);
    return rule.fraction_min_one && a < 1 && s.value > 0 ? 1 : a;
  }
  return rule.floor_absolute ? std::floor(s.value) : s.value * rule.absolute_scale;
}

// Step 5. Resource `r`: fixed shares first (in slot order, never more than the machine), then
// what is left split evenly among the `auto` ones.
bool resource_share_out(size_t r, const ResourceRule& rule, double total,
                        std::vector<Instance>* inst, std::string* err) {
  double used = 0;
  int autos = 0;
  for (Instance& x : *inst) {
    const Share& s = x.type->shares[r];
    if (s.kind == ShareKind::kAuto) {
      ++autos;
      continue;
    }
    x.amount[r] = share_amount(s, rule, total);
    used += x.amount[r];
    if (used > total + 1e-6) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "SLOT_TYPE_%d (slot%d): %s: the slots need %.0f but the machine has %.0f",
                    x.spec.type_id, x.spec.id, rule.name.c_str(), used, total);
      *err = buf;
      return false;
    }
  }
  if (autos == 0) return true;
  double left = total - used;
  double each = std::floor(left / autos + 1e-9);
  if (rule.auto_unit && each < 1) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%d slot(s) with %s=auto share %.0f %s left over: not enough for one each", autos,
                  rule.name.c_str(), left < 0 ? 0 : left, rule.auto_unit);
    *err = buf;
    return false;
  }
  for (Instance& x : *inst) {
    if (x.type->shares[r].kind == ShareKind::kAuto) x.amount[r] = each;
  }
  return true;
}

// Step 6. The named devices of custom resource `ri`: slots with a constraint pick first, then
// the others, each in slot order.
bool devices_assign(const CustomResource& cr, size_t ri, size_t ncustom,
                    std::vector<Instance>* inst, std::string* err) {
  std::vector<bool> taken(cr.ids.size(), false);
  for (bool constrained : {true, false}) {
    for (Instance& x : *inst) {
      const Share& s = x.type->shares[kFirstCustom + ri];
      if (s.constraint.empty() == constrained) continue;
      size_t want = static_cast<size_t>(util::double_to_int64_clamped(
          x.amount[kFirstCustom + ri], util::Round::kTowardZero, 0, INT64_MAX, 0));
      std::vector<std::string> got;
      for (size_t d = 0; d < cr.ids.size() && got.size() < want; ++d) {
        if (taken[d] || !device_matches(s.constraint, cr.ids[d], cr.props[d])) continue;
        taken[d] = true;
        got.push_back(cr.ids[d]);
      }
      if (got.size() < want) {
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "SLOT_TYPE_%d (slot%d): %s = %zu%s%s: only %zu matching device(s) left",
                      x.spec.type_id, x.spec.id, cr.name.c_str(), want,
                      s.constraint.empty() ? "" : " : ", s.constraint.c_str(), got.size());
        *err = buf;
        return false;
      }
      x.spec.res.ids.resize(ncustom);
      x.spec.res.ids[ri] = got;
    }
  }
  return true;
}

// Step 7. Amounts (ResourceIndex order, whole and not negative by now) as a slot's resources.
void resources_set(const std::vector<double>& amount, SlotResources* res) {
  auto whole = [&](size_t r, int64_t hi) {
    return util::double_to_int64_clamped(amount[r], util::Round::kTowardZero, 0, hi, 0);
  };
  res->cpus = static_cast<int>(whole(kCpus, INT_MAX));
  res->memory_mb = whole(kMemory, INT64_MAX);
  res->disk_kb = whole(kDisk, INT64_MAX);
  res->swap_kb = whole(kSwap, INT64_MAX);
  res->custom.assign(amount.begin() + kFirstCustom, amount.end());
  res->ids.resize(amount.size() - kFirstCustom);
}

}  // namespace

bool layout_build(const config::Config& cfg, const MachineFacts& facts, Layout* out,
                  std::string* err) {
  *out = Layout{};
  if (!custom_resources_read(cfg, facts, &out->resources, err)) return false;
  std::string bad;
  std::vector<double> total = machine_totals(cfg, facts, out->resources, &bad);
  if (!bad.empty()) {
    *err = bad;
    return false;
  }
  resources_set(total, &out->machine);
  std::vector<TypeSpec> types;
  if (!slot_types_read(cfg, total, out->resources, &types, err)) return false;
  std::vector<Instance> inst = instances_make(types, total.size());
  std::vector<ResourceRule> rules = resource_rules(out->resources);
  for (size_t r = 0; r < total.size(); ++r) {
    if (!resource_share_out(r, rules[r], total[r], &inst, err)) return false;
  }
  for (size_t ri = 0; ri < out->resources.size(); ++ri) {
    if (out->resources[ri].ids.empty()) continue;
    if (!devices_assign(out->resources[ri], ri, out->resources.size(), &inst, err)) return false;
  }
  for (Instance& x : inst) {
    resources_set(x.amount, &x.spec.res);
    out->slots.push_back(std::move(x.spec));
  }
  return true;
}

}  // namespace kite::startd
