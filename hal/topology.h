// Topology: the node's packages, cores, PUs, NUMA nodes and caches (from hwloc), the CPU and
// memory totals the machine ad advertises after NUM_CPUS / MEMORY / RESERVED_MEMORY
// overrides, and the choice of a CPU set for a job of N cpus.
// HTCONDOR: admin-manual/ep-policy-configuration "Configuring The Startd for SMP Machines".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hal/root.h"
#include "hal/status.h"

namespace kite::config {
class Config;
}

namespace kite::hal {

/// One cache level/kind: size of one instance and how many instances the node has.
struct CacheInfo {
  int level = 0;       // 1, 2, 3, ...
  char kind = 'u';     // 'd' data, 'i' instruction, 'u' unified
  uint64_t size = 0;   // bytes, one instance
  int count = 0;       // instances
};

/// One NUMA node: OS index, local memory and the PUs (OS indexes) attached to it.
struct NumaInfo {
  int os_index = 0;
  uint64_t memory = 0;  // bytes
  std::vector<int> pus;
};

/// One core: the package and NUMA node it sits in and its PUs (OS indexes).
struct CoreInfo {
  int package = 0;
  int numa = 0;  // index into Topology::numa
  std::vector<int> pus;
};

/// What hwloc found.
struct Topology {
  int packages = 0;
  int cores = 0;
  int pus = 0;
  uint64_t memory = 0;  // total bytes
  std::string cpu_model;  // package info "CPUModel", if any
  std::string source;     // "xml <path>", "live", "fsroot <dir>"
  std::vector<NumaInfo> numa;
  std::vector<CoreInfo> core_list;
  std::vector<CacheInfo> caches;  // ordered by level, then kind
};

/// Loads the topology. Under a fake root that holds /hwloc.xml (a board fixture), loads that
/// export; else the live system ("/") or the fake root's /sys and /proc.
Status topology_load(const Root& root, Topology* out);
/// Writes the live topology as an hwloc XML export (to record a board).
Status topology_export_xml(const std::string& path);

/// Detected and advertised amounts (the machine ad's DetectedCpus/TotalCpus/... values).
struct Resources {
  int detected_cpus = 0;            // PUs (COUNT_HYPERTHREAD_CPUS = true) or cores
  int64_t detected_memory_mib = 0;  // physical memory, MiB
  int total_cpus = 0;               // NUM_CPUS if set, else detected
  int64_t reserved_memory_mib = 0;  // RESERVED_MEMORY
  int64_t total_memory_mib = 0;     // MEMORY if set, else detected - reserved
};

/// Sets DETECTED_CPUS, DETECTED_CORES, DETECTED_PHYSICAL_CPUS, DETECTED_MEMORY so
/// configuration can refer to them.
void topology_set_detected(const Topology& topo, config::Config* cfg);
/// Applies COUNT_HYPERTHREAD_CPUS, NUM_CPUS, MEMORY and RESERVED_MEMORY (each may be a
/// ClassAd expression, e.g. "$(DETECTED_MEMORY) / 2"). Errors name the variable.
Status resources_compute(const Topology& topo, const config::Config& cfg, Resources* out);

/// Picks `n` PUs for a job, avoiding `busy` PUs: whole free cores first, all within the one
/// NUMA node that can hold them (the fullest such node, to keep others whole), then spilling
/// to other nodes, then half-free cores. Result sorted. Error if fewer than n PUs are free.
Status cpuset_select(const Topology& topo, int n, const std::vector<int>& busy,
                     std::vector<int>* out);
/// PUs in the kernel's list syntax ("0-3,8,10-11").
std::string cpuset_format(const std::vector<int>& pus);
/// Parses the kernel's list syntax; false on bad input.
bool cpuset_parse(std::string_view text, std::vector<int>* out);

}  // namespace kite::hal
