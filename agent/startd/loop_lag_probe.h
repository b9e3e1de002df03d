// A loop-lag probe: a repeating libuv timer that compares when it fires with when it was due,
// so a callback that blocks the loop shows up as lag. Enabled by AGENT_LOOP_LAG_PROBE; each
// lag of 5 ms or more is logged ("loop lag N ms (max M ms)"), which scripts/bench-agent reads.
#pragma once

#include <uv.h>

#include <cstdint>

namespace kite::agent {

class LoopLagProbe {
 public:
  static constexpr uint64_t kIntervalMs = 10;
  static constexpr uint64_t kLogAtUs = 5000;

  void start(uv_loop_t* loop);
  void stop();
  uint64_t max_lag_us() const { return max_lag_us_; }

 private:
  static void on_timer(uv_timer_t* t);
  uv_timer_t timer_{};
  bool on_ = false;
  uint64_t due_ns_ = 0;
  uint64_t max_lag_us_ = 0;
};

}  // namespace kite::agent
