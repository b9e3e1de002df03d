// Machine facts on Linux: /etc/os-release, uname or /proc/sys/kernel, /proc/meminfo,
// statvfs, /proc/loadavg, device access times for idle time; and the per-slot load split.
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "hal/facts.h"

namespace kite::hal {
namespace {

std::string unquote(std::string v) {
  if (v.size() >= 2 && (v[0] == '"' || v[0] == '\'') && v.back() == v[0]) {
    v = v.substr(1, v.size() - 2);
  }
  return v;
}

}  // namespace

std::string arch_from_uname(const std::string& m) {
  if (m == "x86_64" || m == "amd64") return "X86_64";
  if (m == "i386" || m == "i486" || m == "i586" || m == "i686") return "INTEL";
  if (m == "arm64") return "aarch64";
  return m;  // aarch64, ppc64le, s390x, riscv64 keep their kernel spelling
}

Status os_info_read(const Root& root, OsInfo* out) {
  *out = OsInfo();
  if (root.live()) {
    struct utsname u;
    if (uname(&u) != 0) return Status::Errno("uname", "(syscall)", errno);
    out->uname_sysname = u.sysname;
    out->uname_nodename = u.nodename;
    out->uname_release = u.release;
    out->uname_version = u.version;
    out->uname_machine = u.machine;
  } else {
    out->uname_sysname = root.read_line("/proc/sys/kernel/ostype");
    out->uname_nodename = root.read_line("/proc/sys/kernel/hostname");
    out->uname_release = root.read_line("/proc/sys/kernel/osrelease");
    out->uname_version = root.read_line("/proc/sys/kernel/version");
    out->uname_machine = root.read_line("/proc/sys/kernel/arch");
    if (out->uname_machine.empty()) {
      return Status::Error("no machine type: " + root.path("/proc/sys/kernel/arch"));
    }
  }
  out->hostname = out->uname_nodename;
  out->arch = arch_from_uname(out->uname_machine);

  std::string rel;
  Status st = root.read("/etc/os-release", &rel);
  if (!st.ok) st = root.read("/usr/lib/os-release", &rel);
  // A minimal firmware root may have no os-release at all: name the OS after
  // the kernel then, instead of failing every fact.
  if (!st.ok) rel = "NAME=Linux\n";
  std::string id, name, pretty, version_id;
  find_key(rel, "NAME", &name);
  find_key(rel, "PRETTY_NAME", &pretty);
  find_key(rel, "VERSION_ID", &version_id);
  find_key(rel, "ID", &id);
  name = unquote(name);
  pretty = unquote(pretty);
  version_id = unquote(version_id);
  id = unquote(id);
  // HTCondor names the distribution by its first word ("Debian GNU/Linux" -> "Debian",
  // "Ubuntu" -> "Ubuntu", "Raspbian GNU/Linux" -> "Raspbian").
  std::string first = name.substr(0, name.find(' '));
  if (first.empty()) first = id;
  if (!first.empty() && first[0] >= 'a' && first[0] <= 'z') first[0] = static_cast<char>(first[0] - 32);
  out->opsys_name = first;
  out->opsys_short_name = first;
  // "Debian GNU/Linux 12", as HTCondor prints it (PRETTY_NAME adds "(bookworm)").
  out->opsys_long_name = name.empty() ? pretty : version_id.empty() ? name : name + " " + version_id;
  // "12" -> 12/1200, "22.04" -> 22/2204, "36" -> 36/3600.
  int major = std::atoi(version_id.c_str());
  int minor = 0;
  size_t dot = version_id.find('.');
  if (dot != std::string::npos) minor = std::atoi(version_id.c_str() + dot + 1);
  out->opsys_major_ver = major;
  out->opsys_ver = major * 100 + minor;
  out->opsys_and_ver = first + std::to_string(major);
  return Status::Ok();
}

Status meminfo_read(const Root& root, MemInfo* out) {
  *out = MemInfo();
  std::string text;
  Status st = root.read("/proc/meminfo", &text);
  if (!st.ok) return st;
  if (!find_key_int(text, "MemTotal", &out->mem_total_kib)) {
    return Status::Error("no MemTotal in " + root.path("/proc/meminfo"));
  }
  find_key_int(text, "MemAvailable", &out->mem_available_kib);
  find_key_int(text, "SwapTotal", &out->swap_total_kib);
  find_key_int(text, "SwapFree", &out->swap_free_kib);
  return Status::Ok();
}

Status disk_read(const Root& root, const std::string& dir, DiskInfo* out) {
  *out = DiskInfo();
  // The execute directory may not exist yet (or not be recorded in a fixture): measure the
  // filesystem of its nearest existing parent.
  std::string d = dir.empty() ? "/" : dir;
  struct statvfs vfs;
  for (;;) {
    std::string p = root.path(d);
    if (statvfs(p.c_str(), &vfs) == 0) break;
    if (errno != ENOENT && errno != ENOTDIR) return Status::Errno("statvfs", p, errno);
    if (d == "/") return Status::Errno("statvfs", p, errno);
    size_t slash = d.find_last_of('/');
    d = slash == 0 || slash == std::string::npos ? "/" : d.substr(0, slash);
  }
  out->total_kib = static_cast<int64_t>(vfs.f_blocks) * static_cast<int64_t>(vfs.f_frsize) / 1024;
  out->free_kib = static_cast<int64_t>(vfs.f_bavail) * static_cast<int64_t>(vfs.f_frsize) / 1024;
  return Status::Ok();
}

Status loadavg_read(const Root& root, LoadAvg* out) {
  std::string s = root.read_line("/proc/loadavg");
  if (std::sscanf(s.c_str(), "%lf %lf %lf", &out->one, &out->five, &out->fifteen) != 3) {
    return Status::Error("cannot parse " + root.path("/proc/loadavg") + ": '" + s + "'");
  }
  return Status::Ok();
}

// HTCONDOR: ep-policy "Load Average for Multi-core Machines".
std::vector<SlotLoadOut> load_split(double total_load, const std::vector<SlotLoadIn>& slots,
                                    double* total_condor_load) {
  std::vector<SlotLoadOut> out(slots.size());
  double condor = 0;
  for (size_t i = 0; i < slots.size(); ++i) {
    out[i].condor_load = slots[i].condor_load;
    condor += slots[i].condor_load;
  }
  if (total_condor_load) *total_condor_load = condor;
  double owner = total_load - condor;
  if (owner < 0) owner = 0;
  // Owner-state slots first, then the others, at most 1.0 each.
  for (int pass = 0; pass < 2 && owner > 0; ++pass) {
    for (size_t i = 0; i < slots.size() && owner > 0; ++i) {
      if (slots[i].owner_state != (pass == 0)) continue;
      double share = owner < 1.0 ? owner : 1.0;
      out[i].owner_load = share;
      owner -= share;
    }
  }
  // Out of slots with owner load left: everyone carries more than 1.0.
  if (owner > 0 && !slots.empty()) {
    double each = owner / static_cast<double>(slots.size());
    for (SlotLoadOut& o : out) o.owner_load += each;
  }
  for (SlotLoadOut& o : out) o.load_avg = o.condor_load + o.owner_load;
  return out;
}

Status idle_read(const Root& root, const std::vector<std::string>& console_devices, time_t now,
                 IdleInfo* out) {
  // Time since boot bounds both (and is the answer when no device exists).
  std::string up = root.read_line("/proc/uptime");
  double uptime = std::atof(up.c_str());
  time_t newest_kbd = 0, newest_con = 0;
  auto atime = [&](const std::string& abs) -> time_t {
    struct stat st;
    if (::stat(root.path(abs).c_str(), &st) != 0) return 0;
    return st.st_atime;
  };
  // Console: the local input devices and CONSOLE_DEVICES (default "mouse,console").
  for (const std::string& n : root.list("/dev/input")) {
    if (n.rfind("event", 0) == 0 || n.rfind("mouse", 0) == 0 || n == "mice") {
      newest_con = std::max(newest_con, atime("/dev/input/" + n));
    }
  }
  for (const std::string& d : console_devices) {
    std::string dev(trim(d));
    if (!dev.empty()) newest_con = std::max(newest_con, atime(dev[0] == '/' ? dev : "/dev/" + dev));
  }
  // Keyboard: the console plus every terminal (virtual consoles and remote logins' ptys).
  newest_kbd = newest_con;
  for (const std::string& n : root.list("/dev")) {
    if (n.rfind("tty", 0) == 0 && n.size() > 3 && n[3] >= '0' && n[3] <= '9') {
      newest_kbd = std::max(newest_kbd, atime("/dev/" + n));
    }
  }
  for (const std::string& n : root.list("/dev/pts")) {
    if (n != "ptmx") newest_kbd = std::max(newest_kbd, atime("/dev/pts/" + n));
  }
  int64_t cap = uptime > 0 ? static_cast<int64_t>(uptime) : INT32_MAX;
  auto idle = [&](time_t newest) -> int64_t {
    if (newest == 0) return cap;
    int64_t s = static_cast<int64_t>(now - newest);
    if (s < 0) s = 0;
    return std::min(s, cap);
  };
  out->keyboard_idle = idle(newest_kbd);
  out->console_idle = idle(newest_con);
  return Status::Ok();
}

void clock_fields(time_t now, int* clock_min, int* clock_day) {
  struct tm tm;
  localtime_r(&now, &tm);
  *clock_min = tm.tm_hour * 60 + tm.tm_min;
  *clock_day = tm.tm_wday;
}

}  // namespace kite::hal
