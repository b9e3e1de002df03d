// Runs startd cron monitors: schedules (Periodic, WaitForExit, OneShot), child processes with
// their stdout read line by line through libuv, the byte cap, _KILL and _JOB_LOAD.
#include "agent/startd/cron_runner.h"

#include <signal.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>

#include "agent/core/log.h"
#include "policy/classad/args_env.h"
#include "policy/classad/parser.h"

extern char** environ;

namespace kite::agent {

using startd::CronMode;

struct CronRunner::Task {
  CronRunner* owner = nullptr;
  startd::CronJob job;
  classad::ExprPtr condition;
  uv_timer_t timer{};
  Run* run = nullptr;              // the running instance
  bool rerun = false;              // start again as soon as the killed instance is gone
  bool waiting = false;            // due, but _JOB_LOAD would exceed STARTD_CRON_MAX_JOB_LOAD
  std::vector<std::string> names;  // attributes it has published (they stay in the slot ads)
};

struct CronRunner::Run {
  Task* task = nullptr;         // null once the task was removed: finish without publishing
  HookProcess* proc = nullptr;  // until it is gone
  bool discard = false;         // killed (hang or flood): its output is dropped
  int64_t status = 0;
  int term_signal = 0;
  size_t bytes = 0;  // read since the last published record
  int logged = 0;    // bad lines logged for this run
  std::string partial;
  startd::CronOutputParser parser;
  std::vector<startd::CronRecord> records;
  explicit Run(const std::string& prefix) : parser(prefix) {}
};

namespace {

constexpr int kMaxLoggedLines = 5;  // bad lines logged per run; the rest are counted
// Distinct attributes one monitor may add to the slot ads: published attributes stay, so a
// monitor inventing new names every run would otherwise grow the agent without bound.
constexpr size_t kMaxNamesPerJob = 256;

bool same_job(const startd::CronJob& a, const startd::CronJob& b) {
  return a.executable == b.executable && a.args == b.args && a.env == b.env && a.cwd == b.cwd &&
         a.period == b.period && a.mode == b.mode && a.kill == b.kill && a.prefix == b.prefix &&
         a.slots == b.slots && a.job_load == b.job_load && a.condition == b.condition &&
         a.reconfig == b.reconfig && a.reconfig_rerun == b.reconfig_rerun &&
         startd::cron_metrics_same(a.metrics, b.metrics);
}

// HTCondor's GPUs monitor program, which Kite provides as `kite gpu-utilization`.
constexpr const char* kGpuMonitorProgram = "condor_gpu_utilization";

// When `exe` is the GPUs monitor and no such program is installed: this binary's command
// (file and argv, the job name first as for any monitor). False otherwise.
bool builtin_monitor(const startd::CronJob& j, const std::vector<std::string>& kite,
                     const std::string& config, std::string* file, std::vector<std::string>* argv) {
  size_t slash = j.executable.rfind('/');
  std::string base = slash == std::string::npos ? j.executable : j.executable.substr(slash + 1);
  if (base != kGpuMonitorProgram || kite.empty() || ::access(j.executable.c_str(), X_OK) == 0)
    return false;
  *file = kite[0];
  argv->assign(1, j.args.empty() ? j.name : j.args[0]);
  argv->insert(argv->end(), kite.begin() + 1, kite.end());
  argv->push_back("gpu-utilization");
  if (!config.empty()) argv->insert(argv->end(), {"-c", config});
  if (j.args.size() > 1) argv->insert(argv->end(), j.args.begin() + 1, j.args.end());
  return true;
}

void kill_session(const CronRunner::Run* r) {
  if (r->proc) r->proc->kill();
}

}  // namespace

CronRunner::~CronRunner() {
  close();
}

void CronRunner::configure(const startd::CronConfig& cfg, bool reconfig) {
  cfg_ = cfg;
  std::vector<Task*> old = tasks_;
  for (Task* t : old) {
    auto same_name = [t](const startd::CronJob& j) {
      return strcasecmp(j.name.c_str(), t->job.name.c_str()) == 0;
    };
    auto it = std::find_if(cfg.jobs.begin(), cfg.jobs.end(), same_name);
    if (it == cfg.jobs.end() || !same_job(*it, t->job)) remove(t);
  }
  for (const startd::CronJob& j : cfg.jobs) {
    Task* kept = nullptr;
    for (Task* t : tasks_) {
      if (strcasecmp(j.name.c_str(), t->job.name.c_str()) == 0) kept = t;
    }
    if (!kept) {
      add(j);
      continue;
    }
    if (!reconfig) continue;
    if (kept->job.reconfig && kept->run && kept->run->proc) kept->run->proc->signal(SIGHUP);
    if (kept->job.mode == CronMode::kOneShot && kept->job.reconfig_rerun) due(kept);
  }
}

void CronRunner::add(const startd::CronJob& job) {
  Task* t = new Task();
  t->owner = this;
  t->job = job;
  if (!job.condition.empty()) t->condition = classad::parse_expr(job.condition);
  uv_timer_init(loop_, &t->timer);
  t->timer.data = t;
  tasks_.push_back(t);
  KLOG_INFO("cron %s: %s %s every %llds", job.name.c_str(), startd::cron_mode_name(job.mode),
            job.executable.c_str(), static_cast<long long>(job.period));
  switch (job.mode) {
    case CronMode::kPeriodic:
      uv_timer_start(&t->timer, &CronRunner::on_due, 0, static_cast<uint64_t>(job.period) * 1000);
      break;
    case CronMode::kWaitForExit:
    case CronMode::kOneShot: uv_timer_start(&t->timer, &CronRunner::on_due, 0, 0); break;
    case CronMode::kOnDemand:
      // HTCondor runs OnDemand jobs only for the benchmarks; a startd cron job never runs.
      KLOG_WARN("cron %s: OnDemand mode: not run (only benchmarks run on demand)",
                job.name.c_str());
      break;
  }
}

void CronRunner::remove(Task* t) {
  tasks_.erase(std::find(tasks_.begin(), tasks_.end(), t));
  if (t->run) {
    t->run->task = nullptr;
    t->run->discard = true;
    kill_session(t->run);
    load_ -= t->job.job_load;
  }
  uv_close(reinterpret_cast<uv_handle_t*>(&t->timer),
           [](uv_handle_t* h) { delete static_cast<Task*>(h->data); });
}

void CronRunner::close() {
  // Shutdown: the handles close now (the loop's last walk must find none of ours open); the
  // runs, orphaned by remove(), are freed by their callbacks without publishing.
  while (!tasks_.empty()) remove(tasks_.back());
  hooks_.close();
}

void CronRunner::on_due(uv_timer_t* h) {
  Task* t = static_cast<Task*>(h->data);
  t->owner->due(t);
}

void CronRunner::due(Task* t) {
  if (t->run) {
    if (!t->job.kill || t->job.mode == CronMode::kWaitForExit || t->run->discard) {
      KLOG_DEBUG("cron %s: still running, not started again", t->job.name.c_str());
      return;
    }
    KLOG_WARN("cron %s: still running when due again: killed (STARTD_CRON_%s_KILL)",
              t->job.name.c_str(), t->job.name.c_str());
    t->run->discard = true;
    t->rerun = true;
    kill_session(t->run);
    return;
  }
  if (load_ + t->job.job_load > cfg_.max_job_load + 1e-9) {
    t->waiting = true;
    return;
  }
  if (t->condition && !sink_->cron_condition(t->condition.get())) {
    KLOG_DEBUG("cron %s: CONDITION is not true, not started", t->job.name.c_str());
    return;
  }
  start(t);
}

void CronRunner::start(Task* t) {
  t->waiting = false;
  t->rerun = false;
  const startd::CronJob& j = t->job;
  HookOptions o;
  o.name = "cron " + j.name;
  o.file = j.executable;
  o.argv = j.args;
  if (builtin_monitor(j, kite_words_, kite_config_, &o.file, &o.argv))
    KLOG_DEBUG("cron %s: %s is kite gpu-utilization", j.name.c_str(), j.executable.c_str());
  if (!j.env.empty()) {
    classad::Environment env;
    std::string ignore;
    for (char** e = environ; *e; ++e) env.set_entry(*e, &ignore);
    for (const std::string& e : j.env) env.set_entry(e, &ignore);
    o.env = env.entries();
  }
  o.cwd = j.cwd;
  Run* r = new Run(j.prefix);
  r->task = t;
  o.on_output = [r](const char* data, size_t n) {
    if (r->task && !r->discard) r->task->owner->read(r, data, n);
  };
  t->run = r;
  load_ += j.job_load;
  r->proc = hooks_.start(std::move(o), [r](const HookResult& res) {
    r->proc = nullptr;
    r->status = res.status;
    r->term_signal = res.term_signal;
    if (!r->task) {
      delete r;
      return;
    }
    if (!res.spawned) {
      KLOG_ERROR("cron %s: cannot run %s: %s", r->task->job.name.c_str(),
                 r->task->job.executable.c_str(), res.spawn_error.c_str());
      r->discard = true;
    }
    r->task->owner->finished(r);
  });
}

void CronRunner::read(Run* r, const char* data, size_t n) {
  const startd::CronJob& j = r->task->job;
  r->bytes += n;
  if (r->bytes > static_cast<size_t>(cfg_.max_output)) {
    KLOG_WARN("cron %s: more than %lld bytes of output: killed, its output ignored", j.name.c_str(),
              static_cast<long long>(cfg_.max_output));
    r->discard = true;
    kill_session(r);
    return;
  }
  std::string_view in(data, n);
  while (!in.empty()) {
    size_t nl = in.find('\n');
    if (nl == std::string_view::npos) {
      r->partial.append(in.data(), in.size());
      break;
    }
    if (r->partial.empty()) {
      flush_line(r, in.substr(0, nl));
    } else {
      r->partial.append(in.data(), nl);
      std::string line;
      line.swap(r->partial);
      flush_line(r, line);
    }
    in.remove_prefix(nl + 1);
  }
}

void CronRunner::flush_line(Run* r, std::string_view line) {
  const startd::CronJob& j = r->task->job;
  bool closed = r->parser.line(line);
  for (const std::string& e : r->parser.take_errors()) {
    if (r->logged++ < kMaxLoggedLines) KLOG_WARN("cron %s: ignored %s", j.name.c_str(), e.c_str());
  }
  if (!closed) return;
  if (j.mode == CronMode::kWaitForExit) {
    // A streaming monitor: each record counts as soon as it is complete.
    std::vector<startd::CronRecord> one;
    one.push_back(r->parser.take());
    r->bytes = 0;
    publish(r->task, &one);
  } else {
    r->records.push_back(r->parser.take());
  }
}

void CronRunner::publish(Task* t, std::vector<startd::CronRecord>* recs) {
  size_t dropped = 0;
  for (startd::CronRecord& rec : *recs) {
    auto known = [t](const std::pair<std::string, std::string>& a) {
      for (const std::string& n : t->names) {
        if (strcasecmp(n.c_str(), a.first.c_str()) == 0) return true;
      }
      if (t->names.size() >= kMaxNamesPerJob) return false;
      t->names.push_back(a.first);
      return true;
    };
    auto end = std::stable_partition(rec.attrs.begin(), rec.attrs.end(), known);
    dropped += static_cast<size_t>(rec.attrs.end() - end);
    rec.attrs.erase(end, rec.attrs.end());
  }
  if (dropped > 0) {
    KLOG_WARN("cron %s: %zu new attributes ignored: over %zu distinct attributes",
              t->job.name.c_str(), dropped, kMaxNamesPerJob);
  }
  sink_->cron_publish(t->job, recs);
}

void CronRunner::finished(Run* r) {
  Task* t = r->task;
  const startd::CronJob& j = t->job;
  t->run = nullptr;
  load_ -= j.job_load;
  if (!r->discard) {
    if (!r->partial.empty()) {
      std::string last;
      last.swap(r->partial);
      flush_line(r, last);
    }
    if (r->parser.finish()) r->records.push_back(r->parser.take());
    if (r->logged > kMaxLoggedLines) {
      KLOG_WARN("cron %s: %d more bad lines ignored", j.name.c_str(), r->logged - kMaxLoggedLines);
    }
    if ((r->status != 0 || r->term_signal != 0) && cfg_.log_non_zero_exit) {
      KLOG_WARN("cron %s: exited with status %lld (signal %d) after %d lines of output",
                j.name.c_str(), static_cast<long long>(r->status), r->term_signal,
                r->parser.lines());
    }
    if (!r->records.empty()) publish(t, &r->records);
  }
  delete r;
  if (t->rerun) {
    due(t);
  } else if (j.mode == CronMode::kWaitForExit) {
    uv_timer_start(&t->timer, &CronRunner::on_due, static_cast<uint64_t>(j.period) * 1000, 0);
  }
  retry_waiting();
}

void CronRunner::retry_waiting() {
  std::vector<Task*> waiting;
  for (Task* t : tasks_) {
    if (t->waiting && !t->run) waiting.push_back(t);
  }
  for (Task* t : waiting) due(t);
}

}  // namespace kite::agent
