// Integration test of `use FEATURE : GPUs` in the running agent: the GPUs monitor (HTCondor's
// $(LIBEXEC)/condor_gpu_utilization, here `kite gpu-utilization`) runs through startd cron on
// the four GPUs of the server-4gpu board (served by the fake NVML library), its SUM/PEAK
// metrics reach the slot ads, and a START expression on them flips.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <string>

#include "agent/core/files.h"
#include "agent_harness.h"

namespace kite::test {
namespace {

// The server-4gpu board's GPUs (UUIDs from its recorded /proc/driver/nvidia tree) as the fake
// NVML serves them: `UUID UTIL_PCT USED_MIB TOTAL_MIB NAME`. `t4_used`: GPU 2's memory in use.
std::string board_gpus(int t4_used) {
  return "GPU-c4a646d7-d6c6-4e07-a4b5-d1f85e1a7b2c 100 1000 40960 NVIDIA A100-PCIE-40GB\n"
         "GPU-2fd1e5b4-8c39-42a7-b0e4-61c3a9d7f820 0 0 40960 NVIDIA A100-PCIE-40GB\n"
         "GPU-6a96bd13-70bc-6494-6d62-1b77a9a7f29f 0 " +
         std::to_string(t4_used) +
         " 15360 Tesla T4\n"
         "GPU-9b0e77c2-4f1a-3d58-e6a0-0c52d8b4e913 0 0 15360 Tesla T4\n";
}

double number(const std::string& text) {
  return text.empty() ? -1 : std::atof(text.c_str());
}

TEST(AgentGpuMonitor, FeatureGpusMonitorReachesTheSlotAdsAndFlipsStart) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string table = a.dir() + "/nvml-gpus.txt", err;
  ASSERT_TRUE(core::write_file_atomic(table, board_gpus(0), 0644, &err)) << err;
  // The agent (its GPU discovery) and the monitor it starts read the same fake NVML.
  setenv("KITE_FAKE_NVML_FILE", table.c_str(), 1);
  bool started = a.start(
      "use FEATURE : GPUs\n"
      "NVML_LIBRARY = " KITE_FAKE_NVML
      "\n"
      // Reports every second instead of every 10 s, so the test is short.
      "STARTD_CRON_GPUs_MONITOR_ARGS = -interval 1 -sample-ms 200\n"
      "SLOT_TYPE_1 = cpus=1, gpus=2, memory=512\n"
      "NUM_SLOTS_TYPE_1 = 2\n"
      "START = DeviceGPUsMemoryPeakUsage =?= undefined || DeviceGPUsMemoryPeakUsage < 2000\n"
      "IS_OWNER = (START =?= False)\n",
      &err);
  unsetenv("KITE_FAKE_NVML_FILE");
  ASSERT_TRUE(started) << err;
  EXPECT_EQ(a.slot_attr("slot1", "AssignedGPUs"), "\"GPU-c4a646d7,GPU-2fd1e5b4\"") << a.log();
  EXPECT_EQ(a.slot_attr("slot2", "AssignedGPUs"), "\"GPU-6a96bd13,GPU-9b0e77c2\"");

  // slot1 holds the busy A100 (100%, 1000 MiB): its device usage appears; slot2 is idle.
  ASSERT_TRUE(
      eventually([&] { return number(a.slot_attr("slot1", "DeviceGPUsAverageUsage")) > 0; }, 15000))
      << a.log();
  EXPECT_EQ(number(a.slot_attr("slot1", "DeviceGPUsMemoryPeakUsage")), 1000);
  EXPECT_EQ(number(a.slot_attr("slot2", "DeviceGPUsMemoryPeakUsage")), 0);
  EXPECT_EQ(number(a.slot_attr("slot2", "DeviceGPUsAverageUsage")), 0);
  std::string no_job = a.slot_attr("slot1", "GPUsAverageUsage");  // no job: no per-job usage
  EXPECT_TRUE(no_job.empty() || no_job == "undefined") << no_job;
  EXPECT_EQ(a.slot_state("slot2"), "Unclaimed/Idle");

  // A job on slot1: its own GPU usage appears while it runs (about one busy GPU of two).
  pid_t run = a.run_bg({"--", "/bin/sleep", "41.5"}, a.dir() + "/run.out");
  ASSERT_TRUE(eventually([&] { return a.slot_state("slot1") == "Claimed/Busy"; }, 10000))
      << a.log();
  ASSERT_TRUE(
      eventually([&] { return number(a.slot_attr("slot1", "GPUsAverageUsage")) > 0.5; }, 10000))
      << a.slot_attr("slot1", "GPUsAverageUsage") << "\n"
      << a.log();
  EXPECT_LT(number(a.slot_attr("slot1", "GPUsAverageUsage")), 1.5);
  EXPECT_EQ(number(a.slot_attr("slot1", "GPUsMemoryUsage")), 1000);

  // A T4 of slot2 fills up: START turns false there (and only there) within a report or two.
  ASSERT_TRUE(core::write_file_atomic(table, board_gpus(3000), 0644, &err)) << err;
  EXPECT_TRUE(eventually([&] { return a.slot_state("slot2") == "Owner/Idle"; }, 5000))
      << a.slot_attr("slot2", "DeviceGPUsMemoryPeakUsage") << "\n"
      << a.log();
  EXPECT_EQ(number(a.slot_attr("slot2", "DeviceGPUsMemoryPeakUsage")), 3000);
  EXPECT_EQ(a.slot_state("slot1"), "Claimed/Busy");

  ASSERT_EQ(a.kite({"vacate", "--local", "-fast"}).status, 0);
  wait_bg(run, 20000);
  // The monitor is this binary, started through the cron path, not a separate program.
  EXPECT_NE(a.log().find("GPUs_MONITOR"), std::string::npos);
  EXPECT_EQ(a.stop(), 0) << a.log();
}

}  // namespace
}  // namespace kite::test
