// Power management on the node: the hibernation attributes every slot ad carries, and the
// core's hibernate action carried out: the offline ads to the collector, then the HAL's sleep
// method exactly once, then (back from the sleep) the ads republished.
// HTCONDOR: ep-configuration "Power Management", startd HIBERNATE, UNHIBERNATE,
// HIBERNATION_OVERRIDE_WOL, LINUX_HIBERNATION_METHOD.
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "agent/core/log.h"
#include "agent/startd/agent.h"
#include "policy/classad/json.h"
#include "policy/classad/unparse.h"
#include "policy/config/typed.h"

namespace kite::agent {
namespace {

// Time for the offline ads to leave the node before it sleeps (the frames are queued on the
// TLS connection; a sleeping NIC sends nothing).
constexpr uint64_t kOfflineFlushMs = 500;

std::string quoted(const std::string& s) {
  std::string out;
  classad::unparse_string(out, s);
  return out;
}

}  // namespace

void Agent::power_setup(bool detect) {
  // Power management off (HIBERNATE_CHECK_INTERVAL 0, the default): nothing is probed (no
  // pm-utils tool is run) and the ads carry no hibernation attributes.
  if (sd_->hibernate_interval() <= 0) return;
  std::string dir = "/", method, unhibernate = "MachineLastMatchTime =!= UNDEFINED";
  if (cfg_->get("KITE_POWER_ROOT", &dir) && dir.empty()) dir = "/";
  cfg_->get("LINUX_HIBERNATION_METHOD", &method);
  std::string v;
  if (cfg_->get("UNHIBERNATE", &v) && !v.empty()) unhibernate = v;
  power_.override_wol = false;
  config::Status st = config::read_bool(*cfg_, "HIBERNATION_OVERRIDE_WOL", &power_.override_wol);
  if (!st.ok) KLOG_WARN("power: %s", st.message.c_str());
  // As HTCondor, the method and the interfaces are detected once, at start.
  if (detect) {
    power_.root = hal::Root(dir);
    power_.info = hal::power_detect(power_.root, method);
    // The main interface is the first one with a device (HardwareAddress, as the HAL's ad).
    std::vector<hal::NetInterface> nics = hal::net_interfaces(power_.root);
    power_.main = nics.empty() ? hal::NetInterface() : nics.front();
  }
  const hal::NetInterface& main = power_.main;
  power_.wakeable = main.wol_supported && main.wol_enabled;
  auto b = [](bool x) { return std::string(x ? "True" : "False"); };
  std::vector<std::pair<std::string, std::string>> attrs = {
      {"CanHibernate", b(power_.info.can_hibernate())},
      {"HibernationMethod", quoted(hal::power_method_name(power_.info.method))},
      {"HibernationSupportedStates", quoted(power_.info.supported_string())},
      {"HibernationLevel", "0"},
      {"HibernationState", "\"NONE\""},
      {"HardwareAddress", quoted(main.mac.empty() ? "00:00:00:00:00:00" : main.mac)},
      {"IsWakeOnLanSupported", b(main.wol_supported)},
      {"IsWakeOnLanEnabled", b(main.wol_enabled)},
      {"IsWakeAble", b(power_.wakeable)},
      {"Unhibernate", unhibernate},
  };
  if (!main.netmask.empty()) attrs.push_back({"SubnetMask", quoted(main.netmask)});
  std::string err;
  if (!sd_->set_inputs("", attrs, &err)) KLOG_ERROR("power: UNHIBERNATE: %s", err.c_str());
  if (detect) {
    KLOG_INFO("power: method %s, states %s%s%s", hal::power_method_name(power_.info.method),
              power_.info.supported_string().c_str(), power_.info.error.empty() ? "" : ": ",
              power_.info.error.c_str());
  }
}

void Agent::hibernate(const startd::Action& a) {
  if (power_.timer) return;  // one sleep at a time
  int level = 0;
  for (int l = 1; l <= 5; ++l)
    if (a.detail == startd::hibernate_level_name(l)) level = l;
  auto state = static_cast<hal::SleepState>(level);
  const std::vector<hal::SleepState>& st = power_.info.states;
  if (level == 0 || std::find(st.begin(), st.end(), state) == st.end()) {
    KLOG_WARN("power: HIBERNATE asks for %s, which method %s does not offer (%s); staying up",
              a.detail.c_str(), hal::power_method_name(power_.info.method),
              power_.info.supported_string().empty() ? "no states"
                                                     : power_.info.supported_string().c_str());
    return;
  }
  // HTCONDOR: startd HIBERNATION_OVERRIDE_WOL: "hibernation is disabled if the network
  // interface does not use WOL packets to wake from hibernation".
  if (!power_.wakeable && !power_.override_wol) {
    KLOG_WARN(
        "power: HIBERNATE asks for %s but no interface wakes on LAN "
        "(HIBERNATION_OVERRIDE_WOL is false); staying up",
        a.detail.c_str());
    return;
  }
  // The offline ads: what the collector keeps while the node sleeps, for the rooster.
  std::map<std::string, std::string> offline;
  for (const classad::AdPtr& ad : slot_ads()) {
    std::string name;
    if (!ad->evaluate_string("Name", name)) continue;
    ad->insert_value("Offline", classad::Value::boolean(true));
    ad->insert_value("HibernationLevel", classad::Value::integer(level));
    ad->insert_value("HibernationState", classad::Value::string(a.detail));
    ad->insert_value("LastHibernationTime", classad::Value::integer(clock_.now()));
    // A match time from before the sleep is no reason to wake: only a match while offline is
    // (set by the matchmaker on the offline ad).
    ad->remove("MachineLastMatchTime");
    offline[name] = classad::classad_to_json(*ad, false);
  }
  int reached = collector_ ? collector_->send_now(offline) : 0;
  KLOG_INFO("power: entering %s; offline ads of %zu slot(s) sent to %d collector(s)",
            a.detail.c_str(), offline.size(), reached);
  power_.level = level;
  power_.timer = new uv_timer_t;
  uv_timer_init(&loop_, power_.timer);
  power_.timer->data = this;
  uv_timer_start(
      power_.timer, [](uv_timer_t* t) { static_cast<Agent*>(t->data)->enter_sleep(); },
      kOfflineFlushMs, 0);
}

void Agent::enter_sleep() {
  power_stop();
  // A claim or a job may have come while the offline ads left: every slot must still agree.
  if (sd_->hibernate_level_now() != power_.level) {
    KLOG_INFO("power: HIBERNATE no longer says %s on every slot; staying up",
              startd::hibernate_level_name(power_.level));
    if (collector_) collector_->publish(true);
    return;
  }
  auto state = static_cast<hal::SleepState>(power_.level);
  hal::Status st = hal::power_enter(power_.root, power_.info, state);
  // The call returns once the machine is awake again (or at once when it failed).
  if (st.ok) {
    KLOG_INFO("power: awake again after %s", hal::sleep_state_name(state));
    sd_->resumed_from_sleep(power_.level);
  } else {
    // Tried again at the next HIBERNATE_CHECK_INTERVAL.
    KLOG_ERROR("power: cannot enter %s: %s", hal::sleep_state_name(state), st.message.c_str());
  }
  if (collector_) collector_->publish(true);  // the online ads replace the offline ones
  evaluate();
}

void Agent::power_stop() {
  if (!power_.timer) return;
  uv_timer_stop(power_.timer);
  uv_close(reinterpret_cast<uv_handle_t*>(power_.timer),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  power_.timer = nullptr;
}

}  // namespace kite::agent
