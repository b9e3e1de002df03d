// GPU tests: NVML through a fake libnvidia-ml loaded with dlopen, the NVML-less
// /proc/driver/nvidia tree (server-4gpu), the Jetson tegra sysfs (jetson-orin), AMD/Intel in
// /sys/class/drm, the nested property ads and the visibility variables.
#include "hal/gpu.h"

#include <gtest/gtest.h>

#include "hal_test_util.h"
#include "policy/classad/classad.h"
#include "policy/classad/unparse.h"

namespace kite::hal {
namespace {

using testing::fixtures;
using testing::ScratchRoot;

TEST(GpuNvml, FakeLibraryLoadedWithDlopen) {
  std::vector<GpuDevice> g;
  Status st = gpu_discover_nvml(KITE_FAKE_NVML, &g);
  ASSERT_TRUE(st.ok) << st.message;
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].id, "GPU-8d4c2a1e");
  EXPECT_EQ(g[0].uuid, "8d4c2a1e-5b3f-4e1d-9a7c-6f0b2e8d3c41");
  EXPECT_EQ(g[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_DOUBLE_EQ(g[0].capability, 8.0);
  EXPECT_EQ(g[0].global_memory_mb, 81920);
  EXPECT_EQ(g[0].memory_used_mb, 4096);
  EXPECT_EQ(g[0].ecc, 1);
  EXPECT_EQ(g[0].utilization_pct, 37);
  EXPECT_EQ(g[0].pci_bus_id, "0000:07:00.0");
  EXPECT_EQ(g[0].clock_mhz, 1410);
  EXPECT_EQ(g[0].nvidia_driver, "535.129.03");
  EXPECT_EQ(g[0].cuda_driver_version, 12020);
  EXPECT_EQ(g[0].source, "nvml");
  EXPECT_EQ(g[1].id, "GPU-6a96bd13");
  EXPECT_DOUBLE_EQ(g[1].capability, 7.5);
  EXPECT_EQ(g[1].global_memory_mb, 15360);
  EXPECT_EQ(g[1].ecc, 0);
  EXPECT_EQ(g[1].index, 1);
}

TEST(GpuNvml, AbsentLibraryMeansNoNvidiaGpus) {
  std::vector<GpuDevice> g;
  Status st = gpu_discover_nvml("/nonexistent/libnvidia-ml.so.1", &g);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos);
  EXPECT_TRUE(g.empty());
  // Through the dispatcher: a note, no devices, no failure.
  std::vector<std::string> notes;
  GpuOptions opt;
  opt.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  EXPECT_TRUE(gpu_discover(Root(fixtures("generic-x86_64")), opt, &notes).empty());
  EXPECT_FALSE(notes.empty());
}

TEST(GpuNvml, NvmlWinsOverProcTree) {
  GpuOptions opt;
  opt.nvml_library = KITE_FAKE_NVML;
  std::vector<GpuDevice> g = gpu_discover(Root(fixtures("server-4gpu")), opt, nullptr);
  ASSERT_EQ(g.size(), 2u);  // NVML's view; the /proc tree is only a fallback
  EXPECT_EQ(g[0].source, "nvml");
}

TEST(GpuProc, Server4GpuRecordedTree) {
  std::vector<GpuDevice> g = gpu_discover(Root(fixtures("server-4gpu")), GpuOptions(), nullptr);
  ASSERT_EQ(g.size(), 4u);
  const char* ids[] = {"GPU-c4a646d7", "GPU-2fd1e5b4", "GPU-6a96bd13", "GPU-9b0e77c2"};
  const char* buses[] = {"0000:17:00.0", "0000:65:00.0", "0000:CA:00.0", "0000:E3:00.0"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(g[i].id, ids[i]);
    EXPECT_EQ(g[i].pci_bus_id, buses[i]);
    EXPECT_EQ(g[i].index, i);
    EXPECT_EQ(g[i].nvidia_driver, "535.129.03");
    EXPECT_EQ(g[i].source, "proc");
  }
  EXPECT_EQ(g[0].name, "NVIDIA A100-PCIE-40GB");
  EXPECT_DOUBLE_EQ(g[0].capability, 8.0);
  EXPECT_EQ(g[0].global_memory_mb, 40960);
  EXPECT_EQ(g[2].name, "Tesla T4");
  EXPECT_DOUBLE_EQ(g[2].capability, 7.5);
  EXPECT_EQ(g[2].global_memory_mb, 15360);
  EXPECT_EQ(g[2].uuid, "6a96bd13-70bc-6494-6d62-1b77a9a7f29f");
}

TEST(GpuDevices, UnassignedNvidiaGpusOfTheRecordedServerAreDenied) {
  std::vector<GpuDevice> g = gpu_discover(Root(fixtures("server-4gpu")), GpuOptions(), nullptr);
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g[3].minor, 3);  // "Device Minor" of the recorded information file
  EXPECT_EQ(gpu_nodes_to_deny(g, {"GPU-2fd1e5b4", "GPU-9b0e77c2"}),
            (std::vector<std::string>{"/dev/nvidia0", "/dev/nvidia2"}));
  EXPECT_EQ(gpu_nodes_to_deny(g, {}).size(), 4u);
  EXPECT_TRUE(gpu_nodes_to_deny(g, {"GPU-c4a646d7", "GPU-2fd1e5b4", "GPU-6a96bd13", "GPU-9b0e77c2"})
                  .empty());
}

TEST(GpuDevices, OnlyNvidiaDiscreteGpusHaveNodesToDeny) {
  GpuDevice amd, jetson, nv;
  amd.vendor = "amd";
  amd.id = "AMD0";
  amd.index = 0;
  jetson.vendor = "nvidia";
  jetson.integrated = true;
  jetson.id = "CUDA0";
  jetson.index = 0;
  nv.vendor = "nvidia";
  nv.id = "CUDA1";
  nv.index = 1;  // found by NVML only: no minor, the ordinal stands in
  EXPECT_EQ(gpu_nodes_to_deny({amd, jetson, nv}, {}), (std::vector<std::string>{"/dev/nvidia1"}));
}

TEST(GpuTegra, JetsonOrinIntegratedGpu) {
  std::vector<GpuDevice> g = gpu_discover(Root(fixtures("jetson-orin")), GpuOptions(), nullptr);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].id, "CUDA0");
  EXPECT_EQ(g[0].name, "Orin");
  EXPECT_DOUBLE_EQ(g[0].capability, 8.7);
  EXPECT_TRUE(g[0].integrated);
  EXPECT_EQ(g[0].clock_mhz, 1300);                    // max_freq 1300500000 Hz
  EXPECT_EQ(g[0].global_memory_mb, 64335836 / 1024);  // shares MemTotal
  EXPECT_EQ(g[0].utilization_pct, 12);                // load 127 per mille
  EXPECT_EQ(g[0].nvidia_driver, "R36.3.0");
}

TEST(GpuNone, RaspberryPiAndGenericHaveNone) {
  EXPECT_TRUE(gpu_discover(Root(fixtures("raspberrypi-4")), GpuOptions(), nullptr).empty());
  EXPECT_TRUE(gpu_discover(Root(fixtures("generic-x86_64")), GpuOptions(), nullptr).empty());
}

TEST(GpuDrm, AmdAndIntelCards) {
  ScratchRoot r;
  // amdgpu (MI210) and i915 (Arc A770) as their sysfs devices present them.
  r.put("/sys/class/drm/card0/device/vendor", "0x1002\n");
  r.put("/sys/class/drm/card0/device/device", "0x740f\n");
  r.put("/sys/class/drm/card0/device/product_name", "Instinct MI210\n");
  r.put("/sys/class/drm/card0/device/mem_info_vram_total", "68702699520\n");
  r.put("/sys/class/drm/card0/device/mem_info_vram_used", "11341824\n");
  r.put("/sys/class/drm/card0/device/gpu_busy_percent", "3\n");
  r.put("/sys/class/drm/card0/device/unique_id", "a1b2c3d4e5f60718\n");
  r.put("/sys/class/drm/card0/device/uevent", "DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c1:00.0\n");
  r.put("/sys/class/drm/card0-DP-1/status", "disconnected\n");
  r.put("/sys/class/drm/card1/device/vendor", "0x8086\n");
  r.put("/sys/class/drm/card1/device/device", "0x56a0\n");
  r.put("/sys/class/drm/card1/device/uevent", "DRIVER=i915\nPCI_SLOT_NAME=0000:03:00.0\n");
  r.put("/sys/class/drm/renderD128/dev", "226:128\n");
  std::vector<GpuDevice> g = gpu_discover(r.root(), GpuOptions(), nullptr);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].vendor, "amd");
  EXPECT_EQ(g[0].id, "GPU-a1b2c3d4");
  EXPECT_EQ(g[0].name, "Instinct MI210");
  EXPECT_EQ(g[0].global_memory_mb, 65520);
  EXPECT_EQ(g[0].memory_used_mb, 10);
  EXPECT_EQ(g[0].utilization_pct, 3);
  EXPECT_EQ(g[0].pci_bus_id, "0000:C1:00.0");
  EXPECT_EQ(g[1].vendor, "intel");
  EXPECT_EQ(g[1].id, "INTEL0");
  EXPECT_EQ(g[1].name, "Intel GPU 0x56a0");
}

TEST(GpuIds, FromUuid) {
  EXPECT_EQ(gpu_id_from_uuid("GPU-6a96bd13-70bc-6494-6d62-1b77a9a7f29f"), "GPU-6a96bd13");
  EXPECT_EQ(gpu_id_from_uuid("6A96BD13-70bc"), "GPU-6a96bd13");
  EXPECT_EQ(gpu_ad_attr("GPU-6a96bd13"), "GPUs_GPU_6a96bd13");
  double cap = 0;
  int64_t mem = -1;
  EXPECT_TRUE(gpu_model_lookup("NVIDIA A10", &cap, &mem));
  EXPECT_DOUBLE_EQ(cap, 8.6);  // A10, not A100
  EXPECT_TRUE(gpu_model_lookup("Tesla V100-SXM2-32GB", &cap, &mem));
  EXPECT_EQ(mem, 32768);
  EXPECT_FALSE(gpu_model_lookup("GeForce 256", &cap, &mem));
}

TEST(GpuAd, NestedPropertyAdsAndLists) {
  std::vector<GpuDevice> g = gpu_discover(Root(fixtures("server-4gpu")), GpuOptions(), nullptr);
  classad::AdPtr ad(classad::ClassAd::make());
  gpu_ad_insert(g, ad.get());
  std::string s;
  ASSERT_TRUE(ad->evaluate_string("DetectedGPUs", s));
  EXPECT_EQ(s, "GPU-c4a646d7, GPU-2fd1e5b4, GPU-6a96bd13, GPU-9b0e77c2");
  int64_t n = 0;
  ASSERT_TRUE(ad->evaluate_int("TotalGPUs", n));
  EXPECT_EQ(n, 4);
  std::string avail = classad::to_string(ad->lookup("AvailableGPUs"));
  EXPECT_EQ(avail, "{ GPUs_GPU_c4a646d7,GPUs_GPU_2fd1e5b4,GPUs_GPU_6a96bd13,GPUs_GPU_9b0e77c2 }");
  // The property ad answers the reference's slot constraint "Capability >= 8.0".
  classad::Value v = ad->evaluate_attr("GPUs_GPU_6a96bd13");
  ASSERT_TRUE(v.is_classad());
  classad::ClassAd* t4 = v.as_classad();
  double cap = 0;
  ASSERT_TRUE(t4->evaluate_real("Capability", cap));
  EXPECT_DOUBLE_EQ(cap, 7.5);
  ASSERT_TRUE(t4->evaluate_string("id", s));
  EXPECT_EQ(s, "GPU-6a96bd13");
  ASSERT_TRUE(t4->evaluate_string("DeviceName", s));
  EXPECT_EQ(s, "Tesla T4");
  ASSERT_TRUE(t4->evaluate_int("GlobalMemoryMb", n));
  EXPECT_EQ(n, 15360);
  classad::Value a100 = ad->evaluate_attr("GPUs_GPU_c4a646d7");
  ASSERT_TRUE(a100.is_classad());
  ASSERT_TRUE(a100.as_classad()->evaluate_real("Capability", cap));
  EXPECT_GE(cap, 8.0);
}

TEST(GpuAd, NvmlUsageAttributes) {
  std::vector<GpuDevice> g;
  ASSERT_TRUE(gpu_discover_nvml(KITE_FAKE_NVML, &g).ok);
  classad::AdPtr ad(classad::ClassAd::make());
  gpu_ad_insert(g, ad.get());
  double u = 0;
  ASSERT_TRUE(ad->evaluate_real("GPUsAverageUsage", u));
  EXPECT_DOUBLE_EQ(u, (0.37 + 0.0) / 2);
  int64_t mem = 0;
  ASSERT_TRUE(ad->evaluate_int("GPUsMemoryUsage", mem));
  EXPECT_EQ(mem, 4096);
  classad::Value v = ad->evaluate_attr("GPUs_GPU_8d4c2a1e");
  ASSERT_TRUE(v.is_classad());
  double dv = 0;
  ASSERT_TRUE(v.as_classad()->evaluate_real("DriverVersion", dv));
  EXPECT_DOUBLE_EQ(dv, 12.2);
  bool ecc = false;
  ASSERT_TRUE(v.as_classad()->evaluate_bool("ECCEnabled", ecc));
  EXPECT_TRUE(ecc);
}

TEST(GpuAd, NoGpus) {
  classad::AdPtr ad(classad::ClassAd::make());
  gpu_ad_insert({}, ad.get());
  int64_t n = -1;
  ASSERT_TRUE(ad->evaluate_int("DetectedGPUs", n));
  EXPECT_EQ(n, 0);
  EXPECT_EQ(ad->lookup("AvailableGPUs"), nullptr);
}

using Env = std::vector<std::pair<std::string, std::string>>;

TEST(GpuEnv, UuidIdsPassThrough) {
  Env e = gpu_visibility_env({"GPU-c4a646d7", "GPU-6a96bd13"});
  EXPECT_EQ(e, (Env{{"_CONDOR_AssignedGPUs", "GPU-c4a646d7,GPU-6a96bd13"},
                    {"CUDA_VISIBLE_DEVICES", "GPU-c4a646d7,GPU-6a96bd13"},
                    {"GPU_DEVICE_ORDINAL", "GPU-c4a646d7,GPU-6a96bd13"}}));
}

TEST(GpuEnv, IndexIdsStripPrefixes) {
  Env e = gpu_visibility_env({"CUDA0", "CUDA2"});
  EXPECT_EQ(e, (Env{{"_CONDOR_AssignedGPUs", "CUDA0,CUDA2"},
                    {"CUDA_VISIBLE_DEVICES", "0,2"},
                    {"GPU_DEVICE_ORDINAL", "0,2"}}));
  e = gpu_visibility_env({"OCL1"});
  EXPECT_EQ(e[1], (std::pair<std::string, std::string>{"CUDA_VISIBLE_DEVICES", "OCL1"}));
  EXPECT_EQ(e[2], (std::pair<std::string, std::string>{"GPU_DEVICE_ORDINAL", "1"}));
}

TEST(GpuEnv, UnassignedHidesEveryDevice) {
  Env e = gpu_visibility_env({});
  EXPECT_EQ(e, (Env{{"CUDA_VISIBLE_DEVICES", "10000"}, {"GPU_DEVICE_ORDINAL", "10000"}}));
}

}  // namespace
}  // namespace kite::hal
