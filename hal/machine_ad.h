// The machine ad's hardware part: probes every HAL facet on one root with one configuration
// and renders what was found with HTCondor's attribute names (DetectedCpus, DetectedMemory in
// MiB, TotalCpus, TotalMemory, TotalDisk and TotalVirtualMemory in KiB, the GPU ads, Arch,
// OpSys, OpSysAndVer, ...) plus Kite's cgroup/topology attributes.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "hal/cgroup.h"
#include "hal/facts.h"
#include "hal/gpu.h"
#include "hal/power.h"
#include "hal/topology.h"
#include "policy/classad/classad.h"

namespace kite::config {
class Config;
}

namespace kite::hal {

/// Everything the HAL found on a node.
struct HalReport {
  Topology topo;
  Resources res;
  OsInfo os;
  MemInfo mem;
  DiskInfo disk;
  int64_t reserved_disk_kib = 0;
  LoadAvg load;
  IdleInfo idle;
  int clock_min = 0, clock_day = 0;
  CgroupLayout cgroups;
  std::string base_cgroup;
  PowerInfo power;
  std::vector<NetInterface> nics;
  std::vector<GpuDevice> gpus;
  std::vector<std::string> notes;  // what is missing or was skipped, for admins
};

/// Probes the node. Sets DETECTED_* in `cfg` first so NUM_CPUS etc. can use them. Fails only
/// when a fact every ad needs is missing (topology, memory, OS identity); the rest becomes
/// notes.
Status hal_probe(const Root& root, config::Config* cfg, time_t now, const GpuOptions& gpu_opt,
                 HalReport* out);

/// The report as a ClassAd.
classad::AdPtr hal_machine_ad(const HalReport& r);

}  // namespace kite::hal
