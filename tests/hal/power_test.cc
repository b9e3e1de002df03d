// Power tests on fake roots only (never the real machine): method detection in the reference's
// order, LINUX_HIBERNATION_METHOD, the states each board offers, entering a state (the write
// or tool run it causes), Wake-on-LAN and MAC addresses.
#include "hal/power.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "hal_test_util.h"

namespace kite::hal {
namespace {

using testing::fixtures;
using testing::ScratchRoot;

std::vector<SleepState> S(std::initializer_list<int> l) {
  std::vector<SleepState> v;
  for (int i : l) v.push_back(static_cast<SleepState>(i));
  return v;
}

TEST(Power, BoardsViaSys) {
  PowerInfo p = power_detect(Root(fixtures("server-4gpu")), "");
  EXPECT_EQ(p.method, PowerMethod::kSys);
  EXPECT_EQ(p.states, S({1, 3, 4, 5}));  // freeze, mem+deep, disk, disk "shutdown"
  EXPECT_EQ(p.supported_string(), "S1,S3,S4,S5");
  p = power_detect(Root(fixtures("jetson-orin")), "");
  EXPECT_EQ(p.states, S({1, 3}));
  p = power_detect(Root(fixtures("raspberrypi-4")), "");
  EXPECT_EQ(p.states, S({1}));  // suspend-to-idle only
  p = power_detect(Root(fixtures("generic-x86_64")), "");
  EXPECT_EQ(p.method, PowerMethod::kSys);  // this VM: /sys/power/state lists nothing
  EXPECT_TRUE(p.states.empty());
  EXPECT_FALSE(p.can_hibernate());
}

TEST(Power, MemWithoutDeepIsStandby) {
  ScratchRoot r;
  r.put("/sys/power/state", "freeze mem\n");
  r.put("/sys/power/mem_sleep", "[s2idle] shallow\n");
  EXPECT_EQ(power_detect(r.root(), "").states, S({1}));
}

TEST(Power, ProcAcpiSleep) {
  ScratchRoot r;
  r.put("/proc/acpi/sleep", "S0 S3 S4 S5\n");
  PowerInfo p = power_detect(r.root(), "");
  EXPECT_EQ(p.method, PowerMethod::kProc);
  EXPECT_EQ(p.states, S({3, 4, 5}));
  ASSERT_TRUE(power_enter(r.root(), p, SleepState::kS3).ok);
  EXPECT_EQ(r.root().read_line("/proc/acpi/sleep"), "3");
}

void put_tool(const ScratchRoot& r, const std::string& abs, const std::string& body) {
  r.put(abs, "#!/bin/sh\n" + body + "\n");
  ASSERT_EQ(chmod((r.dir() + abs).c_str(), 0755), 0);
}

TEST(Power, PmUtilsComesFirstAndRunsItsTools) {
  ScratchRoot r;
  r.put("/sys/power/state", "freeze mem disk\n");
  std::string log = r.dir() + "/pm.log";
  put_tool(r, "/usr/sbin/pm-is-supported", "[ \"$1\" = --suspend ] && exit 0; exit 1");
  put_tool(r, "/usr/sbin/pm-suspend", "echo suspend >> '" + log + "'");
  put_tool(r, "/usr/sbin/pm-hibernate", "echo hibernate >> '" + log + "'");
  PowerInfo p = power_detect(r.root(), "");
  EXPECT_EQ(p.method, PowerMethod::kPmUtils);
  EXPECT_EQ(p.states, S({3}));  // pm-is-supported says no to --hibernate
  ASSERT_TRUE(power_enter(r.root(), p, SleepState::kS3).ok);
  EXPECT_EQ(r.root().read_line("/pm.log"), "suspend");
  Status st = power_enter(r.root(), p, SleepState::kS4);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("S4"), std::string::npos);
}

TEST(Power, ForcedMethod) {
  ScratchRoot r("server-4gpu");
  put_tool(r, "/usr/sbin/pm-is-supported", "exit 0");
  EXPECT_EQ(power_detect(r.root(), "").method, PowerMethod::kPmUtils);
  PowerInfo p = power_detect(r.root(), "/sys");
  EXPECT_EQ(p.method, PowerMethod::kSys);
  // Forced but absent, or unknown: hibernation disabled, with the reason.
  p = power_detect(r.root(), "/proc");
  EXPECT_EQ(p.method, PowerMethod::kNone);
  EXPECT_FALSE(p.can_hibernate());
  EXPECT_NE(p.error.find("/proc"), std::string::npos);
  p = power_detect(r.root(), "acpi-magic");
  EXPECT_FALSE(p.can_hibernate());
  EXPECT_NE(p.error.find("acpi-magic"), std::string::npos);
}

TEST(Power, EnterWritesTheKernelFiles) {
  ScratchRoot r("server-4gpu");
  PowerInfo p = power_detect(r.root(), "/sys");
  ASSERT_TRUE(power_enter(r.root(), p, SleepState::kS3).ok);
  EXPECT_EQ(r.root().read_line("/sys/power/state"), "mem");
  ASSERT_TRUE(power_enter(r.root(), p, SleepState::kS4).ok);
  EXPECT_EQ(r.root().read_line("/sys/power/state"), "disk");
  ASSERT_TRUE(power_enter(r.root(), p, SleepState::kS5).ok);
  EXPECT_EQ(r.root().read_line("/sys/power/disk"), "shutdown");
  EXPECT_EQ(r.root().read_line("/sys/power/state"), "disk");
  EXPECT_FALSE(power_enter(r.root(), p, SleepState::kS2).ok);
}

TEST(Power, StateNames) {
  SleepState s;
  ASSERT_TRUE(sleep_state_parse("RAM", &s));
  EXPECT_EQ(s, SleepState::kS3);
  ASSERT_TRUE(sleep_state_parse("disk", &s));
  EXPECT_EQ(s, SleepState::kS4);
  ASSERT_TRUE(sleep_state_parse("SHUTDOWN", &s));
  EXPECT_EQ(s, SleepState::kS5);
  ASSERT_TRUE(sleep_state_parse("NONE", &s));
  EXPECT_EQ(s, SleepState::kNone);
  EXPECT_FALSE(sleep_state_parse("nap", &s));
  EXPECT_STREQ(sleep_state_name(SleepState::kS4), "S4");
}

TEST(WakeOnLan, InterfacesAndMacs) {
  std::vector<NetInterface> n = net_interfaces(Root(fixtures("server-4gpu")));
  ASSERT_EQ(n.size(), 2u);  // lo has no device
  EXPECT_EQ(n[0].name, "eno1");
  EXPECT_EQ(n[0].mac, "3c:ec:ef:5a:20:14");
  EXPECT_TRUE(n[0].wol_supported);
  EXPECT_TRUE(n[0].wol_enabled);
  EXPECT_TRUE(n[1].wol_supported);
  EXPECT_FALSE(n[1].wol_enabled);
  n = net_interfaces(Root(fixtures("generic-x86_64")));
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].mac, "02:fc:00:00:00:01");
  EXPECT_FALSE(n[0].wol_supported);  // virtio-net: no wakeup capability
  n = net_interfaces(Root(fixtures("jetson-orin")));
  ASSERT_EQ(n.size(), 1u);  // l4tbr0 is a bridge
  EXPECT_EQ(n[0].mac, "48:b0:2d:9a:1c:5e");
}

}  // namespace
}  // namespace kite::hal
