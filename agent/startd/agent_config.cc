// Reading the agent's settings out of a loaded configuration.
#include "agent/startd/agent_config.h"

#include <strings.h>

#include <cstdlib>

#include "policy/classad/classad.h"
#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/startd/text_util.h"

namespace kite::agent {

bool config_bool(const config::Config& cfg, const char* name, bool* out) {
  std::string v;
  if (!cfg.get(name, &v)) return false;
  v = startd::trim(v);
  for (const char* t : {"true", "yes", "1"}) {
    if (strcasecmp(v.c_str(), t) == 0) return *out = true, true;
  }
  for (const char* f : {"false", "no", "0"}) {
    if (strcasecmp(v.c_str(), f) == 0) return *out = false, true;
  }
  classad::ExprPtr e = classad::parse_expr(v);
  if (!e) return false;
  classad::Value r = classad::evaluate(e.get());
  if (!r.is_boolean()) return false;
  *out = r.as_boolean();
  return true;
}

config::Status config_load_default(const char* path, config::Config* cfg) {
  if (path && path[0]) return cfg->load_main(path, true);
  const char* env = std::getenv("KITE_CONFIG");
  if (env && env[0]) return cfg->load_main(env, true);
  return cfg->load_main("/etc/kite/kite.conf", false);
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
              {"LOCAL_RUN_OUTPUT_BYTES", &out->return_output, 0}};
  for (const IntSetting& s : ints) {
    std::string raw;
    if (!cfg.get(s.name, &raw) || startd::trim(raw).empty()) continue;
    if (!startd::cfg_int(cfg, s.name, s.dst) || *s.dst < s.min) {
      *err = std::string(s.name) + " = " + startd::trim(raw) +
             ": not a number >= " + std::to_string(s.min);
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
    std::string raw;
    if (!cfg.get(s.name, &raw) || startd::trim(raw).empty()) continue;
    if (!config_bool(cfg, s.name, s.dst)) {
      *err = std::string(s.name) + " = " + startd::trim(raw) + ": not a boolean";
      return false;
    }
  }
  hal::Status st = hal::cgroup_config_read(cfg, &out->cgroup);
  if (!st.ok) {
    *err = st.message;
    return false;
  }
  return true;
}

}  // namespace kite::agent
