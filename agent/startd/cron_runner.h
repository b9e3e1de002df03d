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
};

}  // namespace kite::agent
