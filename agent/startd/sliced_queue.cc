// SlicedQueue: a 1 ms re-arm (never 0 ms, which libuv would run again in the same pass) gives
// the rest of the loop its turn between slices.
#include "agent/startd/sliced_queue.h"

namespace kite::agent {

void SlicedQueue::start(uv_loop_t* loop) {
  if (on_) return;
  uv_timer_init(loop, &timer_);
  timer_.data = this;
  on_ = true;
}

void SlicedQueue::stop() {
  items_.clear();
  if (!on_) return;
  on_ = false;
  uv_timer_stop(&timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), nullptr);
}

void SlicedQueue::push(std::function<void()> fn) {
  if (!on_) return;
  items_.push_back(std::move(fn));
  if (!uv_is_active(reinterpret_cast<uv_handle_t*>(&timer_)))
    uv_timer_start(&timer_, on_timer, 0, 0);
}

void SlicedQueue::on_timer(uv_timer_t* t) {
  auto* q = static_cast<SlicedQueue*>(t->data);
  uint64_t end = uv_hrtime() + kBudgetUs * 1000;
  while (!q->items_.empty() && q->on_) {
    std::function<void()> fn = std::move(q->items_.front());
    q->items_.pop_front();
    fn();  // may push more
    if (uv_hrtime() >= end) break;
  }
  if (q->on_ && !q->items_.empty()) uv_timer_start(&q->timer_, on_timer, 1, 0);
}

}  // namespace kite::agent
