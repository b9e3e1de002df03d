// Tests of resource-monitor metrics: the METRICS list, and the device, slot and job
// accounting (HTCondor's Uptime*/Device*/per-job usage attributes), on hand-computed values.
#include <gtest/gtest.h>

#include "policy/startd/cron_metrics.h"

namespace kite::startd {
namespace {

using Attrs = std::vector<std::pair<std::string, std::string>>;

std::vector<CronMetric> gpu_metrics() {
  std::vector<CronMetric> m;
  std::string err;
  EXPECT_TRUE(cron_metrics_parse("SUM:GPUs, PEAK:GPUsMemory", &m, &err)) << err;
  return m;
}

CronRecord record(const std::string& tag, const std::string& secs, const std::string& peak,
                  const std::string& prefix = "") {
  CronRecord r;
  r.tag = tag;
  r.attrs = {{prefix + "UptimeGPUsSeconds", secs},
             {prefix + "UptimeGPUsMemoryPeakUsage", peak},
             {prefix + "Other", "1"}};
  return r;
}

std::string get(const Attrs& a, const std::string& name) {
  for (const auto& [n, v] : a) {
    if (n == name) return v;
  }
  return "<absent>";
}

TEST(CronMetrics, ParsesSumAndPeak) {
  std::vector<CronMetric> m = gpu_metrics();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_TRUE(m[0].sum);
  EXPECT_EQ(m[0].name, "GPUs");
  EXPECT_EQ(m[0].report_attr(), "UptimeGPUsSeconds");
  EXPECT_FALSE(m[1].sum);
  EXPECT_EQ(m[1].report_attr(), "UptimeGPUsMemoryPeakUsage");
  std::string err;
  EXPECT_TRUE(cron_metrics_parse("sum:SQUIDs peak:SQUIDsMemory", &m, &err)) << err;
  EXPECT_EQ(m.size(), 2u);
  EXPECT_FALSE(cron_metrics_parse("AVG:GPUs", &m, &err));
  EXPECT_NE(err.find("AVG:GPUs"), std::string::npos) << err;
  EXPECT_FALSE(cron_metrics_parse("SUM:", &m, &err));
  EXPECT_FALSE(cron_metrics_parse("SUM:GP-Us", &m, &err));
  EXPECT_FALSE(cron_metrics_parse(" ", &m, &err));
}

TEST(CronMetrics, DeviceTotalsSinceStartAndPerSlotAggregates) {
  CronMonitorState st(gpu_metrics(), "");
  std::vector<std::string> errors;
  CronRecord r0 = record("GPUsSlot0", "5.0", "50");
  st.report(&r0, 100, &errors);
  // Metric attributes are taken out; the others stay for the ordinary merge.
  ASSERT_EQ(r0.attrs.size(), 1u);
  EXPECT_EQ(r0.attrs[0].first, "Other");
  CronRecord r1 = record("GPUsSlot1", "9", "90");
  st.report(&r1, 100, &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(st.devices().size(), 2u);

  Attrs a = st.slot_attrs("slot1", {"GPUsSlot0"}, {"GPUsSlot0"}, "", 100, 0);
  EXPECT_EQ(get(a, "DeviceGPUsAverageUsage"), "0.050000");  // 5 busy seconds in 100
  EXPECT_EQ(get(a, "DeviceGPUsMemoryPeakUsage"), "50.000000");
  EXPECT_EQ(get(a, "GPUsAverageUsage"), "undefined");  // no job
  EXPECT_EQ(get(a, "GPUsMemoryUsage"), "undefined");
  // A slot with both GPUs: busy seconds add up, the memory peak is the larger one.
  a = st.slot_attrs("slot2", {"GPUsSlot0", "GPUsSlot1"}, {"GPUsSlot0", "GPUsSlot1"}, "", 100, 0);
  EXPECT_EQ(get(a, "DeviceGPUsAverageUsage"), "0.140000");
  EXPECT_EQ(get(a, "DeviceGPUsMemoryPeakUsage"), "90.000000");

  // Later reports: SUM accumulates, PEAK keeps the largest since start.
  CronRecord r2 = record("GPUsSlot1", "1", "10");
  st.report(&r2, 200, &errors);
  a = st.slot_attrs("slot2", {"GPUsSlot0", "GPUsSlot1"}, {"GPUsSlot1"}, "", 200, 0);
  EXPECT_EQ(get(a, "DeviceGPUsAverageUsage"), "0.075000");  // 15 / 200
  EXPECT_EQ(get(a, "DeviceGPUsMemoryPeakUsage"), "90.000000");
}

TEST(CronMetrics, PerJobAverageAndPeakFromTheJobsStart) {
  CronMonitorState st(gpu_metrics(), "");
  std::vector<std::string> errors;
  CronRecord r = record("d0", "5", "50");
  st.report(&r, 100, &errors);
  Attrs a = st.slot_attrs("slot1", {"d0"}, {"d0"}, "", 100, 0);
  // The job starts at 105: its accounting starts from the total then (5) and the last report
  // (100); nothing is known about it until the next report.
  a = st.slot_attrs("slot1", {"d0"}, {}, "1.0@105", 105, 0);
  EXPECT_EQ(get(a, "GPUsAverageUsage"), "undefined");
  EXPECT_EQ(get(a, "GPUsMemoryUsage"), "undefined");
  r = record("d0", "4.0", "20");
  st.report(&r, 110, &errors);
  a = st.slot_attrs("slot1", {"d0"}, {"d0"}, "1.0@105", 110, 0);
  EXPECT_EQ(get(a, "GPUsAverageUsage"), "0.400000");  // (9 - 5) / (110 - 100)
  EXPECT_EQ(get(a, "GPUsMemoryUsage"), "20.000000");  // the job's own peak, not the device's 50
  EXPECT_EQ(get(a, "DeviceGPUsMemoryPeakUsage"), "50.000000");
  r = record("d0", "2", "30");
  st.report(&r, 120, &errors);
  a = st.slot_attrs("slot1", {"d0"}, {"d0"}, "1.0@105", 120, 0);
  EXPECT_EQ(get(a, "GPUsAverageUsage"), "0.300000");  // (11 - 5) / (120 - 100)
  EXPECT_EQ(get(a, "GPUsMemoryUsage"), "30.000000");
  // The job ends: its attributes go; a next job starts afresh.
  a = st.slot_attrs("slot1", {"d0"}, {}, "", 125, 0);
  EXPECT_EQ(get(a, "GPUsAverageUsage"), "undefined");
  EXPECT_EQ(get(a, "GPUsMemoryUsage"), "undefined");
  a = st.slot_attrs("slot1", {"d0"}, {}, "1.1@130", 130, 0);
  r = record("d0", "10", "5");
  st.report(&r, 140, &errors);
  a = st.slot_attrs("slot1", {"d0"}, {"d0"}, "1.1@130", 140, 0);
  EXPECT_EQ(get(a, "GPUsAverageUsage"), "0.500000");  // (21 - 11) / (140 - 120)
  EXPECT_EQ(get(a, "GPUsMemoryUsage"), "5.000000");
  EXPECT_TRUE(errors.empty());
}

TEST(CronMetrics, BadValuesAreReportedAndIgnored) {
  CronMonitorState st(gpu_metrics(), "mon_");
  std::vector<std::string> errors;
  CronRecord r = record("d0", "\"lots\"", "-3", "mon_");
  st.report(&r, 10, &errors);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("mon_UptimeGPUsSeconds"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("d0"), std::string::npos) << errors[0];
  // The prefixed metric attributes were recognised (and dropped), the others kept.
  ASSERT_EQ(r.attrs.size(), 1u);
  EXPECT_EQ(r.attrs[0].first, "mon_Other");
  Attrs a = st.slot_attrs("slot1", {"d0"}, {"d0"}, "", 10, 0);
  EXPECT_EQ(get(a, "DeviceGPUsAverageUsage"), "0.000000");
  EXPECT_EQ(get(a, "DeviceGPUsMemoryPeakUsage"), "0.000000");
}

}  // namespace
}  // namespace kite::startd
