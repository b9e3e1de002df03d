// The job's resource usage: from its cgroup (cpu.stat/cpuacct, memory, pids) or, without
// cgroups, summed over the processes of its session in /proc. Reported in the units of the
// job ad: RemoteUserCpu/RemoteSysCpu seconds, ImageSize/ResidentSetSize KiB, MemoryUsage MiB.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "agent/core/frame.h"
#include "hal/cgroup.h"

namespace kite::starter {

struct Usage {
  double user_cpu = 0;  // seconds
  double sys_cpu = 0;
  int64_t rss_kib = 0;   // now
  int64_t peak_kib = 0;  // the most seen so far (ImageSize, MemoryUsage)
  int64_t num_pids = 0;
};

/// Updates `u` from the job cgroup (peaks only grow).
void usage_sample_cgroup(const hal::Cgroups& cg, const hal::JobCgroup& job, Usage* u);
/// Updates `u` from the processes whose session is `sid` (the job runs in its own session).
void usage_sample_session(pid_t sid, Usage* u);
/// Pids of the processes in session `sid`.
std::vector<pid_t> session_pids(pid_t sid);
/// True when every process of session `sid` is stopped (or gone).
bool session_stopped(pid_t sid);
/// Adds RemoteUserCpu, RemoteSysCpu, ImageSize, ResidentSetSize, MemoryUsage, NumPids.
void usage_to_json(const Usage& u, core::Json* obj);

}  // namespace kite::starter
