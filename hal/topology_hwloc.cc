// Topology from hwloc 2.x: a fixture's XML export, the live node, or a fake /sys tree; plus
// the config overrides and CPU-set selection declared in topology.h.
#include <hwloc.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "hal/topology.h"
#include "policy/config/config.h"
#include "policy/config/typed.h"

namespace kite::hal {
namespace {

std::vector<int> pus_of(hwloc_const_bitmap_t set) {
  std::vector<int> v;
  unsigned i;
  hwloc_bitmap_foreach_begin(i, set) v.push_back(static_cast<int>(i));
  hwloc_bitmap_foreach_end();
  return v;
}

void fill(hwloc_topology_t t, Topology* out) {
  out->packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  out->cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  out->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  if (out->packages == 0) out->packages = 1;
  hwloc_obj_t rootobj = hwloc_get_root_obj(t);
  out->memory = rootobj->total_memory;
  if (hwloc_obj_t pkg = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0)) {
    if (const char* m = hwloc_obj_get_info_by_name(pkg, "CPUModel")) out->cpu_model = m;
  }
  int nn = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < nn; ++i) {
    hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, i);
    NumaInfo n;
    n.os_index = static_cast<int>(o->os_index);
    n.memory = o->attr->numanode.local_memory;
    n.pus = pus_of(o->cpuset);
    out->numa.push_back(std::move(n));
  }
  for (int i = 0; i < out->cores; ++i) {
    hwloc_obj_t c = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, i);
    CoreInfo ci;
    ci.pus = pus_of(c->cpuset);
    if (hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, c)) {
      ci.package = static_cast<int>(p->logical_index);
    }
    for (size_t k = 0; k < out->numa.size(); ++k) {
      hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(k));
      if (hwloc_bitmap_intersects(o->cpuset, c->cpuset)) {
        ci.numa = static_cast<int>(k);
        break;
      }
    }
    out->core_list.push_back(std::move(ci));
  }
  // A machine without cores in its topology (some virtual CPUs): one core per PU.
  if (out->cores == 0) {
    out->cores = out->pus;
    for (int i = 0; i < out->pus; ++i) {
      hwloc_obj_t p = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU, i);
      out->core_list.push_back({0, 0, {static_cast<int>(p->os_index)}});
    }
  }
  std::map<std::pair<int, char>, CacheInfo> caches;
  const hwloc_obj_type_t kinds[] = {HWLOC_OBJ_L1CACHE,  HWLOC_OBJ_L2CACHE,  HWLOC_OBJ_L3CACHE,
                                    HWLOC_OBJ_L4CACHE,  HWLOC_OBJ_L5CACHE,  HWLOC_OBJ_L1ICACHE,
                                    HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3ICACHE};
  for (hwloc_obj_type_t k : kinds) {
    int n = hwloc_get_nbobjs_by_type(t, k);
    for (int i = 0; i < n; ++i) {
      hwloc_obj_t o = hwloc_get_obj_by_type(t, k, i);
      char kind = o->attr->cache.type == HWLOC_OBJ_CACHE_DATA          ? 'd'
                  : o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? 'i'
                                                                       : 'u';
      CacheInfo& c = caches[{static_cast<int>(o->attr->cache.depth), kind}];
      c.level = static_cast<int>(o->attr->cache.depth);
      c.kind = kind;
      c.size = o->attr->cache.size;
      ++c.count;
    }
  }
  for (auto& [k, c] : caches) out->caches.push_back(c);
}

}  // namespace

Status topology_load(const Root& root, Topology* out) {
  *out = Topology();
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) != 0) return Status::Error("hwloc_topology_init failed");
  std::string xml = root.path("/hwloc.xml");
  bool fsroot = false;
  if (!root.live() && root.exists("/hwloc.xml")) {
    if (hwloc_topology_set_xml(t, xml.c_str()) != 0) {
      hwloc_topology_destroy(t);
      return Status::Error("hwloc: cannot use XML export " + xml);
    }
    out->source = "xml " + xml;
  } else if (!root.live()) {
    if (!root.is_dir("/sys/devices/system/cpu")) {
      hwloc_topology_destroy(t);
      return Status::Error("hwloc: no /hwloc.xml and no /sys/devices/system/cpu under " + root.dir());
    }
    // hwloc reads its Linux backend's files under HWLOC_FSROOT (read at load time).
    setenv("HWLOC_FSROOT", root.dir().c_str(), 1);
    fsroot = true;
    out->source = "fsroot " + root.dir();
  } else {
    out->source = "live";
  }
  int rc = hwloc_topology_load(t);
  if (fsroot) unsetenv("HWLOC_FSROOT");
  if (rc != 0) {
    hwloc_topology_destroy(t);
    return Status::Error("hwloc: cannot load the topology from " + out->source);
  }
  fill(t, out);
  hwloc_topology_destroy(t);
  if (out->pus == 0) return Status::Error("hwloc: no processing units found (" + out->source + ")");
  return Status::Ok();
}

Status topology_export_xml(const std::string& path) {
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) != 0) return Status::Error("hwloc_topology_init failed");
  Status st;
  if (hwloc_topology_load(t) != 0) {
    st = Status::Error("hwloc: cannot load the live topology");
  } else if (hwloc_topology_export_xml(t, path.c_str(), 0) != 0) {
    st = Status::Error("hwloc: cannot export XML to " + path);
  }
  hwloc_topology_destroy(t);
  return st;
}

void topology_set_detected(const Topology& topo, config::Config* cfg) {
  cfg->set_detected("DETECTED_CPUS", std::to_string(topo.pus));
  cfg->set_detected("DETECTED_CORES", std::to_string(topo.cores));
  cfg->set_detected("DETECTED_PHYSICAL_CPUS", std::to_string(topo.cores));
  cfg->set_detected("DETECTED_HYPER_CPUS", std::to_string(topo.pus));
  cfg->set_detected("DETECTED_MEMORY", std::to_string(topo.memory >> 20));
}

namespace {

// A config value evaluated as a ClassAd expression (HTCondor evaluates NUM_CPUS, MEMORY and
// RESERVED_MEMORY that way). Returns false if undefined; error if it does not evaluate to a
// number.
bool config_number(const config::Config& cfg, const char* name, int64_t* out, Status* st) {
  bool found = false;
  config::Status cst = config::read_int(cfg, name, out, &found);
  if (!cst.ok) *st = Status::Error(cst.message);
  return found;
}

}  // namespace

Status resources_compute(const Topology& topo, const config::Config& cfg, Resources* out) {
  *out = Resources();
  Status st;
  bool count_ht = true;
  config::Status cst = config::read_bool(cfg, "COUNT_HYPERTHREAD_CPUS", &count_ht);
  if (!cst.ok) return Status::Error(cst.message);
  out->detected_cpus = count_ht ? topo.pus : topo.cores;
  out->detected_memory_mib = static_cast<int64_t>(topo.memory >> 20);
  int64_t v = 0;
  out->total_cpus = out->detected_cpus;
  if (config_number(cfg, "NUM_CPUS", &v, &st)) out->total_cpus = static_cast<int>(v);
  if (!st.ok) return st;
  if (config_number(cfg, "RESERVED_MEMORY", &v, &st)) out->reserved_memory_mib = v;
  if (!st.ok) return st;
  out->total_memory_mib = out->detected_memory_mib - out->reserved_memory_mib;
  if (config_number(cfg, "MEMORY", &v, &st)) out->total_memory_mib = v;
  if (!st.ok) return st;
  if (out->total_cpus < 1) return Status::Error("NUM_CPUS must be at least 1");
  if (out->total_memory_mib < 1) return Status::Error("MEMORY (after RESERVED_MEMORY) must be positive");
  return Status::Ok();
}

Status cpuset_select(const Topology& topo, int n, const std::vector<int>& busy,
                     std::vector<int>* out) {
  out->clear();
  auto is_busy = [&](int pu) { return std::find(busy.begin(), busy.end(), pu) != busy.end(); };
  // Free PUs per core, and whole-free cores per NUMA node.
  std::vector<std::vector<int>> free_pus(topo.core_list.size());
  int total_free = 0;
  for (size_t c = 0; c < topo.core_list.size(); ++c) {
    for (int pu : topo.core_list[c].pus) {
      if (!is_busy(pu)) free_pus[c].push_back(pu);
    }
    total_free += static_cast<int>(free_pus[c].size());
  }
  if (n < 1) return Status::Error("cpuset_select: asked for " + std::to_string(n) + " cpus");
  if (total_free < n) {
    return Status::Error("cpuset_select: " + std::to_string(n) + " cpus asked, " +
                         std::to_string(total_free) + " free");
  }
  size_t nnuma = std::max<size_t>(1, topo.numa.size());
  std::vector<int> whole_free(nnuma, 0);
  for (size_t c = 0; c < topo.core_list.size(); ++c) {
    if (free_pus[c].size() == topo.core_list[c].pus.size()) {
      whole_free[static_cast<size_t>(topo.core_list[c].numa) % nnuma] +=
          static_cast<int>(free_pus[c].size());
    }
  }
  // Order NUMA nodes: the node whose whole free cores can hold n with the least left over,
  // then nodes by most whole free PUs.
  std::vector<int> order(nnuma);
  for (size_t i = 0; i < nnuma; ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    bool fa = whole_free[a] >= n, fb = whole_free[b] >= n;
    if (fa != fb) return fa;
    if (fa) return whole_free[a] < whole_free[b];
    return whole_free[a] > whole_free[b];
  });
  std::vector<bool> taken(topo.core_list.size(), false);
  auto take_core = [&](size_t c) {
    for (int pu : free_pus[c]) {
      if (static_cast<int>(out->size()) < n) out->push_back(pu);
    }
    taken[c] = true;
  };
  // Pass 1: whole free cores, node by node in that order.
  for (int node : order) {
    for (size_t c = 0; c < topo.core_list.size() && static_cast<int>(out->size()) < n; ++c) {
      if (taken[c] || static_cast<size_t>(topo.core_list[c].numa) % nnuma != static_cast<size_t>(node)) continue;
      if (free_pus[c].size() == topo.core_list[c].pus.size()) take_core(c);
    }
  }
  // Pass 2: partly free cores, preferring the first chosen node.
  for (int node : order) {
    for (size_t c = 0; c < topo.core_list.size() && static_cast<int>(out->size()) < n; ++c) {
      if (taken[c] || static_cast<size_t>(topo.core_list[c].numa) % nnuma != static_cast<size_t>(node)) continue;
      if (!free_pus[c].empty()) take_core(c);
    }
  }
  std::sort(out->begin(), out->end());
  return Status::Ok();
}

std::string cpuset_format(const std::vector<int>& pus) {
  std::vector<int> v(pus);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string s;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!s.empty()) s += ',';
    s += std::to_string(v[i]);
    if (j > i) s += '-' + std::to_string(v[j]);
    i = j + 1;
  }
  return s;
}

bool cpuset_parse(std::string_view text, std::vector<int>* out) {
  out->clear();
  text = trim(text);
  for (std::string_view part : split(text, ",")) {
    std::string p(trim(part));
    char* end = nullptr;
    long a = std::strtol(p.c_str(), &end, 10);
    if (end == p.c_str() || a < 0) return false;
    long b = a;
    if (*end == '-') {
      const char* s2 = end + 1;
      b = std::strtol(s2, &end, 10);
      if (end == s2 || b < a) return false;
    }
    if (*end != '\0' || b - a > 65536) return false;
    for (long i = a; i <= b; ++i) out->push_back(static_cast<int>(i));
  }
  return true;
}

}  // namespace kite::hal
