// Runs startd cron monitors: schedules (Periodic, WaitForExit, OneShot), child processes with
// their stdout read line by line through libuv, the byte cap, _KILL and _JOB_LOAD.
#include "agent/startd/cron_runner.h"

#include <signal.h>
#include <strings.h>

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
  Task* task = nullptr;  // null once the task was removed: finish without publishing
  uv_process_t proc{};
  uv_pipe_t out{};
  int open = 0;  // handles not yet closed
  bool exited = false;
  bool discard = false;  // killed (hang or flood): its output is dropped
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

void on_alloc(uv_handle_t*, size_t, uv_buf_t* buf) {
  static char chunk[8192];  // one read at a time on the single loop thread
  *buf = uv_buf_init(chunk, sizeof chunk);
}

bool same_job(const startd::CronJob& a, const startd::CronJob& b) {
  return a.executable == b.executable && a.args == b.args && a.env == b.env && a.cwd == b.cwd &&
         a.period == b.period && a.mode == b.mode && a.kill == b.kill && a.prefix == b.prefix &&
         a.slots == b.slots && a.job_load == b.job_load && a.condition == b.condition &&
         a.reconfig == b.reconfig && a.reconfig_rerun == b.reconfig_rerun;
}

void kill_session(const CronRunner::Run* r) {
  if (r->proc.pid > 0) ::kill(-r->proc.pid, SIGKILL);
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
    if (kept->job.reconfig && kept->run && !kept->run->exited) ::kill(kept->run->proc.pid, SIGHUP);
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
  // Shutdown: the handles close now (the loop's last walk must find none of ours open).
  for (Task* t : tasks_) {
    if (!t->run) continue;
    for (uv_handle_t* h : {reinterpret_cast<uv_handle_t*>(&t->run->proc),
                           reinterpret_cast<uv_handle_t*>(&t->run->out)}) {
      if (!uv_is_closing(h)) uv_close(h, &CronRunner::on_handle_closed);
    }
  }
  while (!tasks_.empty()) remove(tasks_.back());
}

void CronRunner::on_due(uv_timer_t* h) {
  Task* t = static_cast<Task*>(h->data);
  t->owner->due(t);
}

void CronRunner::on_handle_closed(uv_handle_t* h) {
  Run* r = static_cast<Run*>(h->data);
  if (--r->open > 0) return;
  if (r->task)
    r->task->owner->finished(r);
  else
    delete r;
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
  std::vector<char*> argv;
  for (const std::string& a : j.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> env_entries;
  std::vector<char*> envp;
  if (!j.env.empty()) {
    classad::Environment env;
    std::string ignore;
    for (char** e = environ; *e; ++e) env.set_entry(*e, &ignore);
    for (const std::string& e : j.env) env.set_entry(e, &ignore);
    env_entries = env.entries();
    for (std::string& e : env_entries) envp.push_back(&e[0]);
    envp.push_back(nullptr);
  }
  Run* r = new Run(j.prefix);
  r->task = t;
  uv_pipe_init(loop_, &r->out, 0);
  r->out.data = r;
  uv_stdio_container_t stdio[3];
  stdio[0].flags = UV_IGNORE;
  stdio[1].flags = static_cast<uv_stdio_flags>(UV_CREATE_PIPE | UV_WRITABLE_PIPE);
  stdio[1].data.stream = reinterpret_cast<uv_stream_t*>(&r->out);
  stdio[2].flags = UV_IGNORE;
  uv_process_options_t po{};
  po.file = j.executable.c_str();
  po.args = argv.data();
  po.env = envp.empty() ? nullptr : envp.data();
  po.cwd = j.cwd.empty() ? nullptr : j.cwd.c_str();
  po.stdio = stdio;
  po.stdio_count = 3;
  po.flags = UV_PROCESS_DETACHED;  // its own session: a kill reaches what it started
  po.exit_cb = [](uv_process_t* p, int64_t status, int sig) {
    Run* run = static_cast<Run*>(p->data);
    run->exited = true;
    run->status = status;
    run->term_signal = sig;
    // Whatever it left in the pipe stays readable; helpers still holding it open would keep
    // the record from ever completing, so the session goes.
    kill_session(run);
    uv_close(reinterpret_cast<uv_handle_t*>(p), &CronRunner::on_handle_closed);
  };
  r->proc.data = r;
  r->open = 2;
  int rc = uv_spawn(loop_, &r->proc, &po);
  t->run = r;
  load_ += j.job_load;
  if (rc != 0) {
    KLOG_ERROR("cron %s: cannot run %s: %s", j.name.c_str(), j.executable.c_str(), uv_strerror(rc));
    r->exited = true;
    r->discard = true;
    uv_close(reinterpret_cast<uv_handle_t*>(&r->proc), &CronRunner::on_handle_closed);
    uv_close(reinterpret_cast<uv_handle_t*>(&r->out), &CronRunner::on_handle_closed);
    return;
  }
  uv_read_start(reinterpret_cast<uv_stream_t*>(&r->out), on_alloc,
                [](uv_stream_t* s, ssize_t n, const uv_buf_t* b) {
                  Run* run = static_cast<Run*>(s->data);
                  if (n > 0 && run->task && !run->discard)
                    run->task->owner->read(run, b->base, static_cast<size_t>(n));
                  if (n < 0 || run->discard) {
                    if (!uv_is_closing(reinterpret_cast<uv_handle_t*>(s)))
                      uv_close(reinterpret_cast<uv_handle_t*>(s), &CronRunner::on_handle_closed);
                  }
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
