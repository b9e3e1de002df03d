// Machine-fact tests on every board's recorded /proc and /etc: OS identity, memory, load and
// HTCondor's per-slot load split, idle times, ClockMin/ClockDay, disk.
#include "hal/facts.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>

#include "hal_test_util.h"
#include "policy/config/config.h"

namespace kite::hal {
namespace {

using testing::fixtures;
using testing::ScratchRoot;

OsInfo os(const std::string& board) {
  OsInfo o;
  Status st = os_info_read(Root(fixtures(board)), &o);
  EXPECT_TRUE(st.ok) << st.message;
  return o;
}

TEST(OsInfo, GenericX86MatchesHtcondorsAdForThisKindOfMachine) {
  // The observed HTCondor 25 ad of a Debian 12 x86_64 node: Arch "X86_64", OpSysAndVer
  // "Debian12", OpSysMajorVer 12, OpSysVer 1200, OpSysLongName "Debian GNU/Linux 12".
  OsInfo o = os("generic-x86_64");
  EXPECT_EQ(o.arch, "X86_64");
  EXPECT_EQ(o.opsys, "LINUX");
  EXPECT_EQ(o.opsys_and_ver, "Debian12");
  EXPECT_EQ(o.opsys_major_ver, 12);
  EXPECT_EQ(o.opsys_ver, 1200);
  EXPECT_EQ(o.opsys_name, "Debian");
  EXPECT_EQ(o.opsys_long_name, "Debian GNU/Linux 12");
  EXPECT_EQ(o.uname_machine, "x86_64");
  EXPECT_EQ(o.uname_sysname, "Linux");
  EXPECT_EQ(o.uname_release, "6.18.44-fc-v595");
  EXPECT_EQ(o.uname_version, "#1 SMP PREEMPT_DYNAMIC @0");
  EXPECT_EQ(o.hostname, "vm");
}

// HTCondor's configuration has the OS identity as detected macros (condor_config.cpp
// fill_attributes), with the machine ad's values: $(ARCH) "X86_64", $(OPSYS) "LINUX",
// $(OPSYSANDVER) "Debian12", $(UNAME_ARCH) "x86_64", $(UNAME_OPSYS) "Linux", ...
TEST(OsInfo, DetectedConfigurationMacros) {
  config::Config cfg;
  os_info_set_detected(os("generic-x86_64"), &cfg);
  auto get = [&cfg](const char* name) {
    std::string v;
    EXPECT_TRUE(cfg.get(name, &v)) << name;
    return v;
  };
  EXPECT_EQ(get("ARCH"), "X86_64");
  EXPECT_EQ(get("OPSYS"), "LINUX");
  EXPECT_EQ(get("OPSYSLEGACY"), "LINUX");
  EXPECT_EQ(get("OPSYSANDVER"), "Debian12");
  EXPECT_EQ(get("OPSYSMAJORVER"), "12");
  EXPECT_EQ(get("OPSYSVER"), "1200");
  EXPECT_EQ(get("OPSYSNAME"), "Debian");
  EXPECT_EQ(get("OPSYSSHORTNAME"), "Debian");
  EXPECT_EQ(get("OPSYSLONGNAME"), "Debian GNU/Linux 12");
  EXPECT_EQ(get("UNAME_ARCH"), "x86_64");
  EXPECT_EQ(get("UNAME_OPSYS"), "Linux");
  EXPECT_EQ(get("UTSNAME_MACHINE"), "x86_64");
  EXPECT_EQ(get("UTSNAME_RELEASE"), "6.18.44-fc-v595");
  std::string v;
  ASSERT_TRUE(cfg.expand("$(OPSYS)/$(ARCH)", &v).ok);
  EXPECT_EQ(v, "LINUX/X86_64");
}

TEST(OsInfo, OtherBoards) {
  OsInfo o = os("raspberrypi-4");
  EXPECT_EQ(o.arch, "aarch64");
  EXPECT_EQ(o.opsys_and_ver, "Debian12");
  EXPECT_EQ(o.uname_release, "6.6.31+rpt-rpi-v8");
  EXPECT_EQ(o.hostname, "rpi4-node01");
  o = os("jetson-orin");
  EXPECT_EQ(o.arch, "aarch64");
  EXPECT_EQ(o.opsys_and_ver, "Ubuntu22");
  EXPECT_EQ(o.opsys_ver, 2204);
  EXPECT_EQ(o.opsys_long_name, "Ubuntu 22.04");
  EXPECT_EQ(o.uname_release, "5.15.136-tegra");
  o = os("server-4gpu");
  EXPECT_EQ(o.arch, "X86_64");
  EXPECT_EQ(o.opsys_and_ver, "Rocky9");
  EXPECT_EQ(o.opsys_major_ver, 9);
  EXPECT_EQ(o.opsys_ver, 903);
  EXPECT_EQ(o.hostname, "gpu-node03.example.org");
}

TEST(OsInfo, LiveMatchesUname) {
  OsInfo o;
  ASSERT_TRUE(os_info_read(Root("/"), &o).ok);
  EXPECT_FALSE(o.uname_release.empty());
  EXPECT_FALSE(o.opsys_and_ver.empty());
  EXPECT_EQ(o.arch, arch_from_uname(o.uname_machine));
}

TEST(OsInfo, ArchNames) {
  EXPECT_EQ(arch_from_uname("x86_64"), "X86_64");
  EXPECT_EQ(arch_from_uname("i686"), "INTEL");
  EXPECT_EQ(arch_from_uname("aarch64"), "aarch64");
  EXPECT_EQ(arch_from_uname("ppc64le"), "ppc64le");
}

TEST(OsInfo, MissingFilesAreErrorsNamingThePath) {
  ScratchRoot r;
  OsInfo o;
  Status st = os_info_read(r.root(), &o);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("/proc/sys/kernel/arch"), std::string::npos) << st.message;
}

TEST(MemInfo, VirtualMemoryIsRamPlusSwapInKib) {
  MemInfo m;
  ASSERT_TRUE(meminfo_read(Root(fixtures("generic-x86_64")), &m).ok);
  EXPECT_EQ(m.mem_total_kib, 24684096);
  EXPECT_EQ(m.swap_total_kib, 0);
  EXPECT_EQ(m.virtual_memory_kib(), 24684096);
  EXPECT_EQ(m.mem_total_kib / 1024, 24105);  // DetectedMemory, as in the observed ad
  ASSERT_TRUE(meminfo_read(Root(fixtures("jetson-orin")), &m).ok);
  EXPECT_EQ(m.virtual_memory_kib(), 64335836 + 32167904);
}

TEST(LoadAvg, Recorded) {
  LoadAvg l;
  ASSERT_TRUE(loadavg_read(Root(fixtures("server-4gpu")), &l).ok);
  EXPECT_DOUBLE_EQ(l.one, 12.40);
  EXPECT_DOUBLE_EQ(l.five, 11.85);
  EXPECT_DOUBLE_EQ(l.fifteen, 10.02);
  ScratchRoot r;
  r.put("/proc/loadavg", "garbage\n");
  Status st = loadavg_read(r.root(), &l);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("/proc/loadavg"), std::string::npos);
}

// HTCONDOR: ep-policy "Load Average for Multi-core Machines", first log example: 2 slots,
// keyboard on both (Owner), load 0.34, no condor load.
TEST(LoadSplit, ReferenceExampleIdleMachine) {
  double total_condor = -1;
  std::vector<SlotLoadOut> o = load_split(0.34, {{0, true}, {0, true}}, &total_condor);
  EXPECT_DOUBLE_EQ(total_condor, 0.0);
  EXPECT_DOUBLE_EQ(o[0].load_avg, 0.34);
  EXPECT_DOUBLE_EQ(o[0].owner_load, 0.34);
  EXPECT_DOUBLE_EQ(o[1].load_avg, 0.0);
}

// Second example: slot1 Owner, slot2 Claimed/Busy with condor load 0.996; system 1.25.
TEST(LoadSplit, ReferenceExampleOneBusySlot) {
  double total_condor = -1;
  std::vector<SlotLoadOut> o = load_split(1.25, {{0, true}, {0.996, false}}, &total_condor);
  EXPECT_DOUBLE_EQ(total_condor, 0.996);
  EXPECT_NEAR(o[0].load_avg, 0.254, 1e-9);
  EXPECT_DOUBLE_EQ(o[0].condor_load, 0.0);
  EXPECT_NEAR(o[1].load_avg, 0.996, 1e-9);
  EXPECT_DOUBLE_EQ(o[1].condor_load, 0.996);
  EXPECT_DOUBLE_EQ(o[1].owner_load, 0.0);
}

TEST(LoadSplit, OwnerLoadInStepsOfOneThenOverOne) {
  // Owner slots first, at most 1.0 each; then the others; what is left goes to everyone.
  std::vector<SlotLoadOut> o = load_split(1.5, {{0, false}, {0, true}, {0, false}});
  EXPECT_DOUBLE_EQ(o[1].load_avg, 1.0);
  EXPECT_DOUBLE_EQ(o[0].load_avg, 0.5);
  EXPECT_DOUBLE_EQ(o[2].load_avg, 0.0);  // ran out of load before slots
  o = load_split(5.0, {{0, false}, {0, false}});
  EXPECT_DOUBLE_EQ(o[0].load_avg, 2.5);  // ran out of slots: above 1.0
  EXPECT_DOUBLE_EQ(o[1].load_avg, 2.5);
  o = load_split(0.5, {{1.0, false}});  // condor load above the system's: no owner load
  EXPECT_DOUBLE_EQ(o[0].load_avg, 1.0);
  EXPECT_DOUBLE_EQ(o[0].owner_load, 0.0);
}

void set_atime(const std::string& path, time_t t) {
  struct timespec ts[2] = {{t, 0}, {0, UTIME_OMIT}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), ts, 0), 0) << path;
}

TEST(Idle, ConsoleAndKeyboardFromDeviceAccessTimes) {
  ScratchRoot r("raspberrypi-4");  // has /dev/console, /dev/tty1, /dev/input/event0
  time_t now = 1795306467;
  set_atime(r.dir() + "/dev/input/event0", now - 100);
  set_atime(r.dir() + "/dev/console", now - 300);
  set_atime(r.dir() + "/dev/tty1", now - 50);
  IdleInfo i;
  ASSERT_TRUE(idle_read(r.root(), {"mouse", "console"}, now, &i).ok);
  EXPECT_EQ(i.console_idle, 100);  // input device touched 100 s ago
  EXPECT_EQ(i.keyboard_idle, 50);  // a terminal 50 s ago
}

TEST(Idle, NoDevicesMeansIdleSinceBoot) {
  ScratchRoot r;
  r.put("/proc/uptime", "86412.33 344201.07\n");
  IdleInfo i;
  ASSERT_TRUE(idle_read(r.root(), {"mouse", "console"}, 1795306467, &i).ok);
  EXPECT_EQ(i.console_idle, 86412);
  EXPECT_EQ(i.keyboard_idle, 86412);
}

TEST(Clock, MatchesTheObservedAd) {
  // The observed slot ad: LastHeardFrom = 1795306467, ClockMin = 14, ClockDay = 0 (UTC).
  setenv("TZ", "UTC", 1);
  tzset();
  int min = -1, day = -1;
  clock_fields(1795306467, &min, &day);
  EXPECT_EQ(min, 14);
  EXPECT_EQ(day, 0);
}

TEST(Disk, ExecuteDirOrItsNearestParent) {
  ScratchRoot r;
  DiskInfo d;
  ASSERT_TRUE(disk_read(r.root(), "/var/lib/condor/execute", &d).ok);
  EXPECT_GT(d.total_kib, 0);
  EXPECT_GE(d.total_kib, d.free_kib);
  ASSERT_TRUE(disk_read(Root("/"), "/tmp", &d).ok);
  EXPECT_GT(d.total_kib, 0);
}

}  // namespace
}  // namespace kite::hal
