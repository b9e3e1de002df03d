// GPU usage over time, for the GPUs monitor (`kite gpu-utilization`, HTCondor's
// condor_gpu_utilization): an NVML session sampled again and again, and the meter that turns
// the samples into the monitor's per-GPU report (busy seconds and peak memory per interval).
// HTCONDOR: hooks.rst STARTD_CRON_<JobName>_METRICS; central-manager "GPU utilization".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hal/status.h"

namespace kite::hal {

/// One GPU at one instant. -1: not reported.
struct GpuUsageSample {
  std::string id;            // the id discovery gives it ("GPU-6a96bd13", "CUDA0")
  int utilization_pct = -1;  // percent of the last sample period a kernel ran
  int64_t memory_used_bytes = -1;
};

/// NVML kept open between samples (initialising NVML is slow on real drivers).
class NvmlSession {
 public:
  NvmlSession();
  ~NvmlSession();
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;
  /// dlopens `library` and initialises NVML; the error names the library and the call.
  Status open(const std::string& library);
  /// One sample per GPU, in NVML's ordinal order.
  Status sample(std::vector<GpuUsageSample>* out);
  void close();

 private:
  struct Api;
  std::unique_ptr<Api> api_;
};

/// Accumulates samples into one report per interval.
class GpuUsageMeter {
 public:
  /// A sample taken `seconds` after the previous one: each GPU's busy time grows by its
  /// utilisation times that span, and its memory peak takes the larger value.
  void add(const std::vector<GpuUsageSample>& samples, double seconds);
  /// The report since the last one, one record per GPU as condor_gpu_utilization prints it
  /// (SlotMergeConstraint on AssignedGPUs, UptimeGPUsSeconds, UptimeGPUsMemoryPeakUsage in
  /// MiB rounded up, `- GPUsSlot<N>`); then a new interval starts.
  std::string report();
  size_t gpus() const { return gpus_.size(); }

 private:
  struct Gpu {
    std::string id;
    double busy_seconds = 0;
    int64_t peak_bytes = 0;
  };
  std::vector<Gpu> gpus_;
};

}  // namespace kite::hal
