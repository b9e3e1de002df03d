// Startd cron: the STARTD_CRON_* configuration read into one description per monitor (pure).
// HTCONDOR: hooks.rst "Daemon Hook Configuration Options"; ep-configuration "Startd Cron".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/config/config.h"
#include "policy/startd/cron_metrics.h"

namespace kite::startd {

/// How a monitor is scheduled (STARTD_CRON_<name>_MODE).
enum class CronMode : uint8_t {
  kPeriodic,     // started every PERIOD seconds; output published when it exits
  kWaitForExit,  // restarted PERIOD seconds after it exits; each `-` line publishes a record
  kOneShot,      // run once at startup (and after reconfig with RECONFIG_RERUN)
  kOnDemand,     // only the benchmarks use it: a startd cron job in this mode never runs
};
const char* cron_mode_name(CronMode m);

/// One STARTD_CRON_JOBLIST entry.
struct CronJob {
  std::string name;               // as listed (HTCondor's JobName)
  std::string executable;         // _EXECUTABLE (required)
  std::vector<std::string> args;  // argv: the job name first, then _ARGS (V2 or V1 syntax)
  std::vector<std::string> env;   // _ENV as NAME=value entries (the DAEMON_ENVIRONMENT syntax)
  std::string cwd;                // _CWD, "" = inherit
  int64_t period = 0;             // _PERIOD in seconds (suffix s, m or h); required but OneShot
  CronMode mode = CronMode::kPeriodic;
  bool reconfig = false;        // _RECONFIG: send SIGHUP to a running instance on reconfig
  bool reconfig_rerun = false;  // _RECONFIG_RERUN: a OneShot runs again after reconfig
  bool kill = false;            // _KILL: a still-running instance is killed when it is due again
  std::string prefix;           // _PREFIX: prepended to every attribute it publishes
  std::vector<int> slots;       // _SLOTS: slot ids that may take its output, empty = all
  double job_load = 0.01;       // _JOB_LOAD
  std::string condition;        // _CONDITION: ClassAd expression text, "" = none
  // _METRICS: a resource monitor (one record per device, SUM/PEAK accounting), empty = none.
  std::vector<CronMetric> metrics;
};

/// The whole startd cron configuration.
struct CronConfig {
  std::vector<CronJob> jobs;
  double max_job_load = 0.1;       // STARTD_CRON_MAX_JOB_LOAD
  bool log_non_zero_exit = false;  // STARTD_CRON_LOG_NON_ZERO_EXIT
  int64_t max_output = 65536;      // STARTD_CRON_MAX_OUTPUT_BYTES (Kite): bytes of one record
};

/// Reads STARTD_CRON_JOBLIST and every job's knobs. False with a message naming the knob and
/// its value on a bad value; a job without _EXECUTABLE, or without _PERIOD where one is
/// needed, is an error too (HTCondor skips it with a log line; an appliance wants it loud).
bool cron_config_read(const config::Config& cfg, CronConfig* out, std::string* err);

/// A duration with an optional s, m or h suffix ("90", "5m", "1h"); false when malformed.
bool cron_period_parse(const std::string& text, int64_t* out);

}  // namespace kite::startd
