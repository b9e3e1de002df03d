// job.json (see protocol.h) read and checked into a JobSpec: every field typed, defaulted
// and validated up front so that a bad file fails with a message naming the field, never
// later in the middle of running a job.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hal/cgroup.h"
#include "policy/classad/classad.h"

namespace kite::starter {

struct HookPaths {
  std::string prepare_job_before_transfer;
  std::string prepare_job;
  std::string update_job_info;
  std::string job_exit;
};

struct JobSpec {
  std::string slot;
  std::string claim_id;
  classad::AdPtr job;
  classad::AdPtr machine;
  double cpus = 1;
  int64_t memory_mb = 0;
  int64_t total_memory_mb = 0;
  int64_t virtual_memory_kb = 0;
  std::vector<int> cpu_list;
  std::vector<std::string> gpus;
  /// Device nodes the job's devices cgroup denies (the GPUs of the node not assigned to it).
  std::vector<std::string> deny_devices;
  std::vector<std::pair<std::string, std::string>> gpu_env;
  std::string execute;
  std::string cgroup_base;  // "" = no cgroups
  std::string cgroup_root = "/";
  hal::MemoryPolicy memory_policy = hal::MemoryPolicy::kNone;
  bool disable_swap = false;
  int64_t pids_max = 0;
  std::string slot_user = "nobody";
  bool allow_root_jobs = false;
  bool use_pid_namespace = false;
  bool allow_unconfined = false;  // ALLOW_UNCONFINED_JOBS: run when a cgroup limit cannot be set
  int64_t lease = 1800;
  int64_t update_interval = 300;
  int64_t initial_update_interval = 2;
  HookPaths hooks;
  int64_t hook_timeout = 120;
  int64_t return_output = 0;
};

/// Parses and checks job.json. False with "job.json: field 'x': ..." on the first problem.
bool job_spec_parse(std::string_view text, JobSpec* out, std::string* err);

}  // namespace kite::starter
