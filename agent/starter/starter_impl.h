// The starter's state and event handlers, shared by its source files: starter.cc (start-up,
// preparation, launch), agent_link.cc (the socket, frames, state.json), job_control.cc
// (signals, suspend, kill, usage, OOM, exit, lease, cleanup). One libuv loop, one thread.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>
#include <uv.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/core/frame.h"
#include "agent/starter/deadline_poll.h"
#include "agent/starter/hooks.h"
#include "agent/starter/job_env.h"
#include "agent/starter/job_spec.h"
#include "agent/starter/usage.h"
#include "agent/starter/user.h"
#include "hal/cgroup.h"

namespace kite::starter {

class Starter;

/// One agent connection on DIR/sock.
struct AgentConn {
  uv_pipe_t pipe{};
  Starter* owner = nullptr;
  core::FrameReader reader;
  int bad_frames = 0;
  bool closing = false;
};

class Starter {
 public:
  // What the hello frame's "state" says; kFinishing is the job gone but its exit not yet
  // published (leftover processes being killed, the JOB_EXIT hook running): still "running".
  enum class Phase { kPreparing, kRunning, kSuspended, kFinishing, kExited };

  Starter(std::string dir, JobSpec spec);
  ~Starter();
  /// Runs the loop until release or lease cleanup. The process exit status.
  int run();

  // ---- agent_link.cc
  bool listen(std::string* err);
  void on_connection();
  void on_read(AgentConn* c, ssize_t n, const uv_buf_t* buf);
  void on_frame(AgentConn* c, const core::Json& msg);
  void close_conn(AgentConn* c);
  void send(AgentConn* c, const core::Json& msg);
  void broadcast(const core::Json& msg);
  void reply_error(AgentConn* c, const std::string& message);
  /// The hello frame: also the content of state.json.
  core::Json hello() const;
  /// Writes state.json (atomically). Logged, not fatal, on failure.
  void save_state();
  const char* phase_name() const;

  // ---- starter.cc
  void prepare();
  void run_prepare_hook(const std::string& name, const std::string& path, void (Starter::*next)());
  void after_before_transfer_hook();
  void launch();
  /// False (with *why) when a configured limit cannot be applied and ALLOW_UNCONFINED_JOBS
  /// is not set: the job must not run.
  bool setup_cgroup(std::string* why);
  /// The job cannot (or will not) run: publish an exit without a job process.
  void fail_before_start(const char* outcome, int code, int subcode, const std::string& reason);
  std::vector<std::string> hook_env() const;
  /// A hook run as the job's user in its sandbox, with `input` on its stdin.
  HookSpec hook_spec(const char* name, const std::string& path, std::string input) const;
  bool rewrite_job_ad(std::string* err);

  // ---- job_control.cc
  void on_sigchld();
  void on_job_exit(int status, const struct rusage& ru);
  /// The rest of on_job_exit, once what the job left in its cgroup is gone.
  void report_job_exit(int status, double duration);
  void on_oom();
  void on_usage_timer();
  void on_lease_timer();
  void suspend(AgentConn* c);
  void resume(AgentConn* c);
  void soft_kill(AgentConn* c, int sig);
  void hard_kill(const std::string& why);
  void kill_job_processes();
  void publish_exit(core::Json exit);
  void arm_lease_timer();
  void release(AgentConn* c);
  void shutdown(int status);
  void finish_shutdown();
  void sample_usage();
  classad::AdPtr augmented_ad(const char* job_state) const;
  void run_update_hook();

  // ---- state
  std::string dir_;
  JobSpec spec_;
  uv_loop_t loop_{};
  Phase phase_ = Phase::kPreparing;
  int exit_status_ = 0;
  bool stopping_ = false;

  std::string sandbox_;
  UserInfo user_;
  bool change_user_ = false;
  int kill_sig_ = 15;
  std::string out_path_, err_path_;  // the job's stdout/stderr files, for the tails

  pid_t job_pid_ = -1;
  int64_t start_time_ = 0;  // epoch seconds
  uint64_t start_mono_ms_ = 0;
  Usage usage_;

  std::unique_ptr<hal::Cgroups> cg_;
  hal::JobCgroup job_cg_;
  bool have_cgroup_ = false;
  bool can_freeze_ = false;
  hal::OomWatch oom_;
  uv_poll_t oom_poll_{};
  bool oom_poll_on_ = false;
  int64_t oom_kills_ = 0;
  int64_t memory_limit_mib_ = 0;  // the hard limit set, for the OOM hold message
  CgroupReaper reaper_;           // kills and waits for the job cgroup to empty, off the loop
  DeadlinePoll suspend_poll_;     // waits for a freeze (or SIGSTOP) to complete

  bool kill_requested_ = false;  // soft/hard kill from the agent (outcome evict)
  std::string kill_reason_;
  bool abort_prepare_ = false;

  core::Json exit_;  // once exited
  uint64_t exited_mono_ms_ = 0;

  HookRun* hook_ = nullptr;         // the prepare or exit hook in progress
  HookRun* update_hook_ = nullptr;  // UPDATE_JOB_INFO in progress

  uv_pipe_t server_{};
  std::vector<AgentConn*> conns_;
  uint64_t disconnected_since_ms_ = 0;

  uv_signal_t sigchld_{}, sigterm_{}, sigint_{};
  uv_timer_t usage_timer_{}, lease_timer_{};
  bool usage_timer_on_ = false;
};

}  // namespace kite::starter
