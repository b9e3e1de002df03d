// Cgroups: detection of the node's cgroup layout (v2 unified, v1 per-controller, or a hybrid
// of both), and per-job cgroups under a delegated base (BASE_CGROUP): create/destroy, memory
// (policy none/soft/hard), swap, cpu weight, pids and cpuset limits, freeze/thaw, kill-all,
// membership, usage and OOM-kill events. Uses what the kernel offers and reports what it
// does not. HTCONDOR: ep-configuration "Slot Isolation and Protection" (cgroup limits).
#pragma once

#include <sys/types.h>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hal/root.h"
#include "hal/status.h"

namespace kite::config {
class Config;
}

namespace kite::hal {

enum class CgroupMode { kNone, kV1, kV2, kHybrid };
const char* cgroup_mode_name(CgroupMode m);  // "none", "v1", "v2", "hybrid"

/// Where a facility lives: nowhere, in a v1 controller hierarchy, or in the v2 hierarchy.
enum class CgroupPlace { kNone, kV1, kV2 };

/// The facilities a job cgroup uses. kCpuAcct = cpu usage, kFreezer = freeze/thaw.
enum class CgroupFacility { kMemory, kCpu, kCpuAcct, kCpuset, kPids, kFreezer, kCount };
const char* cgroup_facility_name(CgroupFacility f);

/// The node's cgroup layout, from /proc/self/mountinfo and the v2 root's cgroup.controllers.
/// Mount points are node paths ("/sys/fs/cgroup/memory").
struct CgroupLayout {
  CgroupMode mode = CgroupMode::kNone;
  std::string v2_mount;                          // "" if no cgroup2 mount
  std::vector<std::string> v2_controllers;       // the v2 root's cgroup.controllers
  std::map<std::string, std::string> v1_mounts;  // controller name -> mount point
  CgroupPlace place[static_cast<int>(CgroupFacility::kCount)] = {};
  /// Human-readable notes on what is missing ("memory: no controller (no memory limits,
  /// usage or OOM events)").
  std::vector<std::string> missing;

  CgroupPlace where(CgroupFacility f) const { return place[static_cast<int>(f)]; }
};
Status cgroup_detect(const Root& root, CgroupLayout* out);

/// CGROUP_MEMORY_LIMIT_POLICY.
enum class MemoryPolicy { kNone, kSoft, kHard };
bool memory_policy_parse(std::string_view s, MemoryPolicy* out);  // case-insensitive

/// Inputs of the memory limit policy, in the machine ad's units.
struct MemoryLimitInput {
  MemoryPolicy policy = MemoryPolicy::kNone;
  int64_t slot_memory_mib = 0;     // the slot's Memory
  int64_t machine_memory_mib = 0;  // the startd's whole memory (TotalMemory)
  int64_t slot_virtual_kib = 0;    // the slot's VirtualMemory (0 = unknown: no swap limit)
  bool disable_swap = false;       // DISABLE_SWAP_FOR_JOB
};
/// Bytes to write; -1 = leave unlimited.
struct MemoryLimits {
  int64_t hard = -1;
  int64_t soft = -1;
  int64_t swap = -1;
};
/// hard: hard = slot, soft = 90% of slot. soft: soft = slot, hard = whole startd memory.
/// none: nothing. Swap (when a policy is set): VirtualMemory minus physical memory of the
/// slot, or 0 with DISABLE_SWAP_FOR_JOB.
MemoryLimits memory_limits_compute(const MemoryLimitInput& in);

/// The cgroup settings of a configuration: CGROUP_MEMORY_LIMIT_POLICY (default none),
/// DISABLE_SWAP_FOR_JOB (default false) and BASE_CGROUP (default "kite"). Errors name the
/// variable and its bad value.
struct CgroupConfig {
  MemoryPolicy policy = MemoryPolicy::kNone;
  bool disable_swap = false;
  std::string base = "kite";
};
Status cgroup_config_read(const config::Config& cfg, CgroupConfig* out);

/// Resource usage of a job cgroup. -1 = not available on this node.
struct CgroupUsage {
  int64_t cpu_user_usec = -1;
  int64_t cpu_system_usec = -1;
  int64_t memory_current = -1;  // bytes
  int64_t memory_peak = -1;     // bytes
  int64_t swap_current = -1;    // bytes
  int64_t pids_current = -1;
  int64_t oom_kills = -1;
};

/// An OOM-kill event source: `fd` becomes readable (POLLIN) when the kernel reports an OOM
/// in the cgroup (v2: inotify on memory.events; v1: an eventfd registered with
/// memory.oom_control). Then call cgroup_oom_read().
struct OomWatch {
  int fd = -1;
  int aux_fd = -1;       // v1: the open memory.oom_control
  std::string file;      // the file holding the oom_kill counter (node path)
  int64_t base = 0;      // oom_kill count when the watch started
  int64_t events = 0;    // v1 eventfd notifications so far
  int64_t reported = 0;  // OOM kills already returned by cgroup_oom_read()
  bool v2 = false;
};

/// One job's cgroup: a directory under the base in each hierarchy it uses.
struct JobCgroup {
  std::string name;                            // relative to the base, e.g. "slot1_1"
  std::string v2_dir;                          // node path, "" if none
  std::map<std::string, std::string> v1_dirs;  // controller -> node path
  bool v2_freeze = false;                      // cgroup.freeze present
  bool v2_kill = false;                        // cgroup.kill present
};

/// Per-job cgroups under BASE_CGROUP on one root.
class Cgroups {
 public:
  Cgroups(Root root, CgroupLayout layout, std::string base);
  const CgroupLayout& layout() const { return layout_; }
  const Root& root() const { return root_; }
  const std::string& base() const { return base_; }

  /// Creates (or adopts, if it exists) the job's directories, and the base if missing (v2:
  /// enables the available controllers in the base's subtree_control; v1 cpuset: copies
  /// cpus/mems from the parent, as the kernel requires before tasks can join).
  Status create(const std::string& name, JobCgroup* out) const;
  /// Kills what is left, then removes the job's directories (deepest first).
  Status destroy(JobCgroup* job) const;
  /// Puts a process in every hierarchy of the job.
  Status add_pid(const JobCgroup& job, pid_t pid) const;
  /// Processes in the job (union over its hierarchies), sorted.
  std::vector<pid_t> procs(const JobCgroup& job) const;

  Status set_memory(const JobCgroup& job, const MemoryLimits& lim) const;
  /// v2 cpu.weight = 100 x cpus (1..10000); v1 cpu.shares = 100 x cpus.
  Status set_cpu_weight(const JobCgroup& job, double cpus) const;
  Status set_pids_max(const JobCgroup& job, int64_t max) const;  // <= 0: "max"
  Status set_cpuset(const JobCgroup& job, const std::vector<int>& pus) const;

  /// Asks the kernel to freeze (v2 cgroup.freeze, else v1 freezer) and returns at once;
  /// freezing completes asynchronously: poll frozen(), asking again on v1 (a v1 freezer can
  /// stay FREEZING while a task is busy in the kernel).
  Status freeze_request(const JobCgroup& job) const;
  /// freeze_request(), then waits (up to 2 s) until the kernel says frozen. Blocks: not for
  /// an event loop.
  Status freeze(const JobCgroup& job) const;
  Status thaw(const JobCgroup& job) const;
  bool frozen(const JobCgroup& job) const;
  /// One non-blocking kill pass: v2 cgroup.kill when present, else freeze (without waiting),
  /// SIGKILL every pid, thaw. Processes die asynchronously: poll is_empty() and step again
  /// until it is (a process forked during the pass survives it).
  Status kill_step(const JobCgroup& job) const;
  /// No process left in any hierarchy of the job.
  bool is_empty(const JobCgroup& job) const { return procs(job).empty(); }
  /// One non-blocking attempt to remove the job's directories (deepest first). *busy is set
  /// when the kernel still holds one (EBUSY for a moment after the last task exits): try
  /// again later. Kills nothing.
  Status remove(JobCgroup* job, bool* busy) const;
  /// kill_step() until empty, waiting up to `timeout_ms`. Blocks: an event loop uses
  /// kill_step()/is_empty() on a timer instead.
  Status kill_all(const JobCgroup& job, int timeout_ms = 5000) const;

  CgroupUsage usage(const JobCgroup& job) const;

  /// Denies the job the device nodes at `paths` (the /dev/nvidiaN of GPUs not assigned to
  /// it): the v1 devices controller, a devices.deny line per node; the job's devices
  /// directory is made here (add_pid then covers it). Paths that do not exist are skipped.
  /// Without a v1 devices hierarchy, an error (a v2-only node needs a BPF device program).
  Status deny_devices(JobCgroup* job, const std::vector<std::string>& paths) const;

  Status oom_watch(const JobCgroup& job, OomWatch* out) const;

 private:
  std::string dir_of(const JobCgroup& job, CgroupFacility f) const;
  std::vector<std::string> levels_of(const std::string& name) const;
  Status make_v1_dir(const std::string& ctl, const std::vector<std::string>& levels,
                     JobCgroup* job) const;
  Root root_;
  CgroupLayout layout_;
  std::string base_;
};

/// New OOM kills since the last call (drains the fd). 0 if none. On v1 the eventfd fires when
/// the cgroup goes under OOM, which can be before the kernel counts the kill: an event counts
/// as a kill then, and the counter catching up later is not reported twice.
int64_t cgroup_oom_read(const Root& root, OomWatch* w);
void cgroup_oom_close(OomWatch* w);

}  // namespace kite::hal
