// Work the agent's loop does in slices: queued items run on a 1 ms timer until a time budget
// per turn is spent, so a burst (64 jobs killed at once) never holds the loop for long.
#pragma once

#include <uv.h>

#include <cstdint>
#include <deque>
#include <functional>

namespace kite::agent {

class SlicedQueue {
 public:
  static constexpr uint64_t kBudgetUs = 8000;

  void start(uv_loop_t* loop);
  /// Drops what is queued and closes the timer (before the loop closes).
  void stop();
  /// Runs `fn` on a later turn of the loop (dropped once stopped).
  void push(std::function<void()> fn);

 private:
  static void on_timer(uv_timer_t* t);
  uv_timer_t timer_{};
  bool on_ = false;
  std::deque<std::function<void()>> items_;
};

}  // namespace kite::agent
