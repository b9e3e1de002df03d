// Waits on the kernel without blocking a libuv loop: a timer runs a step until it reports
// done or a deadline passes (a cgroup emptying after a kill, a freeze completing).
#pragma once

#include <uv.h>

#include <cstdint>
#include <functional>

#include "hal/cgroup.h"

namespace kite::starter {

class DeadlinePoll {
 public:
  /// Returns true when the wait is over.
  using Step = std::function<bool()>;
  /// `ok` is false when the deadline passed first.
  using Done = std::function<void(bool ok)>;

  DeadlinePoll() = default;
  DeadlinePoll(const DeadlinePoll&) = delete;
  DeadlinePoll& operator=(const DeadlinePoll&) = delete;
  ~DeadlinePoll() { cancel(); }

  /// Runs `step` now (unless !step_now) and then every `interval_ms` until it returns true
  /// (then done(true)) or `deadline_ms` have passed (then done(false)). A poll already
  /// running is cancelled. `done` may destroy this object.
  void start(uv_loop_t* loop, uint64_t interval_ms, uint64_t deadline_ms, Step step, Done done,
             bool step_now = true);
  /// Stops without calling `done`.
  void cancel();
  bool active() const { return timer_ != nullptr; }

 private:
  static void on_timer(uv_timer_t* t);
  void finish(bool ok);

  uv_timer_t* timer_ = nullptr;  // heap: it may outlive this object while closing
  uint64_t deadline_ = 0;        // loop time
  Step step_;
  Done done_;
};

/// Kills a job cgroup and waits for it to empty on a DeadlinePoll: kill_step() now, then
/// is_empty() every few milliseconds (killing again when the kernel has no cgroup.kill),
/// and, with `remove`, removes its directories once they are free. done(ok, message).
/// `check_now`: look at once (a job that just exited usually left nothing), else first after
/// one interval (a burst of kills then costs the loop one write each).
class CgroupReaper {
 public:
  using Done = std::function<void(bool ok, const std::string& message)>;
  void start(uv_loop_t* loop, const hal::Cgroups* cg, hal::JobCgroup job, bool remove,
             uint64_t deadline_ms, Done done, bool check_now = true);
  void cancel() { poll_.cancel(); }
  bool active() const { return poll_.active(); }

 private:
  const hal::Cgroups* cg_ = nullptr;
  hal::JobCgroup job_;
  bool remove_ = false;
  std::string error_;
  DeadlinePoll poll_;
};

}  // namespace kite::starter
