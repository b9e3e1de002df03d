// Power on Linux: sleep-method detection, states, entering a state, and Wake-on-LAN.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "hal/power.h"

namespace kite::hal {
namespace {

std::string lower(std::string_view s) {
  std::string r;
  for (char c : s) r += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return r;
}

void add(std::vector<SleepState>* v, SleepState s) {
  if (std::find(v->begin(), v->end(), s) == v->end()) v->push_back(s);
}

const char* const kPmDirs[] = {"/usr/sbin", "/sbin", "/usr/bin", "/bin"};

std::string pm_tool(const Root& root, const char* name) {
  for (const char* d : kPmDirs) {
    std::string p = std::string(d) + "/" + name;
    if (::access(root.path(p).c_str(), X_OK) == 0) return p;
  }
  return {};
}

// Runs a tool under the root (argv[0] resolved there); returns its exit status or -1.
int run(const Root& root, const std::string& tool, const char* arg) {
  std::string path = root.path(tool);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const char* argv[] = {path.c_str(), arg, nullptr};
    execv(path.c_str(), const_cast<char* const*>(argv));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool detect_pm_utils(const Root& root, PowerInfo* info) {
  std::string is = pm_tool(root, "pm-is-supported");
  if (is.empty()) return false;
  if (run(root, is, "--suspend") == 0 && !pm_tool(root, "pm-suspend").empty()) add(&info->states, SleepState::kS3);
  if (run(root, is, "--hibernate") == 0 && !pm_tool(root, "pm-hibernate").empty()) add(&info->states, SleepState::kS4);
  if (!pm_tool(root, "poweroff").empty() || !pm_tool(root, "shutdown").empty()) add(&info->states, SleepState::kS5);
  return true;
}

bool detect_sys(const Root& root, PowerInfo* info) {
  std::string state;
  if (!root.read("/sys/power/state", &state).ok) return false;
  std::vector<std::string_view> st = split(state, " \n");
  auto has = [&](const char* s) { return std::find(st.begin(), st.end(), s) != st.end(); };
  // "mem" is S3 only when mem_sleep offers "deep"; with only s2idle/shallow it is a
  // standby (S1). Without mem_sleep (older kernels) "mem" is S3.
  std::string mem_sleep;
  bool deep = true;
  if (root.read("/sys/power/mem_sleep", &mem_sleep).ok) deep = mem_sleep.find("deep") != std::string::npos;
  if (has("standby") || has("freeze") || (has("mem") && !deep)) add(&info->states, SleepState::kS1);
  if (has("mem") && deep) add(&info->states, SleepState::kS3);
  if (has("disk")) {
    add(&info->states, SleepState::kS4);
    std::string disk;
    if (root.read("/sys/power/disk", &disk).ok && disk.find("shutdown") != std::string::npos) {
      add(&info->states, SleepState::kS5);
    }
  }
  return true;
}

bool detect_proc(const Root& root, PowerInfo* info) {
  std::string s;
  if (!root.read("/proc/acpi/sleep", &s).ok) return false;
  for (std::string_view t : split(s, " \n")) {
    if (t.size() == 2 && t[0] == 'S' && t[1] >= '1' && t[1] <= '5') {
      add(&info->states, static_cast<SleepState>(t[1] - '0'));
    }
  }
  return true;
}

// The interface's first IPv4 address and its netmask (what a Wake-on-LAN sender needs for the
// subnet's broadcast address).
void ipv4_of(const std::string& name, NetInterface* ni) {
  struct ifaddrs* all = nullptr;
  if (getifaddrs(&all) != 0) return;
  for (struct ifaddrs* a = all; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || name != a->ifa_name) continue;
    char buf[INET_ADDRSTRLEN];
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf)) ni->ipv4 = buf;
    if (a->ifa_netmask) {
      const auto* m = reinterpret_cast<const sockaddr_in*>(a->ifa_netmask);
      if (inet_ntop(AF_INET, &m->sin_addr, buf, sizeof buf)) ni->netmask = buf;
    }
    break;
  }
  freeifaddrs(all);
}

}  // namespace

const char* sleep_state_name(SleepState s) {
  static const char* const kNames[] = {"NONE", "S1", "S2", "S3", "S4", "S5"};
  return kNames[static_cast<int>(s)];
}

bool sleep_state_parse(std::string_view name, SleepState* out) {
  std::string n = lower(trim(name));
  struct Alias {
    const char* name;
    SleepState s;
  };
  static const Alias kAliases[] = {
      {"none", SleepState::kNone},   {"s0", SleepState::kNone},     {"s1", SleepState::kS1},
      {"standby", SleepState::kS1},  {"sleep", SleepState::kS1},    {"s2", SleepState::kS2},
      {"s3", SleepState::kS3},       {"ram", SleepState::kS3},      {"mem", SleepState::kS3},
      {"suspend", SleepState::kS3},  {"s4", SleepState::kS4},       {"disk", SleepState::kS4},
      {"hibernate", SleepState::kS4}, {"s5", SleepState::kS5},      {"shutdown", SleepState::kS5},
      {"off", SleepState::kS5}};
  for (const Alias& a : kAliases) {
    if (n == a.name) {
      *out = a.s;
      return true;
    }
  }
  return false;
}

const char* power_method_name(PowerMethod m) {
  switch (m) {
    case PowerMethod::kPmUtils: return "pm-utils";
    case PowerMethod::kSys: return "/sys";
    case PowerMethod::kProc: return "/proc";
    default: return "none";
  }
}

std::string PowerInfo::supported_string() const {
  std::string s;
  for (SleepState st : states) s += std::string(s.empty() ? "" : ",") + sleep_state_name(st);
  return s;
}

PowerInfo power_detect(const Root& root, const std::string& forced) {
  PowerInfo info;
  std::string f = lower(trim(forced));
  struct Try {
    const char* name;
    PowerMethod m;
    bool (*detect)(const Root&, PowerInfo*);
  };
  static const Try kOrder[] = {{"pm-utils", PowerMethod::kPmUtils, detect_pm_utils},
                               {"/sys", PowerMethod::kSys, detect_sys},
                               {"/proc", PowerMethod::kProc, detect_proc}};
  bool known = f.empty();
  for (const Try& t : kOrder) {
    if (!f.empty() && f != t.name) continue;
    known = true;
    PowerInfo probe;
    if (t.detect(root, &probe)) {
      probe.method = t.m;
      std::sort(probe.states.begin(), probe.states.end());
      return probe;
    }
    if (!f.empty()) {
      info.error = "LINUX_HIBERNATION_METHOD " + forced + " not available on this node";
      return info;
    }
  }
  info.error = known ? "no hibernation method detected (pm-utils, /sys, /proc)"
                     : "LINUX_HIBERNATION_METHOD " + forced + " is not one of pm-utils, /sys, /proc";
  return info;
}

Status power_enter(const Root& root, const PowerInfo& info, SleepState state) {
  if (std::find(info.states.begin(), info.states.end(), state) == info.states.end()) {
    return Status::Error(std::string("power: state ") + sleep_state_name(state) +
                         " not supported by method " + power_method_name(info.method));
  }
  switch (info.method) {
    case PowerMethod::kSys: {
      if (state == SleepState::kS5) {
        Status st = root.write("/sys/power/disk", "shutdown");
        if (!st.ok) return st;
        return root.write("/sys/power/state", "disk");
      }
      if (state == SleepState::kS4) return root.write("/sys/power/state", "disk");
      if (state == SleepState::kS3) return root.write("/sys/power/state", "mem");
      // S1: the lightest state the kernel offers.
      std::string s = root.read_line("/sys/power/state");
      const char* w = s.find("standby") != std::string::npos  ? "standby"
                      : s.find("freeze") != std::string::npos ? "freeze"
                                                              : "mem";
      return root.write("/sys/power/state", w);
    }
    case PowerMethod::kProc:
      return root.write("/proc/acpi/sleep", std::to_string(static_cast<int>(state)));
    case PowerMethod::kPmUtils: {
      const char* tool = state == SleepState::kS3   ? "pm-suspend"
                         : state == SleepState::kS4 ? "pm-hibernate"
                                                    : "poweroff";
      std::string p = pm_tool(root, tool);
      if (p.empty() && state == SleepState::kS5) p = pm_tool(root, "shutdown");
      if (p.empty()) return Status::Error(std::string("power: ") + tool + " not found under " + root.dir());
      int rc = run(root, p, state == SleepState::kS5 && p.find("shutdown") != std::string::npos ? "-h" : nullptr);
      if (rc != 0) return Status::Error("power: " + root.path(p) + " exited with " + std::to_string(rc));
      return Status::Ok();
    }
    default:
      return Status::Error("power: no hibernation method");
  }
}

std::vector<NetInterface> net_interfaces(const Root& root) {
  std::vector<NetInterface> out;
  for (const std::string& n : root.list("/sys/class/net")) {
    std::string base = "/sys/class/net/" + n;
    // Only interfaces backed by a device (skips lo, bridges, tunnels, ifb).
    if (!root.exists(base + "/device")) continue;
    NetInterface ni;
    ni.name = n;
    ni.mac = root.read_line(base + "/address");
    std::string wake = root.read_line(base + "/device/power/wakeup");
    ni.wol_supported = !wake.empty();
    ni.wol_enabled = wake == "enabled";
    if (root.live()) {
      int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd >= 0) {
        struct ethtool_wolinfo wol;
        std::memset(&wol, 0, sizeof wol);
        wol.cmd = ETHTOOL_GWOL;
        struct ifreq ifr;
        std::memset(&ifr, 0, sizeof ifr);
        std::strncpy(ifr.ifr_name, n.c_str(), IFNAMSIZ - 1);
        ifr.ifr_data = reinterpret_cast<char*>(&wol);
        if (ioctl(fd, SIOCETHTOOL, &ifr) == 0) {
          ni.wol_supported = (wol.supported & WAKE_MAGIC) != 0;
          ni.wol_enabled = (wol.wolopts & WAKE_MAGIC) != 0;
        }
        ::close(fd);
      }
    }
    if (root.live()) ipv4_of(n, &ni);
    out.push_back(std::move(ni));
  }
  return out;
}

}  // namespace kite::hal
