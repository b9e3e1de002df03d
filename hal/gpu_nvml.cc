// NVIDIA GPUs through NVML, loaded with dlopen at run time: no build-time dependency, and a
// node without the driver's library simply has no NVML GPUs.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include "hal/gpu.h"
#include "hal/gpu_usage.h"
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

// dlopens `library`, binds the entry points and initialises NVML. On failure nothing stays
// open and the error names the library and what failed.
Status nvml_load(const std::string& library, void** lib_out, Nvml* n) {
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    return Status::Error("nvml: cannot load " + library + " (" + (e ? e : "?") + ")");
  }
  *n = Nvml{};
  std::string missing;
  bool ok = bind(lib, "nvmlInit_v2", &n->init, true, &missing) &&
            bind(lib, "nvmlShutdown", &n->shutdown, true, &missing) &&
            bind(lib, "nvmlDeviceGetCount_v2", &n->count, true, &missing) &&
            bind(lib, "nvmlDeviceGetHandleByIndex_v2", &n->handle, true, &missing) &&
            bind(lib, "nvmlDeviceGetName", &n->name, true, &missing) &&
            bind(lib, "nvmlDeviceGetUUID", &n->uuid, true, &missing);
  // Optional entry points: a missing one leaves that property unknown.
  bind(lib, "nvmlSystemGetDriverVersion", &n->driver_version, false, &missing);
  bind(lib, "nvmlSystemGetCudaDriverVersion", &n->cuda_version, false, &missing);
  bind(lib, "nvmlDeviceGetCudaComputeCapability", &n->capability, false, &missing);
  bind(lib, "nvmlDeviceGetMemoryInfo", &n->memory, false, &missing);
  bind(lib, "nvmlDeviceGetEccMode", &n->ecc, false, &missing);
  bind(lib, "nvmlDeviceGetUtilizationRates", &n->utilization, false, &missing);
  bind(lib, "nvmlDeviceGetPciInfo_v3", &n->pci, false, &missing);
  bind(lib, "nvmlDeviceGetMaxClockInfo", &n->clock, false, &missing);
  if (!ok) {
    dlclose(lib);
    return Status::Error("nvml: " + library + " lacks " + missing);
  }
  if (int rc = n->init(); rc != 0) {
    dlclose(lib);
    return Status::Error("nvml: nvmlInit_v2 failed with " + std::to_string(rc));
  }
  *lib_out = lib;
  return Status::Ok();
}

// The device's UUID without "GPU-" ("" if NVML does not say).
std::string device_uuid(const Nvml& n, nvmlDevice_t h) {
  char buf[96] = {};
  if (n.uuid(h, buf, sizeof buf - 1) != 0) return "";
  std::string u = buf;
  return u.rfind("GPU-", 0) == 0 ? u.substr(4) : u;
}

// HTCondor's id for the device: from its UUID, else its ordinal.
std::string device_id(const std::string& uuid, unsigned index) {
  return uuid.empty() ? "CUDA" + std::to_string(index) : gpu_id_from_uuid(uuid);
}

}  // namespace

Status gpu_discover_nvml(const std::string& library, std::vector<GpuDevice>* out) {
  void* lib = nullptr;
  Nvml n{};
  if (Status st = nvml_load(library, &lib, &n); !st.ok) return st;
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
    g.uuid = device_uuid(n, h);
    g.id = device_id(g.uuid, i);
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
    if (n.utilization && n.utilization(h, &util) == 0)
      g.utilization_pct = static_cast<int>(util.gpu);
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

struct NvmlSession::Api {
  void* lib = nullptr;
  Nvml n{};
  std::vector<nvmlDevice_t> devices;
  std::vector<std::string> ids;
};

NvmlSession::NvmlSession() = default;
NvmlSession::~NvmlSession() {
  close();
}

Status NvmlSession::open(const std::string& library) {
  close();
  auto api = std::make_unique<Api>();
  if (Status st = nvml_load(library, &api->lib, &api->n); !st.ok) return st;
  unsigned count = 0;
  if (int rc = api->n.count(&count); rc != 0) {
    api->n.shutdown();
    dlclose(api->lib);
    return Status::Error("nvml: nvmlDeviceGetCount_v2 failed with " + std::to_string(rc));
  }
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t h = nullptr;
    if (api->n.handle(i, &h) != 0) continue;
    api->devices.push_back(h);
    api->ids.push_back(device_id(device_uuid(api->n, h), i));
  }
  api_ = std::move(api);
  return Status::Ok();
}

Status NvmlSession::sample(std::vector<GpuUsageSample>* out) {
  out->clear();
  if (!api_) return Status::Error("nvml: not open");
  const Nvml& n = api_->n;
  for (size_t i = 0; i < api_->devices.size(); ++i) {
    GpuUsageSample s;
    s.id = api_->ids[i];
    nvmlUtilization_t util{};
    if (n.utilization && n.utilization(api_->devices[i], &util) == 0)
      s.utilization_pct = static_cast<int>(util.gpu);
    nvmlMemory_t mem{};
    if (n.memory && n.memory(api_->devices[i], &mem) == 0)
      s.memory_used_bytes = static_cast<int64_t>(mem.used);
    out->push_back(std::move(s));
  }
  return Status::Ok();
}

void NvmlSession::close() {
  if (!api_) return;
  api_->n.shutdown();
  dlclose(api_->lib);
  api_.reset();
}

}  // namespace kite::hal
