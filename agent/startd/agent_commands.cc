// The agent's admin commands (vacate, drain, cancel-drain, off, reconfig, set, and the remote
// configuration of `kite config-val -set/-unset/-rset`), shared by the local control socket
// and the central manager: each request in, the reply to send back out.
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/core/files.h"
#include "agent/core/log.h"
#include "agent/startd/agent.h"
#include "policy/config/persistent.h"
#include "policy/config/typed.h"

namespace kite::agent {

core::Json reply_ok(const std::string& message) {
  core::Json m = core::Json::message("ok");
  if (!message.empty()) m.set("message", message);
  return m;
}

core::Json reply_error(const std::string& message) {
  core::Json m = core::Json::message("error");
  m.set("message", message);
  return m;
}

bool admin_command_type(const std::string& type) {
  static const char* const kTypes[] = {
      "vacate", "drain",      "cancel-drain", "off",         "reconfig",
      "set",    "config-set", "config-unset", "config-rset", "config-runset"};
  for (const char* t : kTypes)
    if (type == t) return true;
  return false;
}

core::Json Agent::admin_command(core::Json& msg, const std::vector<std::string>& levels,
                                std::optional<startd::ShutdownMode>* off) {
  std::string type = msg.type();
  std::string err;
  if (type.compare(0, 7, "config-") == 0) return config_command(msg, levels);
  if (type == "vacate") {
    startd::Event ev;
    ev.kind = msg.flag("fast") ? startd::EventKind::kVacateFast : startd::EventKind::kVacate;
    std::string slot = msg.str("slot");
    std::vector<std::string> targets;
    if (!slot.empty()) {
      targets.push_back(slot);
    } else {
      for (const startd::SlotView& v : sd_->slots()) {
        if (v.state == startd::State::kClaimed || v.state == startd::State::kMatched)
          targets.push_back(v.name);
      }
    }
    int done = 0;
    for (const std::string& t : targets) {
      ev.slot = t;
      if (handle(ev, &err)) ++done;
    }
    if (!slot.empty() && done == 0) return reply_error("vacate " + slot + ": " + err);
    return reply_ok("vacated " + std::to_string(done) + " slot(s)");
  }
  if (type == "drain") {
    startd::Event ev;
    ev.kind = startd::EventKind::kDrain;
    std::string mode = msg.str("mode", "graceful");
    if (mode == "graceful") {
      ev.drain = startd::DrainMode::kGraceful;
    } else if (mode == "quick") {
      ev.drain = startd::DrainMode::kQuick;
    } else if (mode == "fast") {
      ev.drain = startd::DrainMode::kFast;
    } else {
      return reply_error("drain: unknown mode '" + mode + "' (graceful, quick, fast)");
    }
    ev.drain_resume = msg.flag("resume");
    ev.drain_reason = msg.str("reason");
    ev.drain_start = msg.str("start");
    if (!handle(ev, &err)) return reply_error("drain: " + err);
    return reply_ok("draining (" + mode + ")");
  }
  if (type == "cancel-drain") {
    startd::Event ev;
    ev.kind = startd::EventKind::kCancelDrain;
    if (!handle(ev, &err)) return reply_error("cancel-drain: " + err);
    return reply_ok("drain canceled");
  }
  if (type == "off") {
    std::string mode = msg.str("mode", "graceful");
    if (mode == "fast") {
      *off = startd::ShutdownMode::kFast;
    } else if (mode == "peaceful") {
      *off = startd::ShutdownMode::kPeaceful;
    } else if (mode == "graceful") {
      *off = startd::ShutdownMode::kGraceful;
    } else {
      return reply_error("off: unknown mode '" + mode + "' (graceful, fast, peaceful)");
    }
    return reply_ok("shutting down (" + mode + ")");
  }
  if (type == "reconfig") {
    bool pending = false;
    if (!reconfig(&err, &pending)) return reply_error("reconfig: " + err);
    // A configuration that reads commands' outputs applies once they have run (the log says).
    return reply_ok(pending ? "reconfig started: the configuration applies once its commands "
                              "have run"
                            : "reconfigured");
  }
  if (type == "set") {
    std::vector<std::pair<std::string, std::string>> assigns;
    const cJSON* a = nullptr;
    cJSON_ArrayForEach(a, msg.child("attrs")) {
      const cJSON* n = cJSON_GetArrayItem(a, 0);
      const cJSON* v = cJSON_GetArrayItem(a, 1);
      if (!cJSON_IsString(n) || !cJSON_IsString(v))
        return reply_error("set: attrs must be [name, expression] pairs");
      assigns.emplace_back(n->valuestring, v->valuestring);
    }
    if (!sd_->set_inputs(msg.str("slot"), assigns, &err)) return reply_error("set: " + err);
    evaluate();
    return reply_ok();
  }
  return reply_error("unknown command '" + type + "'");
}

core::Json Agent::config_command(const core::Json& msg, const std::vector<std::string>& levels) {
  std::string type = msg.type();
  bool persistent = type == "config-set" || type == "config-unset";
  bool unset = type == "config-unset" || type == "config-runset";
  std::string flag = persistent ? (unset ? "-unset" : "-set") : (unset ? "-runset" : "-rset");
  std::string name, value, err;
  if (unset) {
    name = msg.str("name");
    if (!config::valid_config_name(name))
      return reply_error(flag + ": '" + name + "' is not a configuration name");
  } else if (!config::parse_assignment(msg.str("assignment"), &name, &value, &err)) {
    return reply_error(flag + ": " + err);
  }
  const char* enable = persistent ? "ENABLE_PERSISTENT_CONFIG" : "ENABLE_RUNTIME_CONFIG";
  bool enabled = false;
  config::Status st = config::read_bool(*cfg_, enable, &enabled);
  if (!st.ok) return reply_error(flag + ": " + st.message);
  if (!enabled) return reply_error(flag + ": refused: " + enable + " is false on this node");
  if (!config::settable(*cfg_, levels, name))
    return reply_error(flag + ": not authorized to set " + name +
                       " (needs ADMINISTRATOR, or a SETTABLE_ATTRS_<LEVEL> list naming it)");
  // The change is made, then applied by a reconfig; a configuration that does not load is
  // undone, so a bad value never leaves the node without a working configuration.
  std::string path, before;
  bool had_file = false;
  std::map<std::string, std::string> runtime_before = runtime_config_;
  if (persistent) {
    st = config::persistent_config_path(*cfg_, &path);
    if (!st.ok) return reply_error(flag + ": " + st.message);
    had_file = core::read_file(path, &before, &err);
    std::string after = config::edit_persistent(before, name, unset ? nullptr : &value);
    std::string dir = path.substr(0, path.rfind('/'));
    if (!core::make_dirs(dir, 0755, &err) || !core::write_file_atomic(path, after, 0644, &err))
      return reply_error(flag + ": cannot write " + path + ": " + err);
  } else if (unset) {
    runtime_config_.erase(name);
  } else {
    runtime_config_[name] = value;
  }
  if (!reconfig(&err)) {
    runtime_config_ = runtime_before;
    std::string undo_err;
    if (persistent) {
      bool undone = had_file ? core::write_file_atomic(path, before, 0644, &undo_err)
                             : (::unlink(path.c_str()) == 0 || errno == ENOENT);
      if (!undone)
        KLOG_ERROR("%s: cannot undo %s: %s", flag.c_str(), path.c_str(), undo_err.c_str());
    }
    return reply_error(flag + ": the configuration with " + name + " does not load: " + err);
  }
  KLOG_INFO("config-val %s %s%s%s", flag.c_str(), name.c_str(), unset ? "" : " = ", value.c_str());
  return reply_ok(unset ? name : name + " = " + value);
}

}  // namespace kite::agent
