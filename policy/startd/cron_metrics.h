// Startd cron resource monitors (STARTD_CRON_<name>_METRICS = SUM:GPUs, PEAK:GPUsMemory): the
// METRICS list, and the accounting that turns each device's Uptime<Name>Seconds /
// Uptime<Name>PeakUsage reports into slot attributes: Device<Name>AverageUsage and
// Device<Name>PeakUsage since the agent started, <Name>AverageUsage and <Name>Usage for the
// running job (pure; time is passed in).
// HTCONDOR: hooks.rst STARTD_CRON_<JobName>_METRICS; machine-classad-attributes
// DeviceGPUsAverageUsage / DeviceGPUsMemoryPeakUsage.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "policy/startd/cron_output.h"

namespace kite::startd {

struct CronMetric {
  bool sum = true;   // SUM (accumulates, e.g. busy seconds) or PEAK (largest value)
  std::string name;  // "GPUs", "GPUsMemory"
  /// The attribute a monitor reports it in: Uptime<name>Seconds or Uptime<name>PeakUsage.
  std::string report_attr() const;
};

/// "SUM:GPUs, PEAK:GPUsMemory" (commas or spaces between items). False with a message naming
/// the bad item.
bool cron_metrics_parse(const std::string& text, std::vector<CronMetric>* out, std::string* err);

/// True when both lists name the same metrics in the same order.
bool cron_metrics_same(const std::vector<CronMetric>& a, const std::vector<CronMetric>& b);

/// One monitor's devices and the slots they report to.
class CronMonitorState {
 public:
  /// `prefix`: the job's _PREFIX, which the parser put before every reported attribute.
  CronMonitorState(std::vector<CronMetric> metrics, std::string prefix)
      : metrics_(std::move(metrics)), prefix_(std::move(prefix)) {}

  /// A device's record (its tag names the device) reported at `now`: each metric's value is
  /// added (SUM) or taken if larger (PEAK) into the device's totals. The record's other
  /// attributes are left in `rec->attrs` for an ordinary merge; metric attributes are taken
  /// out. A metric whose value is not a number is ignored with a message in `errors`.
  void report(CronRecord* rec, int64_t now, std::vector<std::string>* errors);

  /// True when this state accounts exactly these metrics (a reconfig may change them).
  bool same_metrics(const std::vector<CronMetric>& m, const std::string& prefix) const {
    return prefix == prefix_ && cron_metrics_same(m, metrics_);
  }

  /// The devices reported so far, for routing (each record's SlotMergeConstraint, ...).
  const std::map<std::string, CronRecord>& devices() const { return routes_; }

  /// A slot's metric attributes at `now`. `devices`: tags of the devices routed to it;
  /// `fresh`: those of them reported just now; `job`: its running job ("" when none; a new
  /// value starts the per-job accounting); `since`: when the agent started.
  std::vector<std::pair<std::string, std::string>> slot_attrs(
      const std::string& slot, const std::vector<std::string>& devices,
      const std::vector<std::string>& fresh, const std::string& job, int64_t now, int64_t since);

 private:
  struct Device {
    std::vector<double> total;  // per metric: sum or peak since start
    std::vector<double> last;   // per metric: the last reported value (NaN: none)
    int64_t updated = 0;
  };
  struct Slot {
    std::string job;
    std::vector<double> job_start;  // SUM: the devices' total when the job started
    std::vector<double> job_peak;   // PEAK: the largest value reported during the job (NaN)
    int64_t first = 0, last = 0;    // the report before the job started, the latest one
  };
  double aggregate(size_t m, const std::vector<std::string>& devices) const;

  std::vector<CronMetric> metrics_;
  std::string prefix_;
  std::map<std::string, Device> devices_;
  std::map<std::string, CronRecord> routes_;
  std::map<std::string, Slot> slots_;
};

}  // namespace kite::startd
