// Child processes for the startd's job hooks and the backfill client on the agent's libuv
// loop: a program with a text on its stdin, its stdout read as it comes (capped), an optional
// time limit after which its whole session is killed, and a callback once it is gone. Never
// blocks the loop.
#pragma once

#include <sys/types.h>
#include <uv.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kite::agent {

struct HookOptions {
  std::string name;               // for log lines: "fetch-work hook /path (slot1)"
  std::string file;               // the program; empty: argv[0]
  std::vector<std::string> argv;  // argv[0] first
  std::vector<std::string> env;   // NAME=value entries; empty: the agent's environment
  std::string cwd;                // empty: the agent's
  std::string input;              // written to its stdin (empty: /dev/null)
  bool capture = true;            // read stdout (else /dev/null)
  size_t max_output = 64 * 1024;  // more than this: killed, output dropped
  uint64_t timeout_ms = 0;        // 0: no limit
  bool set_user = false;          // run as uid/gid (supplementary groups dropped)
  uid_t uid = 0;
  gid_t gid = 0;
  // Set: stdout goes here as it comes (no cap, nothing kept in HookResult::output).
  std::function<void(const char* data, size_t n)> on_output;
};

struct HookResult {
  bool spawned = false;
  std::string spawn_error;
  int64_t status = 0;
  int term_signal = 0;
  bool timed_out = false;  // killed at timeout_ms
  bool overflow = false;   // killed for printing more than max_output
  std::string output;
};

class HookRunner;

/// One running hook. Owned by its runner; freed after its callback.
class HookProcess {
 public:
  pid_t pid() const { return proc_.pid; }
  /// SIGKILL to its session (what it started goes too). The callback still comes.
  void kill();
  /// `sig` to the process itself, while it has not exited.
  void signal(int sig);

 private:
  friend class HookRunner;
  HookProcess() = default;
  void closed();
  static void on_closed(uv_handle_t* h);

  HookRunner* runner_ = nullptr;
  HookOptions opts_;
  std::function<void(const HookResult&)> done_;
  HookResult result_;
  uv_process_t proc_{};
  uv_pipe_t in_{}, out_{};
  uv_timer_t timer_{};
  uv_write_t write_{};
  int open_ = 0;  // handles not closed yet
  bool exited_ = false;
  bool silent_ = false;  // the runner is closing: no callback
};

/// Starts hooks and keeps track of the running ones (so shutdown can close them).
class HookRunner {
 public:
  explicit HookRunner(uv_loop_t* loop) : loop_(loop) {}
  ~HookRunner() { close(); }
  HookRunner(const HookRunner&) = delete;
  HookRunner& operator=(const HookRunner&) = delete;

  /// Runs `opts`; `done` is called on the loop once the process and its pipes are gone (also
  /// when it could not be started: spawned false). Returns the process, valid until then.
  HookProcess* start(HookOptions opts, std::function<void(const HookResult&)> done);
  /// Kills every running hook and closes its handles (before the loop's last run); their
  /// callbacks come from that run.
  void close();
  size_t running() const { return live_.size(); }

 private:
  friend class HookProcess;
  uv_loop_t* loop_;
  std::vector<HookProcess*> live_;
};

}  // namespace kite::agent
