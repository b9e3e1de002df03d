// Slot layout from configuration (see slot_layout.h).
#include "policy/startd/slot_layout.h"
#include "policy/startd/text_util.h"

#include <strings.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/config/typed.h"

namespace kite::startd {

namespace {

bool parse_number(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return false;
  std::string rest = trim(end);
  double mult = 1;
  if (!rest.empty()) {
    if (rest.size() > 2) return false;
    switch (rest[0]) {
      case 'k': case 'K': mult = 1.0 / 1024; break;
      case 'm': case 'M': mult = 1; break;
      case 'g': case 'G': mult = 1024; break;
      case 't': case 'T': mult = 1024.0 * 1024; break;
      default: return false;
    }
  }
  if (!std::isfinite(v) || v < 0) return false;
  *out = v * mult;
  return true;
}

enum class ShareKind { kUnset, kAuto, kFraction, kAbsolute };

struct Share {
  ShareKind kind = ShareKind::kUnset;
  double value = 0;
  std::string constraint;  // custom resources: "Capability >= 8.0" or "\"GPU-1\""
};

bool parse_share(const std::string& text, Share* out, std::string* err) {
  std::string v = text;
  size_t colon = v.find(':');
  if (colon != std::string::npos) {
    out->constraint = trim(v.substr(colon + 1));
    v = trim(v.substr(0, colon));
  }
  if (strcasecmp(v.c_str(), "auto") == 0) {
    out->kind = ShareKind::kAuto;
    return true;
  }
  if (!v.empty() && v.back() == '%') {
    double p;
    if (!parse_number(trim(v.substr(0, v.size() - 1)), &p) || p > 100) {
      *err = "bad percentage '" + v + "'";
      return false;
    }
    out->kind = ShareKind::kFraction;
    out->value = p / 100;
    return true;
  }
  size_t slash = v.find('/');
  if (slash != std::string::npos) {
    double a, b;
    if (!parse_number(trim(v.substr(0, slash)), &a) || !parse_number(trim(v.substr(slash + 1)), &b) ||
        b == 0 || a > b) {
      *err = "bad fraction '" + v + "'";
      return false;
    }
    out->kind = ShareKind::kFraction;
    out->value = a / b;
    return true;
  }
  double n;
  if (!parse_number(v, &n)) {
    *err = "bad amount '" + v + "'";
    return false;
  }
  out->kind = ShareKind::kAbsolute;
  out->value = n;
  return true;
}

// Resource index: 0 cpus, 1 memory, 2 disk, 3 swap, 4.. custom.
int resource_index(const std::string& name, const std::vector<CustomResource>& custom) {
  for (size_t i = 0; i < custom.size(); ++i) {
    if (strcasecmp(custom[i].name.c_str(), name.c_str()) == 0) return 4 + static_cast<int>(i);
  }
  if (name.empty()) return -1;
  // HTCONDOR: ep-policy "the first letter of the attribute name distinguishes"
  switch (name[0]) {
    case 'c': case 'C': return 0;
    case 'r': case 'R': case 'm': case 'M': return 1;
    case 'd': case 'D': return 2;
    case 's': case 'S': case 'v': case 'V': return 3;
  }
  return -1;
}

const char* const kStdNames[] = {"cpus", "memory", "disk", "swap"};

struct TypeSpec {
  int type_id;
  int count;
  bool partitionable;
  std::vector<Share> shares;  // per resource
};

bool parse_type(const std::string& text, int type_id, size_t nres,
                const std::vector<CustomResource>& custom, TypeSpec* out, std::string* err) {
  out->shares.assign(nres, Share{});
  Share blanket;
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    std::string line = trim(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (!line.empty()) {
      if (line.find(':') != std::string::npos) {
        items.push_back(line);
      } else {
        size_t p = 0;
        while (p <= line.size()) {
          size_t c = line.find(',', p);
          std::string it = trim(line.substr(p, c == std::string::npos ? std::string::npos : c - p));
          if (!it.empty()) items.push_back(it);
          if (c == std::string::npos) break;
          p = c + 1;
        }
      }
    }
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  char where[64];
  std::snprintf(where, sizeof where, "SLOT_TYPE_%d: ", type_id);
  for (const std::string& it : items) {
    size_t eq = it.find('=');
    std::string e;
    if (eq == std::string::npos || (it.find(':') != std::string::npos && it.find(':') < eq)) {
      if (!parse_share(it, &blanket, &e)) {
        *err = where + e;
        return false;
      }
      continue;
    }
    std::string name = trim(it.substr(0, eq));
    int idx = resource_index(name, custom);
    if (idx < 0) {
      *err = std::string(where) + "unknown resource '" + name + "'";
      return false;
    }
    Share s;
    if (!parse_share(trim(it.substr(eq + 1)), &s, &e)) {
      *err = std::string(where) + name + ": " + e;
      return false;
    }
    out->shares[idx] = s;
  }
  for (Share& s : out->shares) {
    if (s.kind == ShareKind::kUnset) {
      s.kind = blanket.kind == ShareKind::kUnset ? ShareKind::kAuto : blanket.kind;
      s.value = blanket.value;
      if (s.constraint.empty()) s.constraint = "";
    }
  }
  return true;
}

bool eval_constraint(const std::string& constraint, const std::string& id, const std::string& props) {
  if (constraint.empty()) return true;
  classad::ExprPtr e = classad::parse_expr(constraint);
  if (!e) return false;
  if (constraint[0] == '"') {
    classad::Value v = classad::evaluate(e.get());
    if (!v.is_string()) return false;
    // A literal names the device by id; the short form ("GPU-6a96bd13") names the full id too.
    std::string want(v.as_string());
    return strncasecmp(want.c_str(), id.c_str(), want.size()) == 0 &&
           (id.size() == want.size() || id[want.size()] == '-');
  }
  classad::AdPtr ad = classad::parse_classad_old(props);
  if (!ad) ad = classad::AdPtr(classad::ClassAd::make());
  ad->insert_value("Id", classad::Value::string(id));
  classad::Value v = ad->evaluate_expr(e.get());
  return classad::value_is_true(v);
}

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

}  // namespace

// HTCONDOR: startd OFFLINE_MACHINE_RESOURCE_<name>: "resource identifiers ... that are
// currently offline, and therefore should not be allocated to a slot. The identifiers specified
// here must match those specified by ... MACHINE_RESOURCE_<name> ... or the identifiers will be
// ignored."
static void take_offline(const config::Config& cfg, CustomResource* r) {
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

bool layout_build(const config::Config& cfg, const MachineFacts& facts, Layout* out,
                  std::string* err) {
  out->resources.clear();
  out->slots.clear();
  // Custom resources: MACHINE_RESOURCE_<name>, filtered by MACHINE_RESOURCE_NAMES if set.
  std::string names_v;
  bool have_names = cfg.get("MACHINE_RESOURCE_NAMES", &names_v);
  std::vector<std::string> names = split_list(names_v);
  if (!have_names) {
    for (const config::Entry& e : cfg.entries()) {
      const std::string& n = e.name;
      if (n.size() > 17 && strncasecmp(n.c_str(), "MACHINE_RESOURCE_", 17) == 0 &&
          strcasecmp(n.c_str(), "MACHINE_RESOURCE_NAMES") != 0 &&
          strncasecmp(n.c_str(), "MACHINE_RESOURCE_INVENTORY_", 27) != 0) {
        names.push_back(n.substr(17));
      }
    }
  }
  bool have_gpus = false;
  for (const std::string& n : names) {
    std::string v;
    if (!cfg.get("MACHINE_RESOURCE_" + n, &v)) continue;
    CustomResource r;
    r.name = n;
    v = trim(v);
    double d;
    char* end = nullptr;
    d = std::strtod(v.c_str(), &end);
    if (!v.empty() && end && *end == '\0') {
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
    out->resources.push_back(r);
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
    out->resources.insert(out->resources.begin(), r);
  }
  const size_t nres = 4 + out->resources.size();

  // Machine totals.
  std::string bad;  // the first value that does not read
  std::vector<double> total(nres, 0);
  int64_t n;
  total[0] = config_int(cfg, "NUM_CPUS", &n, &bad) && n > 0 ? static_cast<double>(n) : facts.cpus;
  total[1] = config_int(cfg, "MEMORY", &n, &bad) && n > 0 ? static_cast<double>(n)
                                                     : static_cast<double>(facts.memory_mb);
  if (config_int(cfg, "RESERVED_MEMORY", &n, &bad) && n > 0) total[1] -= static_cast<double>(n);
  total[2] = static_cast<double>(facts.disk_kb);
  if (config_int(cfg, "RESERVED_DISK", &n, &bad) && n > 0) {
    total[2] -= static_cast<double>(n) * 1024;
  }
  total[3] = static_cast<double>(facts.swap_kb);
  for (size_t i = 0; i < out->resources.size(); ++i) total[4 + i] = out->resources[i].total;
  for (double& t : total) t = t < 0 ? 0 : t;

  // Slot types.
  std::vector<TypeSpec> types;
  for (int t = 1; t <= 64; ++t) {
    char name[48];
    std::snprintf(name, sizeof name, "NUM_SLOTS_TYPE_%d", t);
    int64_t count = 0;
    if (!config_int(cfg, name, &count, &bad) || count <= 0) continue;
    std::snprintf(name, sizeof name, "SLOT_TYPE_%d", t);
    std::string text;
    if (!cfg.get(name, &text)) text = "auto";
    TypeSpec ts;
    ts.type_id = t;
    ts.count = static_cast<int>(count > 4096 ? 4096 : count);
    std::snprintf(name, sizeof name, "SLOT_TYPE_%d_PARTITIONABLE", t);
    ts.partitionable = config_bool(cfg, name, false, &bad);
    // Read by the carving (carve.cc) per slot: checked here so a bad value stops the start.
    for (const char* flag : {"CONSUMPTION_POLICY", "MUST_MODIFY_REQUEST_EXPRS"}) {
      config::Entry e;
      if (cfg.lookup_slot(flag, 0, t, &e)) config_bool(cfg, e, false, &bad);
    }
    if (!bad.empty()) break;
    if (!parse_type(text, t, nres, out->resources, &ts, err)) return false;
    types.push_back(std::move(ts));
  }
  if (!bad.empty()) {
    *err = bad;
    return false;
  }
  if (types.empty()) {
    int64_t num_slots = 0;
    bool have_num_slots = config_int(cfg, "NUM_SLOTS", &num_slots, &bad);
    if (!bad.empty()) {
      *err = bad;
      return false;
    }
    if (have_num_slots && num_slots > 0) {
      if (num_slots > static_cast<int64_t>(total[0])) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "NUM_SLOTS = %lld: more slots than the %d CPUs of the machine (NUM_CPUS)",
                      static_cast<long long>(num_slots), static_cast<int>(total[0]));
        *err = buf;
        return false;
      }
      TypeSpec ts;
      ts.type_id = 0;
      ts.count = static_cast<int>(num_slots);
      ts.partitionable = false;
      ts.shares.assign(nres, Share{ShareKind::kAuto, 0, ""});
      types.push_back(std::move(ts));
    } else {
      // HTCONDOR: ep-policy "Beginning with HTCondor 23.0 ... a single partitionable slot"
      TypeSpec ts;
      ts.type_id = 1;
      ts.count = 1;
      ts.partitionable = true;
      ts.shares.assign(nres, Share{ShareKind::kFraction, 1.0, ""});
      types.push_back(std::move(ts));
    }
  }

  // Instances.
  struct Inst {
    const TypeSpec* type;
    SlotSpec spec;
    std::vector<double> amount;
  };
  std::vector<Inst> inst;
  int id = 1;
  for (const TypeSpec& ts : types) {
    for (int i = 0; i < ts.count; ++i) {
      Inst x;
      x.type = &ts;
      x.spec.id = id++;
      x.spec.type_id = ts.type_id;
      x.spec.partitionable = ts.partitionable;
      x.amount.assign(nres, 0);
      inst.push_back(std::move(x));
    }
  }
  for (size_t r = 0; r < nres; ++r) {
    std::string rname = r < 4 ? kStdNames[r] : out->resources[r - 4].name;
    double used = 0;
    int autos = 0;
    for (Inst& x : inst) {
      const Share& s = x.type->shares[r];
      double a = 0;
      if (s.kind == ShareKind::kAuto) {
        ++autos;
        continue;
      }
      if (s.kind == ShareKind::kFraction) {
        a = std::floor(total[r] * s.value + 1e-9);
        if (r == 0 && a < 1 && s.value > 0) a = 1;
      } else {
        a = r == 2 || r == 3 ? s.value * 1024 : s.value;  // disk/swap absolute in MB -> KiB
        if (r == 1 || r >= 4) a = std::floor(s.value);
        if (r == 0) a = std::floor(s.value);
      }
      x.amount[r] = a;
      used += a;
      if (used > total[r] + 1e-6) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "SLOT_TYPE_%d (slot%d): %s: the slots need %.0f but the machine has %.0f",
                      x.spec.type_id, x.spec.id, rname.c_str(), used, total[r]);
        *err = buf;
        return false;
      }
    }
    if (autos > 0) {
      double left = total[r] - used;
      double each = std::floor(left / autos + 1e-9);
      if (r <= 1 && each < 1) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "%d slot(s) with %s=auto share %.0f %s left over: not enough for one each",
                      autos, rname.c_str(), left < 0 ? 0 : left, r == 0 ? "CPUs" : "MB");
        *err = buf;
        return false;
      }
      for (Inst& x : inst) {
        if (x.type->shares[r].kind == ShareKind::kAuto) x.amount[r] = each;
      }
    }
  }
  // Named devices: constrained slots pick first, then the others in slot order.
  for (size_t ri = 0; ri < out->resources.size(); ++ri) {
    const CustomResource& cr = out->resources[ri];
    if (cr.ids.empty()) continue;
    std::vector<bool> taken(cr.ids.size(), false);
    for (int pass = 0; pass < 2; ++pass) {
      for (Inst& x : inst) {
        const Share& s = x.type->shares[4 + ri];
        if ((pass == 0) == s.constraint.empty()) continue;
        int want = static_cast<int>(x.amount[4 + ri]);
        std::vector<std::string> got;
        for (size_t d = 0; d < cr.ids.size() && static_cast<int>(got.size()) < want; ++d) {
          if (taken[d]) continue;
          if (!eval_constraint(s.constraint, cr.ids[d], cr.props[d])) continue;
          taken[d] = true;
          got.push_back(cr.ids[d]);
        }
        if (static_cast<int>(got.size()) < want) {
          char buf[320];
          std::snprintf(buf, sizeof buf,
                        "SLOT_TYPE_%d (slot%d): %s = %d%s%s: only %d matching device(s) left",
                        x.spec.type_id, x.spec.id, cr.name.c_str(), want,
                        s.constraint.empty() ? "" : " : ", s.constraint.c_str(),
                        static_cast<int>(got.size()));
          *err = buf;
          return false;
        }
        x.spec.res.ids.resize(out->resources.size());
        x.spec.res.ids[ri] = got;
      }
    }
  }
  for (Inst& x : inst) {
    x.spec.res.cpus = static_cast<int>(x.amount[0]);
    x.spec.res.memory_mb = static_cast<int64_t>(x.amount[1]);
    x.spec.res.disk_kb = static_cast<int64_t>(x.amount[2]);
    x.spec.res.swap_kb = static_cast<int64_t>(x.amount[3]);
    x.spec.res.custom.assign(x.amount.begin() + 4, x.amount.end());
    x.spec.res.ids.resize(out->resources.size());
    out->slots.push_back(std::move(x.spec));
  }
  return true;
}

}  // namespace kite::startd
