// The agent's own settings, read once per (re)configuration from the HTCondor-syntax config:
// where its files live, who may command it, what the starter gets. Policy (START, SUSPEND...)
// and the slot layout are read by policy/startd, not here.
#pragma once

#include <cstdint>
#include <string>

#include "hal/cgroup.h"
#include "policy/config/config.h"
#include "policy/startd/cron_config.h"

namespace kite::agent {

struct AgentConfig {
  std::string local_dir;             // LOCAL_DIR
  std::string execute;               // EXECUTE: job sandboxes
  std::string starter_dir;           // STARTER_STATE_DIR: one directory per running starter
  std::string socket;                // AGENT_SOCKET: the local control socket
  std::string log;                   // AGENT_LOG: "" = stderr
  int64_t max_log = 10 << 20;        // MAX_AGENT_LOG, bytes
  std::string log_level = "info";    // AGENT_LOG_LEVEL
  std::string admin_group;           // AGENT_ADMIN_GROUP: members may change things (besides root)
  std::string slot_user = "nobody";  // SLOT_USER (SLOT<N>_USER per slot)
  bool allow_root_jobs = false;      // ALLOW_ROOT_JOBS
  bool use_pid_namespaces = false;   // USE_PID_NAMESPACES
  hal::CgroupConfig cgroup;          // BASE_CGROUP, CGROUP_MEMORY_LIMIT_POLICY, ...
  std::string cgroup_root = "/";     // KITE_CGROUP_ROOT (tests)
  int64_t pids_limit = 1024;         // JOB_PIDS_LIMIT per job (<= 0: none)
  int64_t update_interval = 300;     // STARTER_UPDATE_INTERVAL
  int64_t initial_update_interval = 2;  // STARTER_INITIAL_UPDATE_INTERVAL
  int64_t hook_timeout = 120;           // JOB_HOOK_TIMEOUT (Kite): seconds a job hook may run
  int64_t local_claim_idle = 20;        // LOCAL_CLAIM_IDLE_TIME: idle local claims kept this long
  int64_t return_output = 65536;        // LOCAL_RUN_OUTPUT_BYTES: output tail sent to `kite run`
  // The control socket's bounds (Kite): clients at once, replies queued for a client that does
  // not read before it is dropped (bytes), seconds a client may stay silent between requests,
  // the largest request (at most the 1 MiB every Kite socket takes).
  int64_t max_connections = 256;       // AGENT_MAX_CONNECTIONS
  int64_t max_queued_output = 262144;  // AGENT_MAX_QUEUED_OUTPUT
  int64_t client_idle_timeout = 60;    // AGENT_CLIENT_IDLE_TIMEOUT
  int64_t max_request = 262144;        // AGENT_MAX_REQUEST_SIZE: bytes in one request frame
  startd::CronConfig cron;             // STARTD_CRON_*: the monitors
  /// ALLOW_UNCONFINED_JOBS (Kite): run a job whose configured cgroup limits cannot be applied
  /// (no cgroup, no memory controller) instead of holding it.
  bool allow_unconfined_jobs = false;
  /// AGENT_LOOP_LAG_PROBE (Kite): log every stall of the loop of 5 ms or more.
  bool loop_lag_probe = false;
};

/// Reads the settings (config::read_int/read_bool); errors name the variable, its bad value and
/// the file and line that set it.
bool agent_config_read(const config::Config& cfg, bool foreground, AgentConfig* out,
                       std::string* err);

/// Loads the configuration the way every `kite` command does: `path` if given, else
/// $KITE_CONFIG, else /etc/kite/kite.conf (missing is fine) plus its config.d, then the
/// persistent file of `kite config-val -set` (ENABLE_PERSISTENT_CONFIG). The commands of
/// `include : COMMAND |` run through the runner `cfg` has, else run_config_command.
config::Status config_load_default(const char* path, config::Config* cfg);

}  // namespace kite::agent
