// The running job: reaping it, suspend/continue, soft and hard kill, usage updates and the
// UPDATE_JOB_INFO hook, OOM kills, the exit (with the JOB_EXIT hook), the lease without an
// agent, and the final cleanup.
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/core/files.h"
#include "agent/core/log.h"
#include "agent/starter/output_tail.h"
#include "agent/starter/sandbox.h"
#include "agent/starter/signals.h"
#include "agent/starter/starter_impl.h"

namespace kite::starter {
namespace {

constexpr int kHoldJobOutOfResources = 34;
constexpr size_t kMaxTail = 64 * 1024;    // per stream: the exit frame stays under 1 MiB
constexpr uint64_t kKillWaitMs = 5000;    // for the job cgroup to empty after a kill
constexpr uint64_t kFreezeWaitMs = 2000;  // for the cgroup freezer to report frozen
constexpr uint64_t kStopWaitMs = 200;     // for SIGSTOP to stop every process of the session

classad::Value real_value(double d) {
  return classad::Value::real(d);
}

}  // namespace

void Starter::on_sigchld() {
  if (job_pid_ <= 0 || (phase_ != Phase::kRunning && phase_ != Phase::kSuspended)) return;
  int status;
  struct rusage ru {};
  pid_t r;
  do {
    r = ::wait4(job_pid_, &status, WNOHANG, &ru);
  } while (r < 0 && errno == EINTR);
  if (r == job_pid_) on_job_exit(status, ru);
}

void Starter::sample_usage() {
  if (have_cgroup_) {
    usage_sample_cgroup(*cg_, job_cg_, &usage_);
  } else if (job_pid_ > 0) {
    usage_sample_session(job_pid_, &usage_);
  }
}

classad::AdPtr Starter::augmented_ad(const char* job_state) const {
  // HTCONDOR: the attributes UPDATE_JOB_INFO and JOB_EXIT hooks get on top of the job ad.
  classad::AdPtr ad(spec_.job->copy());
  ad->insert_value("JobState", classad::Value::string(job_state));
  ad->insert_value("JobPid", classad::Value::integer(job_pid_));
  ad->insert_value("NumPids", classad::Value::integer(usage_.num_pids));
  ad->insert_value("JobStartDate", classad::Value::integer(start_time_));
  ad->insert_value("RemoteSysCpu", real_value(usage_.sys_cpu));
  ad->insert_value("RemoteUserCpu", real_value(usage_.user_cpu));
  ad->insert_value("ImageSize", classad::Value::integer(usage_.peak_kib));
  ad->insert_value("ResidentSetSize", classad::Value::integer(usage_.rss_kib));
  ad->insert_value("MemoryUsage", classad::Value::integer((usage_.peak_kib + 1023) / 1024));
  return ad;
}

void Starter::on_usage_timer() {
  if (phase_ != Phase::kRunning && phase_ != Phase::kSuspended) return;
  sample_usage();
  core::Json u = core::Json::message("usage");
  usage_to_json(usage_, &u);
  broadcast(u);
  run_update_hook();
}

void Starter::run_update_hook() {
  if (spec_.hooks.update_job_info.empty() || update_hook_) return;
  HookSpec hs = hook_spec(
      "UPDATE_JOB_INFO", spec_.hooks.update_job_info,
      ad_to_old_text(*augmented_ad(phase_ == Phase::kSuspended ? "Suspended" : "Running")));
  // Advisory: output ignored, failures only logged.
  update_hook_ = HookRun::start(&loop_, hs, [this](const HookResult& r) {
    update_hook_ = nullptr;
    if (!r.started)
      KLOG_WARN("%s could not be executed: %s", r.label().c_str(), r.spawn_error.c_str());
    if (r.timed_out) KLOG_WARN("%s timed out", r.label().c_str());
  });
}

void Starter::on_oom() {
  int64_t n = hal::cgroup_oom_read(cg_->root(), &oom_);
  if (n <= 0) return;
  oom_kills_ += n;
  KLOG_WARN("the kernel OOM-killed %lld process(es) of the job (limit %lld MiB)",
            static_cast<long long>(n), static_cast<long long>(memory_limit_mib_));
  // HTCONDOR: a job over its memory limit is held, and the rest of it goes too.
  if (phase_ == Phase::kRunning || phase_ == Phase::kSuspended) kill_job_processes();
}

void Starter::kill_job_processes() {
  suspend_poll_.cancel();
  if (have_cgroup_) {
    // The kill is asynchronous: the reaper re-kills and watches the cgroup empty on a timer;
    // the job's exit arrives by SIGCHLD.
    if (!reaper_.active()) {
      reaper_.start(&loop_, cg_.get(), job_cg_, false, kKillWaitMs,
                    [](bool ok, const std::string& m) {
                      if (!ok) KLOG_ERROR("hard kill: %s", m.c_str());
                    });
    } else {
      cg_->kill_step(job_cg_);
    }
    if (cg_->frozen(job_cg_)) cg_->thaw(job_cg_);
    return;
  }
  if (job_pid_ <= 0) return;
  // Without a cgroup the job is its session's process group (daemonized descendants that
  // started their own session escape; the cgroup is what catches those).
  ::kill(-job_pid_, SIGKILL);
  ::kill(job_pid_, SIGKILL);
  for (pid_t p : session_pids(job_pid_)) ::kill(p, SIGKILL);
}

void Starter::suspend(AgentConn* c) {
  if (phase_ == Phase::kSuspended) {
    if (c) send(c, core::Json::message("suspended"));
    return;
  }
  if (phase_ != Phase::kRunning) {
    if (c)
      reply_error(c, std::string("suspend: the job is not running (state ") + phase_name() + ")");
    return;
  }
  if (suspend_poll_.active()) return;  // a suspend in progress reports to everyone
  if (can_freeze_) {
    hal::Status st = cg_->freeze_request(job_cg_);
    if (!st.ok) {
      KLOG_ERROR("suspend: %s", st.message.c_str());
      if (c) reply_error(c, "suspend: " + st.message);
      return;
    }
  } else if (::kill(-job_pid_, SIGSTOP) != 0) {
    if (c) reply_error(c, std::string("suspend: SIGSTOP: ") + std::strerror(errno));
    return;
  }
  // Freezing and stopping complete asynchronously: "suspended" only once the kernel says so,
  // polled on a timer (bounded; a process in uninterruptible sleep stops when it wakes up).
  suspend_poll_.start(
      &loop_, 1, can_freeze_ ? kFreezeWaitMs : kStopWaitMs,
      [this]() {
        if (!can_freeze_) return session_stopped(job_pid_);
        if (cg_->frozen(job_cg_)) return true;
        if (!job_cg_.v2_freeze) cg_->freeze_request(job_cg_);  // a v1 freezer may need asking again
        return false;
      },
      [this](bool ok) {
        if (!ok && can_freeze_) {
          std::string m = "suspend: " + job_cg_.name + " did not freeze within 2 s";
          KLOG_ERROR("%s", m.c_str());
          core::Json e = core::Json::message("error");
          e.set("message", m);
          broadcast(e);
          return;
        }
        phase_ = Phase::kSuspended;
        KLOG_INFO("job suspended%s", can_freeze_ ? " (cgroup frozen)" : " (SIGSTOP)");
        save_state();
        broadcast(core::Json::message("suspended"));
      });
}

void Starter::resume(AgentConn* c) {
  if (suspend_poll_.active()) {
    // Continue before the suspend completed: undo it.
    suspend_poll_.cancel();
    if (can_freeze_) {
      cg_->thaw(job_cg_);
    } else {
      ::kill(-job_pid_, SIGCONT);
    }
  }
  if (phase_ == Phase::kRunning) {
    if (c) send(c, core::Json::message("continued"));
    return;
  }
  if (phase_ != Phase::kSuspended) {
    if (c)
      reply_error(c,
                  std::string("continue: the job is not suspended (state ") + phase_name() + ")");
    return;
  }
  if (can_freeze_) {
    hal::Status st = cg_->thaw(job_cg_);
    if (!st.ok) {
      KLOG_ERROR("continue: %s", st.message.c_str());
      if (c) reply_error(c, "continue: " + st.message);
      return;
    }
  } else {
    ::kill(-job_pid_, SIGCONT);
  }
  phase_ = Phase::kRunning;
  KLOG_INFO("job continued");
  save_state();
  broadcast(core::Json::message("continued"));
}

void Starter::soft_kill(AgentConn* c, int sig) {
  if (phase_ == Phase::kPreparing) {
    hard_kill("the agent asked for a soft kill before the job started");
    return;
  }
  if (phase_ != Phase::kRunning && phase_ != Phase::kSuspended) return;
  // A stopped job could not act on its KillSig: let it run to handle it.
  if (phase_ == Phase::kSuspended) resume(nullptr);
  if (sig <= 0) sig = kill_sig_;
  kill_requested_ = true;
  if (kill_reason_.empty()) kill_reason_ = std::string("soft kill (") + signal_name(sig) + ")";
  KLOG_INFO("soft kill: %s to pid %d", signal_name(sig), static_cast<int>(job_pid_));
  if (::kill(job_pid_, sig) != 0 && c) {
    reply_error(c, std::string("soft-kill: ") + std::strerror(errno));
  }
}

void Starter::hard_kill(const std::string& why) {
  if (phase_ == Phase::kPreparing) {
    kill_requested_ = true;
    abort_prepare_ = true;
    kill_reason_ = why;
    if (hook_) hook_->kill();
    return;
  }
  if (phase_ != Phase::kRunning && phase_ != Phase::kSuspended) return;
  kill_requested_ = true;
  kill_reason_ = why;
  KLOG_INFO("hard kill: %s", why.c_str());
  kill_job_processes();
}

void Starter::on_job_exit(int status, const struct rusage& ru) {
  phase_ = Phase::kFinishing;
  if (usage_timer_on_) {
    uv_timer_stop(&usage_timer_);
    usage_timer_on_ = false;
  }
  double duration = static_cast<double>(uv_now(&loop_) - start_mono_ms_) / 1000.0;
  if (have_cgroup_) {
    usage_sample_cgroup(*cg_, job_cg_, &usage_);
  } else {
    // wait4 counts the job and the children it waited for.
    usage_.user_cpu = static_cast<double>(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec / 1e6;
    usage_.sys_cpu = static_cast<double>(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec / 1e6;
    if (ru.ru_maxrss > usage_.peak_kib) usage_.peak_kib = ru.ru_maxrss;
  }
  usage_.num_pids = 0;
  // What the job left behind goes with it; the exit is reported once it is gone.
  suspend_poll_.cancel();
  if (!have_cgroup_) {
    kill_job_processes();
    return report_job_exit(status, duration);
  }
  reaper_.start(&loop_, cg_.get(), job_cg_, false, kKillWaitMs,
                [this, status, duration](bool ok, const std::string& m) {
                  if (!ok) KLOG_ERROR("killing what the job left: %s", m.c_str());
                  if (cg_->frozen(job_cg_)) cg_->thaw(job_cg_);
                  if (!stopping_) report_job_exit(status, duration);
                });
}

void Starter::report_job_exit(int status, double duration) {
  if (oom_poll_on_) on_oom();

  core::Json exit = core::Json::object();
  std::string reason, outcome;
  bool by_signal = WIFSIGNALED(status);
  if (by_signal) {
    exit.set_bool("ExitBySignal", true).set("ExitSignal", WTERMSIG(status));
    reason = std::string("died on signal ") + std::to_string(WTERMSIG(status)) + " (" +
             signal_name(WTERMSIG(status)) + ")";
  } else {
    exit.set_bool("ExitBySignal", false).set("ExitCode", WEXITSTATUS(status));
    reason = "exited normally with status " + std::to_string(WEXITSTATUS(status));
  }
  if (oom_kills_ > 0) {
    outcome = "hold";
    // HTCONDOR: JobOutOfResources, the starter's memory-limit hold message.
    int64_t limit = memory_limit_mib_ > 0 ? memory_limit_mib_ : spec_.memory_mb;
    std::string msg = "Job has gone over memory limit of " + std::to_string(limit) +
                      " megabytes. Peak usage: " + std::to_string((usage_.peak_kib + 1023) / 1024) +
                      " megabytes.";
    exit.set("HoldReason", msg)
        .set("HoldReasonCode", kHoldJobOutOfResources)
        .set("HoldReasonSubCode", 0);
    reason = msg;
  } else if (kill_requested_) {
    outcome = "evict";
    exit.set("VacateReason", kill_reason_);
    reason = "evicted: " + kill_reason_ + "; " + reason;
  } else {
    outcome = "exit";
  }
  exit.set("outcome", outcome).set("ExitReason", reason);
  exit.set_real("JobDuration", duration).set("JobStartDate", start_time_);
  usage_to_json(usage_, &exit);
  if (spec_.return_output > 0) {
    size_t max = static_cast<size_t>(spec_.return_output);
    if (max > kMaxTail) max = kMaxTail;
    AsUser as(change_user_, user_.uid, user_.gid);
    if (out_path_ != "/dev/null") exit.set("stdout", output_tail(out_path_, max));
    if (err_path_ != "/dev/null" && err_path_ != out_path_)
      exit.set("stderr", output_tail(err_path_, max));
  }
  KLOG_INFO("job %s: %s (%.3f s)", outcome.c_str(), reason.c_str(), duration);

  if (spec_.hooks.job_exit.empty()) return publish_exit(std::move(exit));
  classad::AdPtr ad = augmented_ad("Exited");
  ad->insert_value("ExitReason", classad::Value::string(reason));
  ad->insert_value("ExitBySignal", classad::Value::boolean(by_signal));
  if (by_signal) {
    ad->insert_value("ExitSignal", classad::Value::integer(WTERMSIG(status)));
  } else {
    ad->insert_value("ExitCode", classad::Value::integer(WEXITSTATUS(status)));
  }
  ad->insert_value("JobDuration", real_value(duration));
  HookSpec hs = hook_spec("JOB_EXIT", spec_.hooks.job_exit, ad_to_old_text(*ad));
  hs.args = {outcome};
  KLOG_INFO("running JOB_EXIT hook %s %s", hs.path.c_str(), outcome.c_str());
  auto shared = std::make_shared<core::Json>(std::move(exit));
  hook_ = HookRun::start(&loop_, hs, [this, shared](const HookResult& r) {
    hook_ = nullptr;
    if (stopping_) return;
    if (!r.started)
      KLOG_WARN("%s could not be executed: %s", r.label().c_str(), r.spawn_error.c_str());
    if (r.timed_out) KLOG_WARN("%s timed out and was killed", r.label().c_str());
    publish_exit(std::move(*shared));
  });
}

void Starter::publish_exit(core::Json exit) {
  if (stopping_) return;
  if (usage_timer_on_) {
    uv_timer_stop(&usage_timer_);
    usage_timer_on_ = false;
  }
  phase_ = Phase::kExited;
  exit_ = std::move(exit);
  exited_mono_ms_ = uv_now(&loop_);
  save_state();
  core::Json frame = core::Json::message("exit");
  frame.set_json("exit", core::Json(cJSON_Duplicate(exit_.get(), true)));
  broadcast(frame);
  arm_lease_timer();
}

void Starter::arm_lease_timer() {
  if (uv_is_closing(reinterpret_cast<uv_handle_t*>(&lease_timer_))) return;
  uv_timer_stop(&lease_timer_);
  if (stopping_ || !conns_.empty() || phase_ == Phase::kFinishing) return;
  // Without an agent the job may run for one lease; its exit is kept for one more lease
  // (counted from the exit if that came later), then the starter cleans up and goes.
  uint64_t from = disconnected_since_ms_;
  if (phase_ == Phase::kExited && exited_mono_ms_ > from) from = exited_mono_ms_;
  uint64_t due = from + static_cast<uint64_t>(spec_.lease) * 1000;
  uint64_t now = uv_now(&loop_);
  uv_timer_start(
      &lease_timer_, [](uv_timer_t* t) { static_cast<Starter*>(t->data)->on_lease_timer(); },
      due > now ? due - now : 0, 0);
}

void Starter::on_lease_timer() {
  if (stopping_ || !conns_.empty()) return;
  if (phase_ == Phase::kExited) {
    KLOG_WARN("no agent for a lease (%lld s) after the exit: cleaning up",
              static_cast<long long>(spec_.lease));
    shutdown(0);
    return;
  }
  KLOG_WARN("no agent for longer than the lease (%lld s): killing the job",
            static_cast<long long>(spec_.lease));
  hard_kill("the claim lease expired with no agent connected");
}

void Starter::release(AgentConn* c) {
  if (phase_ != Phase::kExited) {
    reply_error(c, std::string("release: the job has not exited (state ") + phase_name() +
                       "); hard-kill it first");
    return;
  }
  KLOG_INFO("released by the agent: cleaning up");
  shutdown(0);
}

void Starter::shutdown(int status) {
  if (stopping_) return;
  stopping_ = true;
  exit_status_ = status;
  if (hook_) hook_->kill();
  if (update_hook_) update_hook_->kill();
  if (oom_poll_on_) {
    uv_close(reinterpret_cast<uv_handle_t*>(&oom_poll_), nullptr);
    oom_poll_on_ = false;
  }
  hal::cgroup_oom_close(&oom_);
  suspend_poll_.cancel();
  if (!have_cgroup_) return finish_shutdown();
  reaper_.start(&loop_, cg_.get(), job_cg_, true, kKillWaitMs,
                [this](bool ok, const std::string& m) {
                  if (!ok) KLOG_ERROR("cgroup cleanup: %s", m.c_str());
                  finish_shutdown();
                });
}

void Starter::finish_shutdown() {
  std::string err;
  if (!sandbox_.empty() && !core::remove_tree(sandbox_, &err)) {
    KLOG_ERROR("sandbox cleanup: %s", err.c_str());
  }
  std::vector<AgentConn*> all = conns_;
  for (AgentConn* c : all) close_conn(c);
  for (uv_handle_t* h :
       {reinterpret_cast<uv_handle_t*>(&server_), reinterpret_cast<uv_handle_t*>(&sigchld_),
        reinterpret_cast<uv_handle_t*>(&sigterm_), reinterpret_cast<uv_handle_t*>(&sigint_),
        reinterpret_cast<uv_handle_t*>(&usage_timer_),
        reinterpret_cast<uv_handle_t*>(&lease_timer_)}) {
    if (!uv_is_closing(h)) uv_close(h, nullptr);
  }
  KLOG_INFO("done");
  if (!core::remove_tree(dir_, &err)) KLOG_ERROR("cleanup of %s: %s", dir_.c_str(), err.c_str());
}

}  // namespace kite::starter
