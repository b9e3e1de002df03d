// Tests of reading the STARTD_CRON_* configuration into monitor descriptions.
#include <gtest/gtest.h>

#include "policy/startd/cron_config.h"

namespace kite::startd {
namespace {

// Reads `text`; the read must succeed.
CronConfig read_ok(const std::string& text) {
  config::Config c;
  config::Status st = c.load_string(text, "t.conf");
  EXPECT_TRUE(st.ok) << st.message;
  CronConfig out;
  std::string err;
  EXPECT_TRUE(cron_config_read(c, &out, &err)) << err;
  return out;
}

// The error reading `text` gives ("" when it reads).
std::string read_err(const std::string& text) {
  config::Config c;
  config::Status st = c.load_string(text, "t.conf");
  EXPECT_TRUE(st.ok) << st.message;
  CronConfig out;
  std::string err;
  return cron_config_read(c, &out, &err) ? "" : err;
}

TEST(CronConfig, NoJobListMeansNoMonitorsAndTheDefaults) {
  CronConfig c = read_ok("");
  EXPECT_TRUE(c.jobs.empty());
  EXPECT_DOUBLE_EQ(c.max_job_load, 0.1);
  EXPECT_FALSE(c.log_non_zero_exit);
  EXPECT_EQ(c.max_output, 65536);
}

TEST(CronConfig, EveryKnobOfAJob) {
  CronConfig c = read_ok(
      "STARTD_CRON_MAX_JOB_LOAD = 0.5\n"
      "STARTD_CRON_LOG_NON_ZERO_EXIT = true\n"
      "STARTD_CRON_MAX_OUTPUT_BYTES = 4096\n"
      "STARTD_CRON_JOBLIST = temp, gpu\n"
      "STARTD_CRON_TEMP_EXECUTABLE = /usr/libexec/temp\n"
      "STARTD_CRON_TEMP_ARGS = -v --zone 3\n"
      "STARTD_CRON_TEMP_ENV = A=1;B=two\n"
      "STARTD_CRON_TEMP_CWD = /tmp\n"
      "STARTD_CRON_TEMP_PERIOD = 5m\n"
      "STARTD_CRON_TEMP_MODE = waitforexit\n"
      "STARTD_CRON_TEMP_RECONFIG = true\n"
      "STARTD_CRON_TEMP_RECONFIG_RERUN = yes\n"
      "STARTD_CRON_TEMP_KILL = True\n"
      "STARTD_CRON_TEMP_PREFIX = temp_\n"
      "STARTD_CRON_TEMP_SLOTS = 1, 3\n"
      "STARTD_CRON_TEMP_JOB_LOAD = 0.25\n"
      "STARTD_CRON_TEMP_CONDITION = TotalCpus > 2\n"
      "STARTD_CRON_GPU_EXECUTABLE = /usr/libexec/gpu\n"
      "STARTD_CRON_GPU_MODE = OneShot\n"
      "STARTD_CRON_GPU_ARGS = \"'one word' two\"\n"
      "STARTD_CRON_GPU_ENV = \"X='a b' Y=2\"\n");
  EXPECT_DOUBLE_EQ(c.max_job_load, 0.5);
  EXPECT_TRUE(c.log_non_zero_exit);
  EXPECT_EQ(c.max_output, 4096);
  ASSERT_EQ(c.jobs.size(), 2u);
  const CronJob& t = c.jobs[0];
  EXPECT_EQ(t.name, "temp");
  EXPECT_EQ(t.executable, "/usr/libexec/temp");
  EXPECT_EQ(t.args, (std::vector<std::string>{"temp", "-v", "--zone", "3"}));
  EXPECT_EQ(t.env, (std::vector<std::string>{"A=1", "B=two"}));
  EXPECT_EQ(t.cwd, "/tmp");
  EXPECT_EQ(t.period, 300);
  EXPECT_EQ(t.mode, CronMode::kWaitForExit);
  EXPECT_TRUE(t.reconfig);
  EXPECT_TRUE(t.reconfig_rerun);
  EXPECT_TRUE(t.kill);
  EXPECT_EQ(t.prefix, "temp_");
  EXPECT_EQ(t.slots, (std::vector<int>{1, 3}));
  EXPECT_DOUBLE_EQ(t.job_load, 0.25);
  EXPECT_EQ(t.condition, "TotalCpus > 2");
  const CronJob& g = c.jobs[1];
  EXPECT_EQ(g.mode, CronMode::kOneShot);
  EXPECT_EQ(g.period, 0);  // OneShot needs none
  EXPECT_EQ(g.args, (std::vector<std::string>{"gpu", "one word", "two"}));
  EXPECT_EQ(g.env, (std::vector<std::string>{"X=a b", "Y=2"}));
  // The defaults of a job.
  EXPECT_FALSE(g.kill);
  EXPECT_FALSE(g.reconfig);
  EXPECT_FALSE(g.reconfig_rerun);
  EXPECT_DOUBLE_EQ(g.job_load, 0.01);
  EXPECT_TRUE(g.slots.empty());
  EXPECT_TRUE(g.prefix.empty());
  EXPECT_TRUE(g.cwd.empty());
}

TEST(CronConfig, PeriodUnitsAndModesInAnyCase) {
  int64_t p = 0;
  EXPECT_TRUE(cron_period_parse("90", &p));
  EXPECT_EQ(p, 90);
  EXPECT_TRUE(cron_period_parse("90s", &p));
  EXPECT_EQ(p, 90);
  EXPECT_TRUE(cron_period_parse("2h", &p));
  EXPECT_EQ(p, 7200);
  EXPECT_TRUE(cron_period_parse(" 3 M ", &p));
  EXPECT_EQ(p, 180);
  for (const char* bad : {"", "m", "5d", "-5", "1.5m", "9999999999"})
    EXPECT_FALSE(cron_period_parse(bad, &p)) << bad;
  CronConfig c = read_ok(
      "STARTD_CRON_JOBLIST = a\nSTARTD_CRON_A_EXECUTABLE = /x\nSTARTD_CRON_A_MODE = ONDEMAND\n");
  EXPECT_EQ(c.jobs[0].mode, CronMode::kOnDemand);
}

TEST(CronConfig, BadValuesAreNamedWithTheirKnob) {
  const std::string job = "STARTD_CRON_JOBLIST = J\nSTARTD_CRON_J_EXECUTABLE = /bin/true\n";
  const std::string periodic = job + "STARTD_CRON_J_PERIOD = 10\n";
  struct Case {
    std::string text;
    const char* knob;
  } cases[] = {
      {job, "STARTD_CRON_J_PERIOD is not set"},
      {"STARTD_CRON_JOBLIST = J\nSTARTD_CRON_J_PERIOD = 1\n", "STARTD_CRON_J_EXECUTABLE"},
      {periodic + "STARTD_CRON_J_PERIOD = 0\n", "STARTD_CRON_J_PERIOD = 0"},
      {periodic + "STARTD_CRON_J_PERIOD = soon\n", "STARTD_CRON_J_PERIOD = soon"},
      {periodic + "STARTD_CRON_J_MODE = Sometimes\n", "STARTD_CRON_J_MODE = Sometimes"},
      {periodic + "STARTD_CRON_J_KILL = maybe\n", "STARTD_CRON_J_KILL = maybe"},
      {periodic + "STARTD_CRON_J_RECONFIG = maybe\n", "STARTD_CRON_J_RECONFIG = maybe"},
      {periodic + "STARTD_CRON_J_RECONFIG_RERUN = x\n", "STARTD_CRON_J_RECONFIG_RERUN = x"},
      {periodic + "STARTD_CRON_J_PREFIX = a-b\n", "STARTD_CRON_J_PREFIX = a-b"},
      {periodic + "STARTD_CRON_J_SLOTS = 1, two\n", "STARTD_CRON_J_SLOTS = 1, two"},
      {periodic + "STARTD_CRON_J_SLOTS = 0\n", "STARTD_CRON_J_SLOTS = 0"},
      {periodic + "STARTD_CRON_J_JOB_LOAD = heavy\n", "STARTD_CRON_J_JOB_LOAD = heavy"},
      {periodic + "STARTD_CRON_J_JOB_LOAD = -1\n", "STARTD_CRON_J_JOB_LOAD = -1"},
      {periodic + "STARTD_CRON_J_CONDITION = (1 +\n", "STARTD_CRON_J_CONDITION = (1 +"},
      {periodic + "STARTD_CRON_J_ARGS = \"'open\"\n", "STARTD_CRON_J_ARGS"},
      {periodic + "STARTD_CRON_J_ENV = \"=x\"\n", "STARTD_CRON_J_ENV"},
      {periodic + "STARTD_CRON_MAX_JOB_LOAD = lots\n", "STARTD_CRON_MAX_JOB_LOAD = lots"},
      {periodic + "STARTD_CRON_LOG_NON_ZERO_EXIT = \"no\"\n",
       "STARTD_CRON_LOG_NON_ZERO_EXIT = \"no\""},
      {periodic + "STARTD_CRON_MAX_OUTPUT_BYTES = 10\n", "STARTD_CRON_MAX_OUTPUT_BYTES = 10"},
      {"STARTD_CRON_JOBLIST = j J\nSTARTD_CRON_J_EXECUTABLE = /x\nSTARTD_CRON_J_PERIOD = 1\n",
       "listed twice"},
  };
  for (const Case& c : cases) {
    std::string err = read_err(c.text);
    EXPECT_NE(err.find(c.knob), std::string::npos) << "config:\n" << c.text << "error: " << err;
  }
}

}  // namespace
}  // namespace kite::startd

namespace kite::startd {
namespace {

TEST(CronConfig, FeatureGpusIsAResourceMonitorRunningTheGpuMonitor) {
  CronConfig c = read_ok("use FEATURE : GPUs\n");
  ASSERT_EQ(c.jobs.size(), 1u);
  const CronJob& j = c.jobs[0];
  EXPECT_EQ(j.name, "GPUs_MONITOR");
  EXPECT_EQ(j.mode, CronMode::kWaitForExit);
  EXPECT_EQ(j.period, 300);
  // HTCondor's program name: the agent runs `kite gpu-utilization` when it is not installed.
  EXPECT_EQ(j.executable, "/usr/libexec/kite/condor_gpu_utilization");
  ASSERT_EQ(j.metrics.size(), 2u);
  EXPECT_TRUE(j.metrics[0].sum);
  EXPECT_EQ(j.metrics[0].name, "GPUs");
  EXPECT_FALSE(j.metrics[1].sum);
  EXPECT_EQ(j.metrics[1].name, "GPUsMemory");
  EXPECT_EQ(j.condition, "TotalGPUs > 0 && OpSys =!= \"WINDOWS\"");
  std::vector<CronMetric> other;
  std::string err;
  ASSERT_TRUE(cron_metrics_parse("SUM:GPUs, SUM:GPUsMemory", &other, &err));
  EXPECT_FALSE(cron_metrics_same(j.metrics, other));
  ASSERT_TRUE(cron_metrics_parse("SUM:GPUs PEAK:GPUsMemory", &other, &err));
  EXPECT_TRUE(cron_metrics_same(j.metrics, other));
}

TEST(CronConfig, BadMetricsNameTheKnob) {
  std::string e = read_err(
      "STARTD_CRON_JOBLIST = m\n"
      "STARTD_CRON_M_EXECUTABLE = /bin/true\n"
      "STARTD_CRON_M_PERIOD = 10\n"
      "STARTD_CRON_M_METRICS = SUM:GPUs, MAX:GPUsMemory\n");
  EXPECT_NE(e.find("STARTD_CRON_m_METRICS"), std::string::npos) << e;
  EXPECT_NE(e.find("MAX:GPUsMemory"), std::string::npos) << e;
}

}  // namespace
}  // namespace kite::startd
