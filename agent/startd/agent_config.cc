// Reading the agent's settings out of a loaded configuration.
#include "agent/startd/agent_config.h"

#include <cstdlib>

#include "agent/core/config_command.h"
#include "policy/config/persistent.h"
#include "policy/config/typed.h"
#include "policy/startd/text_util.h"

namespace kite::agent {

config::Status config_load_default(const char* path, config::Config* cfg) {
  // `include : COMMAND |` runs the command here, before any loop, unless the caller gives its
  // own runner (the agent's reconfig does).
  if (!cfg->has_command_runner()) {
    cfg->set_command_runner(run_config_command);
    cfg->set_cache_writer(write_config_cache);
  }
  config::Status st;
  const char* env = std::getenv("KITE_CONFIG");
  if (path && path[0]) {
    st = cfg->load_main(path, true);
  } else if (env && env[0]) {
    st = cfg->load_main(env, true);
  } else {
    st = cfg->load_main("/etc/kite/kite.conf", false);
  }
  // `kite config-val -set` values, read after every other file (ENABLE_PERSISTENT_CONFIG).
  return st.ok ? config::load_persistent(cfg) : st;
}

bool agent_config_read(const config::Config& cfg, bool foreground, AgentConfig* out,
                       std::string* err) {
  auto str = [&](const char* name, std::string* dst, const std::string& dflt) {
    std::string v;
    *dst = cfg.get(name, &v) && !startd::trim(v).empty() ? startd::trim(v) : dflt;
  };
  str("LOCAL_DIR", &out->local_dir, "/var/lib/kite");
  str("EXECUTE", &out->execute, out->local_dir + "/execute");
  str("STARTER_STATE_DIR", &out->starter_dir, out->local_dir + "/starters");
  str("AGENT_SOCKET", &out->socket, out->local_dir + "/agent.sock");
  std::string log_dir;
  str("LOG", &log_dir, out->local_dir + "/log");
  str("AGENT_LOG", &out->log, foreground ? "" : log_dir + "/AgentLog");
  str("AGENT_LOG_LEVEL", &out->log_level, "info");
  str("AGENT_ADMIN_GROUP", &out->admin_group, "");
  str("SLOT_USER", &out->slot_user, "nobody");
  str("KITE_CGROUP_ROOT", &out->cgroup_root, "/");
  struct IntSetting {
    const char* name;
    int64_t* dst;
    int64_t min;
  } ints[] = {{"MAX_AGENT_LOG", &out->max_log, 0},
              {"JOB_PIDS_LIMIT", &out->pids_limit, -1},
              {"STARTER_UPDATE_INTERVAL", &out->update_interval, 1},
              {"STARTER_INITIAL_UPDATE_INTERVAL", &out->initial_update_interval, 1},
              {"JOB_HOOK_TIMEOUT", &out->hook_timeout, 1},
              {"LOCAL_CLAIM_IDLE_TIME", &out->local_claim_idle, 0},
              {"LOCAL_RUN_OUTPUT_BYTES", &out->return_output, 0},
              {"AGENT_MAX_CONNECTIONS", &out->max_connections, 1},
              {"AGENT_MAX_QUEUED_OUTPUT", &out->max_queued_output, 4096},
              {"AGENT_CLIENT_IDLE_TIMEOUT", &out->client_idle_timeout, 1},
              {"AGENT_MAX_REQUEST_SIZE", &out->max_request, 1024}};
  for (const IntSetting& s : ints) {
    config::Status cst = config::read_int(cfg, s.name, s.dst, nullptr, s.min);
    if (!cst.ok) {
      *err = cst.message;
      return false;
    }
  }
  struct BoolSetting {
    const char* name;
    bool* dst;
  } bools[] = {{"ALLOW_ROOT_JOBS", &out->allow_root_jobs},
               {"USE_PID_NAMESPACES", &out->use_pid_namespaces},
               {"ALLOW_UNCONFINED_JOBS", &out->allow_unconfined_jobs},
               {"AGENT_LOOP_LAG_PROBE", &out->loop_lag_probe}};
  for (const BoolSetting& s : bools) {
    config::Status cst = config::read_bool(cfg, s.name, s.dst);
    if (!cst.ok) {
      *err = cst.message;
      return false;
    }
  }
  hal::Status st = hal::cgroup_config_read(cfg, &out->cgroup);
  if (!st.ok) {
    *err = st.message;
    return false;
  }
  return startd::cron_config_read(cfg, &out->cron, err);
}

}  // namespace kite::agent
