// The GPUs monitor's meter: busy seconds and memory peaks per GPU, and the report text.
#include "hal/gpu_usage.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace kite::hal {

void GpuUsageMeter::add(const std::vector<GpuUsageSample>& samples, double seconds) {
  for (const GpuUsageSample& s : samples) {
    auto it = std::find_if(gpus_.begin(), gpus_.end(), [&](const Gpu& g) { return g.id == s.id; });
    if (it == gpus_.end()) it = gpus_.insert(gpus_.end(), Gpu{s.id, 0, 0});
    if (s.utilization_pct > 0 && seconds > 0)
      it->busy_seconds += seconds * s.utilization_pct / 100.0;
    if (s.memory_used_bytes > it->peak_bytes) it->peak_bytes = s.memory_used_bytes;
  }
}

std::string GpuUsageMeter::report() {
  std::string out;
  char buf[160];
  for (size_t i = 0; i < gpus_.size(); ++i) {
    Gpu& g = gpus_[i];
    const int64_t mib = (g.peak_bytes + (int64_t{1} << 20) - 1) >> 20;
    out += "SlotMergeConstraint = StringListMember( \"" + g.id + "\", AssignedGPUs )\n";
    std::snprintf(buf, sizeof buf,
                  "UptimeGPUsSeconds = %.6f\nUptimeGPUsMemoryPeakUsage = %" PRId64
                  "\n- GPUsSlot%zu\n",
                  g.busy_seconds, mib, i);
    out += buf;
    g.busy_seconds = 0;
    g.peak_bytes = 0;
  }
  return out;
}

}  // namespace kite::hal
