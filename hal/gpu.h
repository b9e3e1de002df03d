// GPUs: discovery of NVIDIA GPUs (NVML loaded at run time, else /proc/driver/nvidia), AMD and
// Intel GPUs (/sys/class/drm) and NVIDIA Jetson integrated GPUs (tegra sysfs); HTCondor's
// device ids, the nested per-GPU property ads, and a job's GPU visibility variables.
// HTCONDOR: ep-configuration "Configuring GPUs"; condor_gpu_discovery -nested.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hal/root.h"
#include "hal/status.h"

namespace kite::classad {
class ClassAd;
}

namespace kite::hal {

/// One GPU. Unknown numbers are -1 (0 for capability); unknown strings empty.
struct GpuDevice {
  std::string id;                 // "GPU-6a96bd13" (from the UUID), else "CUDA0"/"AMD0"/"INTEL0"
  std::string uuid;               // DeviceUuid without the "GPU-" prefix
  std::string name;               // DeviceName
  std::string vendor;             // "nvidia", "amd", "intel"
  std::string source;             // "nvml", "proc", "drm", "tegra"
  std::string pci_bus_id;         // DevicePciBusId "0000:AF:00.0"
  int index = -1;                 // CUDA/NVML ordinal
  int minor = -1;                 // the driver's device minor (/dev/nvidia<minor>), -1 = unknown
  double capability = 0;          // Capability (CUDA compute capability)
  int64_t global_memory_mb = -1;  // GlobalMemoryMb
  int clock_mhz = -1;             // ClockMhz
  std::string nvidia_driver;      // NvidiaDriver "535.129.03"
  int cuda_driver_version = -1;   // MaxSupportedVersion 12020 -> DriverVersion 12.2
  int ecc = -1;                   // ECCEnabled: -1 unknown, 0, 1
  bool integrated = false;        // shares system memory (Jetson)
  // Sampled (NVML, tegra load): -1 if not available.
  int utilization_pct = -1;
  int64_t memory_used_mb = -1;
};

struct GpuOptions {
  /// The NVML library to dlopen. Empty: "libnvidia-ml.so.1" on the live root, and no NVML
  /// under a fake root (a fixture's GPUs come from its recorded files).
  std::string nvml_library;
  bool use_nvml = true;
  bool use_proc = true;   // /proc/driver/nvidia when NVML gave nothing
  bool use_drm = true;    // AMD/Intel
  bool use_tegra = true;  // Jetson
};

/// Every GPU found, NVIDIA first in ordinal order. `notes` says what was tried and missing
/// ("nvml: libnvidia-ml.so.1 not loadable (no NVIDIA driver)").
std::vector<GpuDevice> gpu_discover(const Root& root, const GpuOptions& opt,
                                    std::vector<std::string>* notes);

// The individual methods (gpu_nvml.cc, gpu_sysfs.cc).
Status gpu_discover_nvml(const std::string& library, std::vector<GpuDevice>* out);
void gpu_discover_proc_nvidia(const Root& root, std::vector<GpuDevice>* out);
void gpu_discover_drm(const Root& root, std::vector<GpuDevice>* out);
void gpu_discover_tegra(const Root& root, std::vector<GpuDevice>* out);

/// "GPU-" + the first 8 hex digits of a UUID (with or without its "GPU-" prefix).
std::string gpu_id_from_uuid(std::string_view uuid);
/// Compute capability and memory (MiB) of well-known NVIDIA models, for the /proc method,
/// which does not report them. False if the model is not in the table.
bool gpu_model_lookup(std::string_view name, double* capability, int64_t* memory_mb);

/// Adds the machine ad's GPU part: DetectedGPUs ("GPU-a, GPU-b" or 0), TotalGPUs, GPUs,
/// AvailableGPUs ({ GPUs_GPU_a, ... }), one nested property ad per GPU
/// (GPUs_GPU_a = [ id = "GPU-a"; Capability = 8.0; DeviceName = ...; ... ]), and
/// GPUsAverageUsage / GPUsMemoryUsage when sampled values exist.
void gpu_ad_insert(const std::vector<GpuDevice>& gpus, classad::ClassAd* ad);
/// The property ad's attribute name for a GPU id: "GPU-6a96bd13" -> "GPUs_GPU_6a96bd13".
std::string gpu_ad_attr(std::string_view id);

/// The device nodes of the NVIDIA GPUs in `all` that are not in `assigned` (ids), for the job's
/// devices cgroup to deny: "/dev/nvidia<minor>" (the minor from /proc/driver/nvidia; where
/// only NVML found the GPU, its ordinal, which is the minor unless the driver numbers them
/// otherwise).
std::vector<std::string> gpu_nodes_to_deny(const std::vector<GpuDevice>& all,
                                           const std::vector<std::string>& assigned);

/// The environment a job assigned `assigned` ids gets, as HTCondor's GPUs feature sets it
/// (ENVIRONMENT_FOR_AssignedGPUs = GPU_DEVICE_ORDINAL=/(CUDA|OCL)// CUDA_VISIBLE_DEVICES=/CUDA//,
/// ENVIRONMENT_VALUE_FOR_UnAssignedGPUs = 10000): _CONDOR_AssignedGPUs, CUDA_VISIBLE_DEVICES,
/// GPU_DEVICE_ORDINAL (and for AMD ids ROCR_VISIBLE_DEVICES). Lists are comma-separated.
std::vector<std::pair<std::string, std::string>> gpu_visibility_env(
    const std::vector<std::string>& assigned);

}  // namespace kite::hal
