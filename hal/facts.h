// Machine facts: OS and kernel identity (Arch, OpSys, OpSysAndVer, ...), hostname, disk of the
// execute directory, swap and virtual memory, load averages and HTCondor's per-slot load split,
// keyboard/console idle time, ClockMin/ClockDay.
// HTCONDOR: machine-classad-attributes; ep-policy "Load Average for Multi-core Machines".
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "hal/root.h"
#include "hal/status.h"

namespace kite::config {
class Config;
}

namespace kite::hal {

/// OS identity as the machine ad spells it.
struct OsInfo {
  std::string arch;              // Arch: "X86_64", "aarch64", ...
  std::string uname_machine;     // UtsnameMachine: "x86_64"
  std::string uname_sysname;     // UtsnameSysname: "Linux"
  std::string uname_nodename;    // UtsnameNodename
  std::string uname_release;     // UtsnameRelease (kernel version)
  std::string uname_version;     // UtsnameVersion
  std::string opsys = "LINUX";   // OpSys
  std::string opsys_name;        // OpSysName: "Debian"
  std::string opsys_long_name;   // OpSysLongName: "Debian GNU/Linux 12"
  std::string opsys_short_name;  // OpSysShortName
  int opsys_major_ver = 0;       // OpSysMajorVer: 12
  int opsys_ver = 0;             // OpSysVer: 1200 (major * 100 + minor)
  std::string opsys_and_ver;     // OpSysAndVer: "Debian12"
  std::string hostname;          // full host name
};

/// Reads /etc/os-release and the kernel's identity (uname(2) on the live root, else
/// /proc/sys/kernel/{ostype,osrelease,version,hostname,arch}).
Status os_info_read(const Root& root, OsInfo* out);
/// Sets the configuration macros HTCondor detects from the OS identity: ARCH, UNAME_ARCH,
/// OPSYS, OPSYSLEGACY, UNAME_OPSYS, OPSYSANDVER, OPSYSNAME, OPSYSLONGNAME, OPSYSSHORTNAME,
/// OPSYSVER, OPSYSMAJORVER and UTSNAME_{SYSNAME,NODENAME,RELEASE,VERSION,MACHINE}.
void os_info_set_detected(const OsInfo& os, config::Config* cfg);
/// HTCondor's Arch for a uname machine ("x86_64" -> "X86_64", "i686" -> "INTEL").
std::string arch_from_uname(const std::string& machine);

/// Memory and swap from /proc/meminfo, in KiB.
struct MemInfo {
  int64_t mem_total_kib = 0;
  int64_t mem_available_kib = 0;
  int64_t swap_total_kib = 0;
  int64_t swap_free_kib = 0;
  /// TotalVirtualMemory / VirtualMemory: physical memory plus swap, KiB.
  int64_t virtual_memory_kib() const { return mem_total_kib + swap_total_kib; }
};
Status meminfo_read(const Root& root, MemInfo* out);

/// Disk of a directory (the execute directory), KiB.
struct DiskInfo {
  int64_t total_kib = 0;  // DetectedDisk
  int64_t free_kib = 0;   // TotalDisk (before RESERVED_DISK)
};
Status disk_read(const Root& root, const std::string& dir, DiskInfo* out);

/// /proc/loadavg.
struct LoadAvg {
  double one = 0, five = 0, fifteen = 0;
};
Status loadavg_read(const Root& root, LoadAvg* out);

/// One slot's input to the load split: the load of its jobs and whether it is in the Owner
/// state (keyboard activity etc.).
struct SlotLoadIn {
  double condor_load = 0;
  bool owner_state = false;
};
/// One slot's share: CondorLoadAvg and LoadAvg (= its condor load plus the owner load it
/// was handed).
struct SlotLoadOut {
  double condor_load = 0;
  double owner_load = 0;
  double load_avg = 0;
};
/// HTCondor's per-slot split of the system load (TotalLoadAvg). The owner load (total minus
/// the condor load) goes to Owner-state slots first, then to the others in slot order, at
/// most 1.0 per slot; once every slot has had its share, what remains is spread evenly over
/// all slots. `total_condor_load` receives TotalCondorLoadAvg.
std::vector<SlotLoadOut> load_split(double total_load, const std::vector<SlotLoadIn>& slots,
                                    double* total_condor_load = nullptr);

/// ConsoleIdle: seconds since the last activity on the console, from the access times of
/// /dev/input/* and the devices named in `console_devices` (CONSOLE_DEVICES, e.g.
/// "mouse,console"). KeyboardIdle: the same, also counting every terminal (/dev/tty[0-9]*,
/// /dev/pts/*), so it is never larger than ConsoleIdle. Both are capped by the time since boot
/// (/proc/uptime), which is also the answer when no device exists.
struct IdleInfo {
  int64_t keyboard_idle = 0;
  int64_t console_idle = 0;
};
Status idle_read(const Root& root, const std::vector<std::string>& console_devices, time_t now,
                 IdleInfo* out);

/// ClockMin (minutes since local midnight) and ClockDay (0 = Sunday) for `now`.
void clock_fields(time_t now, int* clock_min, int* clock_day);

}  // namespace kite::hal
