// GPUs from files: NVIDIA's /proc/driver/nvidia tree (no NVML), AMD and Intel cards in
// /sys/class/drm, and Jetson (tegra) integrated GPUs from the device tree and devfreq.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "hal/gpu.h"

namespace kite::hal {
namespace {

std::string upper_hex_bus(std::string bus) {
  for (char& c : bus) {
    if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 32);
  }
  return bus;
}

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 ..." -> "535.129.03".
std::string nvidia_module_version(const Root& root) {
  std::string line = root.read_line("/proc/driver/nvidia/version");
  size_t k = line.find("Kernel Module");
  if (k == std::string::npos) k = line.find("Open Kernel Module");
  if (k == std::string::npos) return {};
  std::string rest = line.substr(k + 13);
  std::vector<std::string_view> t = split(rest, " \t");
  return t.empty() ? std::string() : std::string(t[0]);
}

}  // namespace

void gpu_discover_proc_nvidia(const Root& root, std::vector<GpuDevice>* out) {
  std::string driver = nvidia_module_version(root);
  std::vector<GpuDevice> found;
  for (const std::string& bus : root.list("/proc/driver/nvidia/gpus")) {
    std::string info;
    if (!root.read("/proc/driver/nvidia/gpus/" + bus + "/information", &info).ok) continue;
    GpuDevice g;
    g.vendor = "nvidia";
    g.source = "proc";
    find_key(info, "Model", &g.name);
    std::string uuid, minor, loc;
    if (find_key(info, "GPU UUID", &uuid)) {
      g.uuid = uuid.rfind("GPU-", 0) == 0 ? uuid.substr(4) : uuid;
    }
    if (find_key(info, "Device Minor", &minor)) g.index = g.minor = std::atoi(minor.c_str());
    g.pci_bus_id = upper_hex_bus(find_key(info, "Bus Location", &loc) ? loc : bus);
    gpu_model_lookup(g.name, &g.capability, &g.global_memory_mb);
    g.nvidia_driver = driver;
    found.push_back(std::move(g));
  }
  // NVML and CUDA (CUDA_DEVICE_ORDER=PCI_BUS_ID) number devices in PCI bus order.
  std::sort(found.begin(), found.end(),
            [](const GpuDevice& a, const GpuDevice& b) { return a.pci_bus_id < b.pci_bus_id; });
  for (size_t i = 0; i < found.size(); ++i) {
    found[i].index = static_cast<int>(i);
    found[i].id =
        found[i].uuid.empty() ? "CUDA" + std::to_string(i) : gpu_id_from_uuid(found[i].uuid);
    out->push_back(std::move(found[i]));
  }
}

void gpu_discover_drm(const Root& root, std::vector<GpuDevice>* out) {
  int amd = 0, intel = 0;
  for (const std::string& card : root.list("/sys/class/drm")) {
    // card0, card1 ... (not connectors like card0-HDMI-A-1, not renderD128).
    if (card.rfind("card", 0) != 0 || card.find('-') != std::string::npos) continue;
    std::string dev = "/sys/class/drm/" + card + "/device";
    std::string vendor = root.read_line(dev + "/vendor");
    std::string device = root.read_line(dev + "/device");
    GpuDevice g;
    g.source = "drm";
    if (vendor == "0x1002") {
      g.vendor = "amd";
      g.name = root.read_line(dev + "/product_name");
      if (g.name.empty()) g.name = "AMD GPU " + device;
      int64_t vram = 0;
      if (root.read_int(dev + "/mem_info_vram_total", &vram)) g.global_memory_mb = vram >> 20;
      int64_t busy;
      if (root.read_int(dev + "/gpu_busy_percent", &busy))
        g.utilization_pct = static_cast<int>(busy);
      int64_t used;
      if (root.read_int(dev + "/mem_info_vram_used", &used)) g.memory_used_mb = used >> 20;
      std::string uid = root.read_line(dev + "/unique_id");
      if (!uid.empty()) {
        g.uuid = uid;
        g.id = gpu_id_from_uuid(uid);
      } else {
        g.id = "AMD" + std::to_string(amd);
      }
      g.index = amd++;
    } else if (vendor == "0x8086") {
      g.vendor = "intel";
      g.name = root.read_line(dev + "/product_name");
      if (g.name.empty()) g.name = "Intel GPU " + device;
      int64_t lmem = 0;
      if (root.read_int(dev + "/tile0/gt0/addr_range", &lmem) ||
          root.read_int(dev + "/lmem_total_bytes", &lmem)) {
        g.global_memory_mb = lmem >> 20;
      }
      g.id = "INTEL" + std::to_string(intel);
      g.index = intel++;
    } else {
      continue;  // NVIDIA cards come from NVML or /proc/driver/nvidia
    }
    // The PCI address is the device link's target name ("../../../0000:03:00.0").
    std::string uevent;
    std::string slot;
    if (root.read(dev + "/uevent", &uevent).ok && find_key(uevent, "PCI_SLOT_NAME", &slot)) {
      g.pci_bus_id = upper_hex_bus(slot);
    }
    out->push_back(std::move(g));
  }
}

void gpu_discover_tegra(const Root& root, std::vector<GpuDevice>* out) {
  std::string compat;
  if (!root.read("/proc/device-tree/compatible", &compat).ok) return;
  struct Chip {
    const char* compatible;
    const char* name;  // as CUDA's deviceQuery names the integrated GPU
    double capability;
  };
  static const Chip kChips[] = {{"nvidia,tegra234", "Orin", 8.7},
                                {"nvidia,tegra194", "Xavier", 7.2},
                                {"nvidia,tegra186", "NVIDIA Tegra X2", 6.2},
                                {"nvidia,tegra210", "NVIDIA Tegra X1", 5.3}};
  const Chip* chip = nullptr;
  for (std::string_view c : split(compat, std::string_view("\0", 1))) {
    for (const Chip& k : kChips) {
      if (c == k.compatible) chip = &k;
    }
  }
  if (!chip) return;
  // The GPU's devfreq node: 17000000.ga10b / 17000000.gpu (Orin), 17000000.gv11b (Xavier),
  // 17000000.gp10b (TX2), 57000000.gpu (TX1).
  std::string df;
  for (const std::string& n : root.list("/sys/class/devfreq")) {
    if (n.find("gpu") != std::string::npos || n.find(".ga10b") != std::string::npos ||
        n.find(".gv11b") != std::string::npos || n.find(".gp10b") != std::string::npos) {
      df = "/sys/class/devfreq/" + n;
      break;
    }
  }
  if (df.empty()) return;
  GpuDevice g;
  g.vendor = "nvidia";
  g.source = "tegra";
  g.name = chip->name;
  g.capability = chip->capability;
  g.integrated = true;
  g.index = 0;
  g.id = "CUDA0";  // no UUID in sysfs; HTCondor's index form
  g.ecc = 0;
  int64_t hz = 0;
  if (root.read_int(df + "/max_freq", &hz)) g.clock_mhz = static_cast<int>(hz / 1000000);
  // Integrated: the GPU's global memory is the system memory.
  std::string mi;
  int64_t kib = 0;
  if (root.read("/proc/meminfo", &mi).ok && find_key_int(mi, "MemTotal", &kib))
    g.global_memory_mb = kib >> 10;
  // devfreq's device/load (per mille of busy time) is the tegra GPU's utilization.
  int64_t load = 0;
  if (root.read_int(df + "/device/load", &load)) g.utilization_pct = static_cast<int>(load / 10);
  // "# R36 (release), REVISION: 3.0, ..." -> "R36.3.0" (the L4T release carries the driver).
  std::string rel = root.read_line("/etc/nv_tegra_release");
  int major = 0;
  double rev = 0;
  if (std::sscanf(rel.c_str(), "# R%d (release), REVISION: %lf", &major, &rev) == 2) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "R%d.%.1f", major, rev);
    g.nvidia_driver = buf;
  }
  out->push_back(std::move(g));
}

}  // namespace kite::hal
