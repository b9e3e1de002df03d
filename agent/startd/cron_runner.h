// Startd cron in the agent: runs the STARTD_CRON_JOBLIST monitors as libuv child processes on
// their schedules, reads their output as it comes (never blocking the loop) and hands the
// records to the agent, which merges them into the slot ads. Hung, flooding and garbage-
// printing monitors are killed or ignored with a log line.
#pragma once

#include <uv.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/startd/fetch_hook_runner.h"
#include "policy/classad/expr.h"
#include "policy/startd/cron_config.h"
#include "policy/startd/cron_output.h"

namespace kite::agent {

/// Blank-separated words ("qemu-aarch64 /usr/bin/kite" -> two); agent_starters.cc.
std::vector<std::string> split_words(const std::string& s);

/// Where the runner's results go (the agent).
class CronSink {
 public:
  /// Records a monitor published (after a `-` line in WaitForExit mode, else at its exit).
  virtual void cron_publish(const startd::CronJob& job, std::vector<startd::CronRecord>* recs) = 0;
  /// STARTD_CRON_<name>_CONDITION, evaluated in the machine's context.
  virtual bool cron_condition(const classad::Expr* cond) = 0;

 protected:
  ~CronSink() = default;
};

class CronRunner {
 public:
  CronRunner(uv_loop_t* loop, CronSink* sink) : loop_(loop), hooks_(loop), sink_(sink) {}
  ~CronRunner();
  CronRunner(const CronRunner&) = delete;
  CronRunner& operator=(const CronRunner&) = delete;

  /// Takes a (new) configuration. Unchanged monitors keep running (a reconfig sends SIGHUP to
  /// those with _RECONFIG and reruns OneShots with _RECONFIG_RERUN); changed ones restart;
  /// monitors no longer listed are killed.
  void configure(const startd::CronConfig& cfg, bool reconfig);
  /// How to run this binary (the STARTER words, which may carry an emulator) and the agent's
  /// configuration file ("" = the default): HTCondor's `$(LIBEXEC)/condor_gpu_utilization`,
  /// when no such program is installed, runs as `kite gpu-utilization` (Kite ships one binary).
  void set_kite_command(std::vector<std::string> words, std::string config_path) {
    kite_words_ = std::move(words);
    kite_config_ = std::move(config_path);
  }
  /// Kills every monitor and closes every handle (before the loop's last run).
  void close();
  size_t monitors() const { return tasks_.size(); }

  struct Task;
  struct Run;

 private:
  void add(const startd::CronJob& job);
  void remove(Task* t);
  void due(Task* t);
  void start(Task* t);
  void finished(Run* r);
  void retry_waiting();
  static void on_due(uv_timer_t* h);
  void read(Run* r, const char* data, size_t n);
  void flush_line(Run* r, std::string_view line);
  void publish(Task* t, std::vector<startd::CronRecord>* recs);

  uv_loop_t* loop_;
  HookRunner hooks_;  // the monitors' processes
  CronSink* sink_;
  startd::CronConfig cfg_;
  std::vector<Task*> tasks_;  // each freed by its timer's close callback
  double load_ = 0;           // sum of the running monitors' _JOB_LOAD
  std::vector<std::string> kite_words_;
  std::string kite_config_;
};

}  // namespace kite::agent
