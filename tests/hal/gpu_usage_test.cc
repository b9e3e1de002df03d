// The GPUs monitor's parts: the meter's arithmetic and report text, an NVML session sampled
// repeatedly (the fake NVML, also with a GPU table a test rewrites), and `kite
// gpu-utilization` printing condor_gpu_utilization's records.
#include "hal/gpu_usage.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "hal_test_util.h"

namespace kite::hal {
namespace {

GpuUsageSample sample(const char* id, int pct, int64_t bytes) {
  GpuUsageSample s;
  s.id = id;
  s.utilization_pct = pct;
  s.memory_used_bytes = bytes;
  return s;
}

TEST(GpuUsageMeter, BusySecondsAndPeakPerInterval) {
  GpuUsageMeter m;
  m.add({sample("GPU-a", 90, 0), sample("GPU-b", 0, 5 << 20)}, 0);  // starts the clock only
  m.add({sample("GPU-a", 50, 100 << 20), sample("GPU-b", 10, 3 << 20)}, 2.0);
  m.add({sample("GPU-a", 25, (200 << 20) + 1), sample("GPU-b", -1, -1)}, 4.0);
  // GPU-a: 2 s at 50% + 4 s at 25% = 2 s busy; peak 200 MiB + 1 byte -> 201 MiB (rounded up).
  // GPU-b: 2 s at 10% = 0.2 s; peak 5 MiB; the unknown sample adds nothing.
  EXPECT_EQ(m.report(),
            "SlotMergeConstraint = StringListMember( \"GPU-a\", AssignedGPUs )\n"
            "UptimeGPUsSeconds = 2.000000\n"
            "UptimeGPUsMemoryPeakUsage = 201\n"
            "- GPUsSlot0\n"
            "SlotMergeConstraint = StringListMember( \"GPU-b\", AssignedGPUs )\n"
            "UptimeGPUsSeconds = 0.200000\n"
            "UptimeGPUsMemoryPeakUsage = 5\n"
            "- GPUsSlot1\n");
  // The next interval starts from zero; names stay in their order.
  m.add({sample("GPU-b", 100, 1 << 20), sample("GPU-a", 0, 0)}, 1.0);
  std::string r = m.report();
  EXPECT_NE(r.find("\"GPU-a\", AssignedGPUs )\nUptimeGPUsSeconds = 0.000000\n"
                   "UptimeGPUsMemoryPeakUsage = 0\n- GPUsSlot0\n"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("\"GPU-b\", AssignedGPUs )\nUptimeGPUsSeconds = 1.000000\n"
                   "UptimeGPUsMemoryPeakUsage = 1\n- GPUsSlot1\n"),
            std::string::npos)
      << r;
}

TEST(NvmlSession, SamplesTheFakeLibrary) {
  unsetenv("KITE_FAKE_NVML_FILE");
  NvmlSession s;
  ASSERT_TRUE(s.open(KITE_FAKE_NVML).ok);
  std::vector<GpuUsageSample> v;
  ASSERT_TRUE(s.sample(&v).ok);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].id, "GPU-8d4c2a1e");  // the ids discovery gives, so AssignedGPUs matches
  EXPECT_EQ(v[0].utilization_pct, 37);
  EXPECT_EQ(v[0].memory_used_bytes, 4294967296LL);
  EXPECT_EQ(v[1].id, "GPU-6a96bd13");
  EXPECT_EQ(v[1].utilization_pct, 0);
}

TEST(NvmlSession, MissingLibraryIsAnErrorNamingIt) {
  NvmlSession s;
  Status st = s.open("/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
  std::vector<GpuUsageSample> v;
  EXPECT_FALSE(s.sample(&v).ok);
}

std::string write_table(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(NvmlSession, FollowsAGpuTableThatChanges) {
  std::string path = write_table("nvml-table.txt",
                                 "GPU-c4a646d7-d6c6-4e07-a4b5-d1f85e1a7b2c 10 512 40960 NVIDIA "
                                 "A100-PCIE-40GB\n");
  setenv("KITE_FAKE_NVML_FILE", path.c_str(), 1);
  NvmlSession s;
  ASSERT_TRUE(s.open(KITE_FAKE_NVML).ok);
  std::vector<GpuUsageSample> v;
  ASSERT_TRUE(s.sample(&v).ok);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].id, "GPU-c4a646d7");
  EXPECT_EQ(v[0].utilization_pct, 10);
  write_table("nvml-table.txt",
              "GPU-c4a646d7-d6c6-4e07-a4b5-d1f85e1a7b2c 80 2048 40960 NVIDIA A100-PCIE-40GB\n");
  ASSERT_TRUE(s.sample(&v).ok);
  EXPECT_EQ(v[0].utilization_pct, 80);
  EXPECT_EQ(v[0].memory_used_bytes, 2048LL << 20);
  unsetenv("KITE_FAKE_NVML_FILE");
}

std::string run(const std::string& args, int* status) {
  return testing::run_kite("gpu-utilization " + args + " 2>&1", status);
}

TEST(KiteGpuUtilization, PrintsOneRecordPerGpuEachInterval) {
  // The four GPUs of the server-4gpu board (their UUIDs from its /proc tree), NVML-style.
  std::string path =
      write_table("server-4gpu-nvml.txt",
                  "GPU-c4a646d7-d6c6-4e07-a4b5-d1f85e1a7b2c 100 1000 40960 NVIDIA A100-PCIE-40GB\n"
                  "GPU-2fd1e5b4-8c39-42a7-b0e4-61c3a9d7f820 0 0 40960 NVIDIA A100-PCIE-40GB\n"
                  "GPU-6a96bd13-70bc-6494-6d62-1b77a9a7f29f 50 300 15360 Tesla T4\n"
                  "GPU-9b0e77c2-4f1a-3d58-e6a0-0c52d8b4e913 0 0 15360 Tesla T4\n");
  int status = -1;
  setenv("KITE_FAKE_NVML_FILE", path.c_str(), 1);
  std::string out =
      run("-nvml " + std::string(KITE_FAKE_NVML) + " -interval 1 -sample-ms 250 -count 2", &status);
  unsetenv("KITE_FAKE_NVML_FILE");
  EXPECT_EQ(status, 0) << out;
  const char* ids[] = {"GPU-c4a646d7", "GPU-2fd1e5b4", "GPU-6a96bd13", "GPU-9b0e77c2"};
  for (int i = 0; i < 4; ++i) {
    std::string head = std::string("SlotMergeConstraint = StringListMember( \"") + ids[i] +
                       "\", AssignedGPUs )\nUptimeGPUsSeconds = ";
    size_t at = out.find(head);
    ASSERT_NE(at, std::string::npos) << out;
    EXPECT_NE(out.find(head, at + 1), std::string::npos) << "two reports expected\n" << out;
    EXPECT_NE(out.find("- GPUsSlot" + std::to_string(i) + "\n"), std::string::npos) << out;
  }
  // GPU 0 ran at 100% for about the interval (1 s); GPU 1 idle; T4 peak 300 MiB.
  double busy0 = std::strtod(out.c_str() + out.find("UptimeGPUsSeconds = ") + 20, nullptr);
  EXPECT_GT(busy0, 0.7);
  EXPECT_LT(busy0, 1.6);
  EXPECT_NE(out.find("\"GPU-2fd1e5b4\", AssignedGPUs )\nUptimeGPUsSeconds = 0.000000\n"
                     "UptimeGPUsMemoryPeakUsage = 0\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("UptimeGPUsMemoryPeakUsage = 300\n- GPUsSlot2\n"), std::string::npos) << out;
}

TEST(KiteGpuUtilization, NoNvmlIsAnErrorAndBadOptionsAreUsage) {
  int status = -1;
  std::string out = run("-nvml /nonexistent/libnvidia-ml.so.1 -count 1", &status);
  EXPECT_EQ(WEXITSTATUS(status), 1) << out;
  EXPECT_NE(out.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << out;
  out = run("-interval 0", &status);
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_NE(out.find("-interval"), std::string::npos) << out;
}

}  // namespace
}  // namespace kite::hal
