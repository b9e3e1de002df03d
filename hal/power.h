// Power: the Linux sleep methods HTCondor knows ("pm-utils", "/sys", "/proc"), the states they
// support (S1..S5 and their names), entering a state, and Wake-on-LAN capability and MAC
// addresses of the network interfaces. HTCONDOR: ep-configuration "Power Management",
// startd LINUX_HIBERNATION_METHOD.
#pragma once

#include <string>
#include <vector>

#include "hal/root.h"
#include "hal/status.h"

namespace kite::hal {

/// ACPI sleep states, numbered as HTCondor's HibernationLevel.
enum class SleepState { kNone = 0, kS1 = 1, kS2 = 2, kS3 = 3, kS4 = 4, kS5 = 5 };
/// "S3" etc.
const char* sleep_state_name(SleepState s);
/// HTCondor's names: "NONE", "S1"/"STANDBY"/"SLEEP", "S3"/"RAM"/"MEM"/"SUSPEND",
/// "S4"/"DISK"/"HIBERNATE", "S5"/"SHUTDOWN"/"OFF" (case-insensitive).
bool sleep_state_parse(std::string_view name, SleepState* out);

enum class PowerMethod { kNone, kPmUtils, kSys, kProc };
const char* power_method_name(PowerMethod m);  // "pm-utils", "/sys", "/proc", "none"

struct PowerInfo {
  PowerMethod method = PowerMethod::kNone;
  std::vector<SleepState> states;  // supported, ascending
  std::string error;               // why hibernation is disabled, if it is
  /// HibernationSupportedStates: "S3,S4,S5".
  std::string supported_string() const;
  bool can_hibernate() const { return !states.empty(); }
};

/// Detects the method (LINUX_HIBERNATION_METHOD `forced` if not empty, else the first of
/// pm-utils, /sys, /proc that is present) and its states. A forced method that is absent or
/// unknown disables hibernation (states empty, error set), as the reference says.
PowerInfo power_detect(const Root& root, const std::string& forced);

/// Enters `state` with the detected method: /sys writes /sys/power/state (S5: "shutdown" to
/// /sys/power/disk, then "disk"), /proc writes the number to /proc/acpi/sleep, pm-utils runs
/// pm-suspend/pm-hibernate/pm-powersave... under the root. Refuses unsupported states.
Status power_enter(const Root& root, const PowerInfo& info, SleepState state);

/// One network interface (loopback and virtual interfaces without a device are skipped).
struct NetInterface {
  std::string name;
  std::string mac;             // "aa:bb:cc:dd:ee:ff"
  bool wol_supported = false;  // the device can wake the system
  bool wol_enabled = false;
  std::string ipv4;     // "192.168.1.7" (live root only; empty when it has none)
  std::string netmask;  // "255.255.255.0", with ipv4
};
/// From /sys/class/net/*/{address,device/power/wakeup}; on the live root, also the ethtool
/// Wake-on-LAN (magic packet) bits and the IPv4 address and netmask.
std::vector<NetInterface> net_interfaces(const Root& root);

}  // namespace kite::hal
