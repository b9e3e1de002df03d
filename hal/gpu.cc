// GPU discovery order, HTCondor ids, the nested property ads and the visibility variables.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "hal/gpu.h"
#include "policy/classad/classad.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::hal {

std::vector<GpuDevice> gpu_discover(const Root& root, const GpuOptions& opt,
                                    std::vector<std::string>* notes) {
  std::vector<GpuDevice> out;
  auto note = [&](std::string s) {
    if (notes) notes->push_back(std::move(s));
  };
  std::string lib = opt.nvml_library;
  if (lib.empty() && root.live()) lib = "libnvidia-ml.so.1";
  if (opt.use_nvml && !lib.empty()) {
    Status st = gpu_discover_nvml(lib, &out);
    if (!st.ok) note(st.message + "; no NVML GPUs");
  }
  if (out.empty() && opt.use_proc) {
    gpu_discover_proc_nvidia(root, &out);
    if (!out.empty())
      note("nvidia: " + std::to_string(out.size()) + " GPU(s) from /proc/driver/nvidia (no NVML)");
  }
  if (opt.use_tegra) gpu_discover_tegra(root, &out);
  if (opt.use_drm) gpu_discover_drm(root, &out);
  if (out.empty()) note("no GPUs found");
  return out;
}

std::string gpu_id_from_uuid(std::string_view uuid) {
  if (uuid.rfind("GPU-", 0) == 0) uuid.remove_prefix(4);
  std::string hex;
  for (char c : uuid) {
    if (hex.size() == 8) break;
    if (c == '-') continue;
    hex += static_cast<char>(c >= 'A' && c <= 'F' ? c + 32 : c);
  }
  return "GPU-" + hex;
}

bool gpu_model_lookup(std::string_view name, double* capability, int64_t* memory_mb) {
  struct Model {
    const char* key;
    double cap;
    int64_t mem;  // MiB as NVML reports it; 0 = from the "<N>GB" in the name
  };
  // NVIDIA's CUDA GPU table (developer.nvidia.com/cuda-gpus) and the boards' memory sizes.
  static const Model kModels[] = {
      {"H100", 9.0, 0},    {"H200", 9.0, 0},          {"L40S", 8.9, 46068},
      {"L40", 8.9, 46068}, {"L4", 8.9, 23034},        {"A100", 8.0, 0},
      {"A30", 8.0, 24576}, {"A40", 8.6, 46068},       {"A10", 8.6, 23028},
      {"A16", 8.6, 15356}, {"A2", 8.6, 15356},        {"T4", 7.5, 15360},
      {"V100", 7.0, 0},    {"P100", 6.0, 0},          {"P40", 6.1, 23040},
      {"P4", 6.1, 7680},   {"RTX A6000", 8.6, 49140}, {"RTX A4000", 8.6, 16376}};
  for (const Model& m : kModels) {
    std::string_view k = m.key;
    size_t at = name.find(k);
    // Whole word: "A10" must not match "A100".
    while (at != std::string_view::npos) {
      size_t end = at + k.size();
      bool left = at == 0 || name[at - 1] == ' ' || name[at - 1] == '-';
      bool right = end == name.size() || name[end] == ' ' || name[end] == '-';
      if (left && right) break;
      at = name.find(k, at + 1);
    }
    if (at == std::string_view::npos) continue;
    *capability = m.cap;
    int64_t mem = m.mem;
    if (mem == 0) {
      size_t gb = name.find("GB");
      size_t s = gb;
      while (s > 0 && name[s - 1] >= '0' && name[s - 1] <= '9') --s;
      if (gb != std::string_view::npos && s < gb)
        mem = std::atoll(std::string(name.substr(s, gb - s)).c_str()) * 1024;
    }
    if (mem > 0) *memory_mb = mem;
    return true;
  }
  return false;
}

std::string gpu_ad_attr(std::string_view id) {
  std::string a = "GPUs_";
  for (char c : id) a += (c == '-' || c == '.' || c == ':') ? '_' : c;
  return a;
}

void gpu_ad_insert(const std::vector<GpuDevice>& gpus, classad::ClassAd* ad) {
  using classad::Value;
  std::string detected, available = "{ ";
  double util_sum = 0;
  int util_n = 0;
  int64_t mem_used = 0;
  bool have_mem_used = false;
  for (size_t i = 0; i < gpus.size(); ++i) {
    const GpuDevice& g = gpus[i];
    detected += (i ? ", " : "") + g.id;
    available += (i ? "," : "") + gpu_ad_attr(g.id);
    // The property ad, as condor_gpu_discovery -nested prints it.
    std::string p = "[ id = ";
    classad::unparse_string(p, g.id);
    auto num = [&](const char* k, const std::string& v) { p += std::string("; ") + k + " = " + v; };
    auto str = [&](const char* k, const std::string& v) {
      if (v.empty()) return;
      p += std::string("; ") + k + " = ";
      classad::unparse_string(p, v);
    };
    char buf[64];
    if (g.capability > 0) {
      std::snprintf(buf, sizeof buf, "%.1f", g.capability);
      num("Capability", buf);
    }
    if (g.clock_mhz > 0) num("ClockMhz", std::to_string(g.clock_mhz) + ".0");
    str("DeviceName", g.name);
    str("DevicePciBusId", g.pci_bus_id);
    str("DeviceUuid", g.uuid);
    if (g.cuda_driver_version > 0) {
      std::snprintf(buf, sizeof buf, "%d.%d", g.cuda_driver_version / 1000,
                    (g.cuda_driver_version % 1000) / 10);
      num("DriverVersion", buf);
      num("MaxSupportedVersion", std::to_string(g.cuda_driver_version));
    }
    if (g.ecc >= 0) num("ECCEnabled", g.ecc ? "true" : "false");
    if (g.global_memory_mb >= 0) num("GlobalMemoryMb", std::to_string(g.global_memory_mb));
    str("NvidiaDriver", g.nvidia_driver);
    if (g.integrated) num("Integrated", "true");
    p += " ]";
    classad::ExprPtr e = classad::parse_expr(p);
    if (e) ad->insert(gpu_ad_attr(g.id), e.release());
    if (g.utilization_pct >= 0) {
      util_sum += g.utilization_pct / 100.0;
      ++util_n;
    }
    if (g.memory_used_mb >= 0) {
      mem_used += g.memory_used_mb;
      have_mem_used = true;
    }
  }
  available += " }";
  if (gpus.empty()) {
    ad->insert_value("DetectedGPUs", Value::integer(0));
  } else {
    ad->insert_value("DetectedGPUs", Value::string(detected));
    if (classad::ExprPtr e = classad::parse_expr(available))
      ad->insert("AvailableGPUs", e.release());
  }
  ad->insert_value("TotalGPUs", Value::integer(static_cast<int64_t>(gpus.size())));
  ad->insert_value("GPUs", Value::integer(static_cast<int64_t>(gpus.size())));
  if (util_n > 0) ad->insert_value("GPUsAverageUsage", Value::real(util_sum / util_n));
  if (have_mem_used) ad->insert_value("GPUsMemoryUsage", Value::integer(mem_used));
}

std::vector<std::string> gpu_nodes_to_deny(const std::vector<GpuDevice>& all,
                                           const std::vector<std::string>& assigned) {
  std::vector<std::string> out;
  for (const GpuDevice& g : all) {
    if (g.vendor != "nvidia" || g.integrated) continue;
    if (std::find(assigned.begin(), assigned.end(), g.id) != assigned.end()) continue;
    int minor = g.minor >= 0 ? g.minor : g.index;
    if (minor >= 0) out.push_back("/dev/nvidia" + std::to_string(minor));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> gpu_visibility_env(
    const std::vector<std::string>& assigned) {
  std::vector<std::pair<std::string, std::string>> env;
  if (assigned.empty()) {
    // ENVIRONMENT_VALUE_FOR_UnAssignedGPUs: hide every device from CUDA.
    env.emplace_back("CUDA_VISIBLE_DEVICES", "10000");
    env.emplace_back("GPU_DEVICE_ORDINAL", "10000");
    return env;
  }
  std::string raw, cuda, ordinal, rocr;
  for (size_t i = 0; i < assigned.size(); ++i) {
    const std::string& id = assigned[i];
    std::string sep = i ? "," : "";
    raw += sep + id;
    // CUDA_VISIBLE_DEVICES=/CUDA//, GPU_DEVICE_ORDINAL=/(CUDA|OCL)//
    std::string c = id.rfind("CUDA", 0) == 0 ? id.substr(4) : id;
    std::string o = id.rfind("CUDA", 0) == 0  ? id.substr(4)
                    : id.rfind("OCL", 0) == 0 ? id.substr(3)
                                              : id;
    cuda += sep + c;
    ordinal += sep + o;
    rocr += sep + (id.rfind("AMD", 0) == 0 ? id.substr(3) : id);
  }
  env.emplace_back("_CONDOR_AssignedGPUs", raw);
  env.emplace_back("CUDA_VISIBLE_DEVICES", cuda);
  env.emplace_back("GPU_DEVICE_ORDINAL", ordinal);
  bool any_amd = false;
  for (const std::string& id : assigned) any_amd |= id.rfind("AMD", 0) == 0;
  if (any_amd) env.emplace_back("ROCR_VISIBLE_DEVICES", rocr);
  return env;
}

}  // namespace kite::hal
