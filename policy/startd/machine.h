// The machine facts the startd core needs (resources, identity, sampled inputs), as a plain
// struct the agent fills from the HAL and the simulator fills from its scenario.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kite::startd {

/// One GPU: its id (as condor_gpu_discovery names it, "GPU-6a96bd13") and its properties as
/// ClassAd attribute assignments in old syntax ("Capability = 8.0\nGlobalMemoryMb = 40536").
struct GpuDevice {
  std::string id;
  std::string properties;
};

/// What the machine has and what it looks like right now.
struct MachineFacts {
  int cpus = 1;                 // detected cores (DETECTED_CPUS)
  int64_t memory_mb = 1024;     // physical memory, MiB
  int64_t disk_kb = 10485760;   // free disk of the execute partition, KiB
  int64_t swap_kb = 0;          // virtual memory (swap), KiB
  std::vector<GpuDevice> gpus;  // detected GPUs
  std::string hostname = "localhost";
  std::string arch = "X86_64";
  std::string opsys = "LINUX";
  std::string opsys_and_ver = "Debian12";
  double load_avg = 0.0;         // machine-wide load average (TotalLoadAvg)
  int64_t keyboard_idle = 86400;  // seconds since the last keyboard/tty activity
  int64_t console_idle = 86400;   // seconds since the last console activity
  double mips = 0;
  double kflops = 0;
};

}  // namespace kite::startd
