// DeadlinePoll and CgroupReaper: bounded waits on the kernel driven by a libuv timer.
#include "agent/starter/deadline_poll.h"

namespace kite::starter {

void DeadlinePoll::start(uv_loop_t* loop, uint64_t interval_ms, uint64_t deadline_ms, Step step,
                         Done done, bool step_now) {
  cancel();
  step_ = std::move(step);
  done_ = std::move(done);
  if (step_now && step_()) return finish(true);
  timer_ = new uv_timer_t{};
  uv_timer_init(loop, timer_);
  timer_->data = this;
  deadline_ = uv_now(loop) + deadline_ms;
  uv_timer_start(timer_, on_timer, interval_ms, interval_ms);
}

void DeadlinePoll::on_timer(uv_timer_t* t) {
  auto* self = static_cast<DeadlinePoll*>(t->data);
  if (self->step_()) return self->finish(true);
  if (uv_now(t->loop) >= self->deadline_) self->finish(false);
}

void DeadlinePoll::cancel() {
  if (!timer_) return;
  timer_->data = nullptr;
  uv_timer_stop(timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(timer_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  timer_ = nullptr;
}

void DeadlinePoll::finish(bool ok) {
  cancel();
  Done done = std::move(done_);
  step_ = nullptr;
  if (done) done(ok);  // last: it may destroy this object
}

void CgroupReaper::start(uv_loop_t* loop, const hal::Cgroups* cg, hal::JobCgroup job, bool remove,
                         uint64_t deadline_ms, Done done, bool check_now) {
  cg_ = cg;
  job_ = std::move(job);
  remove_ = remove;
  error_.clear();
  hal::Status st = cg_->kill_step(job_);
  if (!st.ok) error_ = st.message;
  bool killed_once = true;
  poll_.start(
      loop, 5, deadline_ms,
      [this, killed_once]() mutable {
        if (!error_.empty()) return true;
        if (!cg_->is_empty(job_)) {
          // Without cgroup.kill a process forked during the last pass survived it.
          if (!killed_once && !job_.v2_kill) cg_->kill_step(job_);
          killed_once = false;
          return false;
        }
        if (!remove_) return true;
        bool busy = false;
        hal::Status rs = cg_->remove(&job_, &busy);
        if (!rs.ok) error_ = rs.message;
        return !busy || !error_.empty();
      },
      [this, done = std::move(done)](bool ok) {
        std::string msg = error_;
        if (!ok) {
          size_t left = cg_->procs(job_).size();
          msg = left ? std::to_string(left) + " process(es) still in cgroup " + job_.name
                     : "cgroup " + job_.name + " still busy";
        }
        done(ok && error_.empty(), msg);  // last: it may destroy this object
      },
      check_now);
}

}  // namespace kite::starter
