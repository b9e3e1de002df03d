// Job hooks run by the starter (PREPARE_JOB_BEFORE_TRANSFER, PREPARE_JOB, UPDATE_JOB_INFO,
// JOB_EXIT): one child per run through libuv, the job ad on its stdin, its stdout collected,
// killed with its whole process group after a timeout. HTCONDOR: ep-configuration "Job Hooks
// That Modify and Monitor Execution"; hooks.rst.
#pragma once

#include <sys/types.h>
#include <uv.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "policy/classad/classad.h"

namespace kite::starter {

struct HookSpec {
  std::string name;  // "PREPARE_JOB", for messages
  std::string path;
  std::vector<std::string> args;  // after argv[0]
  std::string input;              // stdin
  std::vector<std::string> env;
  std::string cwd;
  bool set_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
  int64_t timeout_s = 120;
};

struct HookResult {
  std::string name, path;
  bool started = false;
  std::string spawn_error;
  bool timed_out = false;
  int term_signal = 0;
  int64_t exit_status = 0;
  std::string out;
  bool out_too_long = false;
  std::string err;  // the first bytes of stderr, for the log
  /// "PREPARE_JOB hook /path".
  std::string label() const { return name + " hook " + path; }
};

/// One running hook. It deletes itself after calling `done` (from the loop).
class HookRun {
 public:
  using Done = std::function<void(const HookResult&)>;
  /// Never null: a hook that cannot be spawned reports that through `done`.
  static HookRun* start(uv_loop_t* loop, const HookSpec& spec, Done done);
  /// SIGKILL to the hook's process group (its result then says timed_out = false, signal 9).
  void kill();

 private:
  HookRun() = default;
  static void on_exit(uv_process_t* p, int64_t status, int sig);
  static void on_timer(uv_timer_t* t);
  static void on_closed(uv_handle_t* h);
  void close_handle(uv_handle_t* h);
  void finish_if_done();

  uv_process_t proc_{};
  uv_pipe_t in_{}, out_{}, err_{};
  uv_timer_t timer_{};
  uv_write_t write_req_{};
  std::string input_;
  int open_handles_ = 0;
  bool exited_ = false;
  bool spawned_ = false;
  HookResult result_;
  Done done_;
};

/// What a PREPARE hook's run means for the job.
struct HookVerdict {
  enum Kind { kOk, kHold, kRequeue } kind = kOk;
  int code = 0;  // HoldReasonCode (19) for kHold
  int subcode = 0;
  std::string message;
  classad::AdPtr updates;  // kOk: attributes to merge into the job ad
};
/// Applies the HookStatusCode/HookStatusMessage rules: status 0 success, 1..299 hold
/// (HoldReasonCode 19, HookPrepareJobFailure), 300 and up back to idle; output that is not a
/// ClassAd, a signal, a timeout or a failed spawn hold the job with a message naming the hook.
HookVerdict hook_judge_prepare(const HookResult& r);

}  // namespace kite::starter
