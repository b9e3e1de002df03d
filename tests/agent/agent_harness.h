// Test harness for the agent integration tests: runs commands with captured output and a
// time limit, and runs a real `kite agent` in a private directory with its own socket,
// cgroup base and configuration, cleaning up every process and cgroup it leaves.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "agent/core/frame.h"

namespace kite::test {

/// The kite binary as a command line (it may start with an emulator under cross builds).
std::vector<std::string> kite_command();

struct CmdResult {
  int status = -1;  // exit code, 128+signal, or -1 on timeout
  std::string out, err;
};
/// Runs argv to completion (killed after timeout_ms).
CmdResult run_cmd(const std::vector<std::string>& argv, int timeout_ms = 30000);
/// Starts argv in the background with stdout/stderr to `out_file`.
pid_t spawn_bg(const std::vector<std::string>& argv, const std::string& out_file);
/// Waits for a background process; its exit code, 128+signal, or -1 on timeout.
int wait_bg(pid_t pid, int timeout_ms);

/// Polls `pred` every 20 ms until true or timeout.
template <typename Pred>
bool eventually(Pred pred, int timeout_ms);
bool wait_until(bool (*pred)(void*), void* arg, int timeout_ms);

/// Pids of processes whose command line (arguments joined by spaces) starts with `prefix`,
/// e.g. "/bin/sleep 33.5": the job's own processes, not a `kite run` or shell naming them.
std::vector<pid_t> pids_running(const std::string& prefix);
/// The state letter of /proc/<pid>/stat ('R', 'S', 'T', 'D', ...), 0 if gone.
char proc_state(pid_t pid);
std::string read_text(const std::string& path);

/// Skip reason when the machine cannot host these tests (not root), else "".
std::string agent_tests_unavailable();
#define REQUIRE_AGENT_TESTS()                                              \
  do {                                                                     \
    std::string why_unavailable = ::kite::test::agent_tests_unavailable(); \
    if (!why_unavailable.empty()) GTEST_SKIP() << why_unavailable;         \
  } while (0)

/// The exit report `kite run --json` printed last in `out` (empty Json when none).
core::Json exit_json(const std::string& out);

class TestAgent {
 public:
  TestAgent();
  ~TestAgent();
  /// Writes the configuration (the harness's base plus `extra`) and starts the agent; waits
  /// until its socket answers. False (with the agent's log in *err) when it does not come up.
  bool start(const std::string& extra, std::string* err);
  /// Starts again on the same directory and configuration (after kill9()).
  bool restart(std::string* err);
  void kill9();
  /// `kite off --local -fast` (or SIGKILL after a timeout); returns the agent's exit code.
  int stop();
  /// Waits for the agent to exit by itself; its exit code, or -1 on timeout.
  int wait_exit(int timeout_ms);
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  /// Runs `kite <args...> -c <config>`.
  CmdResult kite(std::vector<std::string> args, int timeout_ms = 30000) const;
  /// Starts `kite run --local --json ... -- cmd` in the background; output to `out_file`.
  pid_t run_bg(const std::vector<std::string>& run_args, const std::string& out_file) const;
  /// A slot's attribute from `kite status --local -l` (unparsed text), "" if absent.
  std::string slot_attr(const std::string& slot, const std::string& attr) const;
  std::string slot_state(const std::string& slot) const;  // "Claimed/Busy", "" if absent

  const std::string& dir() const { return dir_; }
  const std::string& config() const { return config_; }
  const std::string& cgroup_base() const { return base_; }
  std::string log() const;

 private:
  std::string dir_, config_, base_;
  pid_t pid_ = -1;
};

template <typename Pred>
bool eventually(Pred pred, int timeout_ms) {
  return wait_until([](void* p) { return (*static_cast<Pred*>(p))(); }, &pred, timeout_ms);
}

}  // namespace kite::test
