// NVIDIA GPUs through NVML, loaded with dlopen at run time: no build-time dependency, and a
// node without the driver's library simply has no NVML GPUs.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include "hal/gpu.h"
#include "hal/nvml_api.h"

namespace kite::hal {
namespace {

// NVML's clock type for the graphics clock (nvmlClockType_t NVML_CLOCK_GRAPHICS).
constexpr int kClockGraphics = 0;

struct Nvml {
  decltype(&nvmlInit_v2) init;
  decltype(&nvmlShutdown) shutdown;
  decltype(&nvmlSystemGetDriverVersion) driver_version;
  decltype(&nvmlSystemGetCudaDriverVersion) cuda_version;
  decltype(&nvmlDeviceGetCount_v2) count;
  decltype(&nvmlDeviceGetHandleByIndex_v2) handle;
  decltype(&nvmlDeviceGetName) name;
  decltype(&nvmlDeviceGetUUID) uuid;
  decltype(&nvmlDeviceGetCudaComputeCapability) capability;
  decltype(&nvmlDeviceGetMemoryInfo) memory;
  decltype(&nvmlDeviceGetEccMode) ecc;
  decltype(&nvmlDeviceGetUtilizationRates) utilization;
  decltype(&nvmlDeviceGetPciInfo_v3) pci;
  decltype(&nvmlDeviceGetMaxClockInfo) clock;
};

template <typename F>
bool bind(void* lib, const char* sym, F* out, bool required, std::string* missing) {
  *out = reinterpret_cast<F>(dlsym(lib, sym));
  if (!*out && required) *missing = sym;
  return *out || !required;
}

}  // namespace

Status gpu_discover_nvml(const std::string& library, std::vector<GpuDevice>* out) {
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    return Status::Error("nvml: cannot load " + library + " (" + (e ? e : "?") + ")");
  }
  Nvml n{};
  std::string missing;
  bool ok = bind(lib, "nvmlInit_v2", &n.init, true, &missing) &&
            bind(lib, "nvmlShutdown", &n.shutdown, true, &missing) &&
            bind(lib, "nvmlDeviceGetCount_v2", &n.count, true, &missing) &&
            bind(lib, "nvmlDeviceGetHandleByIndex_v2", &n.handle, true, &missing) &&
            bind(lib, "nvmlDeviceGetName", &n.name, true, &missing) &&
            bind(lib, "nvmlDeviceGetUUID", &n.uuid, true, &missing);
  // Optional entry points: a missing one leaves that property unknown.
  bind(lib, "nvmlSystemGetDriverVersion", &n.driver_version, false, &missing);
  bind(lib, "nvmlSystemGetCudaDriverVersion", &n.cuda_version, false, &missing);
  bind(lib, "nvmlDeviceGetCudaComputeCapability", &n.capability, false, &missing);
  bind(lib, "nvmlDeviceGetMemoryInfo", &n.memory, false, &missing);
  bind(lib, "nvmlDeviceGetEccMode", &n.ecc, false, &missing);
  bind(lib, "nvmlDeviceGetUtilizationRates", &n.utilization, false, &missing);
  bind(lib, "nvmlDeviceGetPciInfo_v3", &n.pci, false, &missing);
  bind(lib, "nvmlDeviceGetMaxClockInfo", &n.clock, false, &missing);
  if (!ok) {
    dlclose(lib);
    return Status::Error("nvml: " + library + " lacks " + missing);
  }
  if (int rc = n.init(); rc != 0) {
    dlclose(lib);
    return Status::Error("nvml: nvmlInit_v2 failed with " + std::to_string(rc));
  }
  char driver[96] = {};
  int cuda = -1;
  if (n.driver_version) n.driver_version(driver, sizeof driver - 1);
  if (n.cuda_version && n.cuda_version(&cuda) != 0) cuda = -1;
  unsigned count = 0;
  Status st;
  if (int rc = n.count(&count); rc != 0) {
    st = Status::Error("nvml: nvmlDeviceGetCount_v2 failed with " + std::to_string(rc));
    count = 0;
  }
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t h = nullptr;
    if (n.handle(i, &h) != 0) continue;
    GpuDevice g;
    g.vendor = "nvidia";
    g.source = "nvml";
    g.index = static_cast<int>(i);
    char buf[96] = {};
    if (n.name(h, buf, sizeof buf - 1) == 0) g.name = buf;
    std::memset(buf, 0, sizeof buf);
    if (n.uuid(h, buf, sizeof buf - 1) == 0) {
      g.uuid = buf;
      if (g.uuid.rfind("GPU-", 0) == 0) g.uuid = g.uuid.substr(4);
    }
    g.id = g.uuid.empty() ? "CUDA" + std::to_string(i) : gpu_id_from_uuid(g.uuid);
    int major = 0, minor = 0;
    if (n.capability && n.capability(h, &major, &minor) == 0) g.capability = major + minor / 10.0;
    nvmlMemory_t mem{};
    if (n.memory && n.memory(h, &mem) == 0) {
      g.global_memory_mb = static_cast<int64_t>(mem.total >> 20);
      g.memory_used_mb = static_cast<int64_t>(mem.used >> 20);
    }
    nvmlEnableState_t cur = 0, pend = 0;
    if (n.ecc && n.ecc(h, &cur, &pend) == 0) g.ecc = cur ? 1 : 0;
    nvmlUtilization_t util{};
    if (n.utilization && n.utilization(h, &util) == 0) g.utilization_pct = static_cast<int>(util.gpu);
    nvmlPciInfo_t pci{};
    if (n.pci && n.pci(h, &pci) == 0) {
      char bus[32];
      std::snprintf(bus, sizeof bus, "%04X:%02X:%02X.0", pci.domain & 0xffff, pci.bus & 0xff,
                    pci.device & 0xff);
      g.pci_bus_id = bus;
    }
    unsigned clock = 0;
    if (n.clock && n.clock(h, kClockGraphics, &clock) == 0) g.clock_mhz = static_cast<int>(clock);
    g.nvidia_driver = driver;
    g.cuda_driver_version = cuda;
    out->push_back(std::move(g));
  }
  n.shutdown();
  dlclose(lib);
  return st;
}

}  // namespace kite::hal
