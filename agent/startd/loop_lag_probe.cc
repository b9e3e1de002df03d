// LoopLagProbe: measured with uv_hrtime(), independent of the loop's cached time.
#include "agent/startd/loop_lag_probe.h"

#include "agent/core/log.h"

namespace kite::agent {

void LoopLagProbe::start(uv_loop_t* loop) {
  if (on_) return;
  uv_timer_init(loop, &timer_);
  timer_.data = this;
  due_ns_ = uv_hrtime() + kIntervalMs * 1000000;
  uv_timer_start(&timer_, on_timer, kIntervalMs, 0);
  on_ = true;
}

void LoopLagProbe::on_timer(uv_timer_t* t) {
  auto* self = static_cast<LoopLagProbe*>(t->data);
  uint64_t now = uv_hrtime();
  uint64_t lag_us = now > self->due_ns_ ? (now - self->due_ns_) / 1000 : 0;
  if (lag_us > self->max_lag_us_) self->max_lag_us_ = lag_us;
  if (lag_us >= kLogAtUs) {
    KLOG_INFO("loop lag %.1f ms (max %.1f ms)", static_cast<double>(lag_us) / 1000.0,
              static_cast<double>(self->max_lag_us_) / 1000.0);
  }
  // Re-armed from now: one stall is counted once, not again by every tick it delayed.
  self->due_ns_ = now + kIntervalMs * 1000000;
  uv_timer_start(t, on_timer, kIntervalMs, 0);
}

void LoopLagProbe::stop() {
  if (!on_) return;
  on_ = false;
  uv_timer_stop(&timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
}

}  // namespace kite::agent
