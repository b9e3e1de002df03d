// The job queue's group commit in `kite cm` (see job_commits.h).
#if KITE_HAS_JOB_STORE  // the queue needs the durable store (SQLite)

#include "agent/cm/job_commits.h"

#include <cstdlib>

#include "agent/core/log.h"
#include "agent/queue/job_store.h"

namespace kite::cm {

namespace {
constexpr uint64_t kReportEveryMs = 10000;
}  // namespace

JobCommits::JobCommits(CmContext* ctx) : ctx_(ctx) {}

JobCommits::~JobCommits() = default;

void JobCommits::start() {
  if (!ctx_->jobs) return;
  ctx_->jobs->set_grouped(true);
  turn_end_ = new uv_prepare_t{};
  uv_prepare_init(ctx_->loop, turn_end_);
  turn_end_->data = this;
  // Prepare handles run once per loop turn, after every callback of the turn and before the
  // loop waits for I/O: the turn's updates are committed before anything can wait on them.
  uv_prepare_start(turn_end_, [](uv_prepare_t* p) { static_cast<JobCommits*>(p->data)->commit(); });
}

void JobCommits::commit() {
  std::string err;
  size_t changes = ctx_->jobs ? ctx_->jobs->group_changes() : 0;
  uint64_t t0 = changes ? uv_hrtime() : 0;
  if (ctx_->jobs && !ctx_->jobs->commit_group(&err)) {
    // Nothing of this turn reached the disk, and the claims in memory already act on it. The
    // CM stops as a kill -9 would: at restart the queue is what the disk says and the agents'
    // claim reports re-adopt what runs (the path the kill -9 tests check). No frame that
    // relied on the lost updates has left.
    KLOG_ERROR("job queue: the commit failed, stopping: %s", err.c_str());
    std::_Exit(1);
  }
  if (changes) {
    // What a commit (its fsync) costs: the time every activation and acknowledgement waits.
    uint64_t us = (uv_hrtime() - t0) / 1000;
    ++commits_;
    changes_ += changes;
    total_us_ += us;
    if (us > max_us_) max_us_ = us;
    if (uv_now(ctx_->loop) - report_ms_ >= kReportEveryMs) report();
  }
  if (outbox_.empty()) return;
  std::vector<Waiting> out;
  out.swap(outbox_);
  for (Waiting& w : out) {
    if (w.fn) {
      w.fn();
    } else if (w.conn) {
      w.conn->send(w.msg);
    }
  }
}

bool JobCommits::must_wait() const {
  return !outbox_.empty() || (ctx_->jobs && ctx_->jobs->group_open());
}

void JobCommits::report() {
  report_ms_ = uv_now(ctx_->loop);
  if (!commits_) return;
  KLOG_INFO("job queue: %llu commit(s) of %llu job update(s), %.1f ms each, at most %.1f ms",
            static_cast<unsigned long long>(commits_), static_cast<unsigned long long>(changes_),
            static_cast<double>(total_us_) / 1000.0 / static_cast<double>(commits_),
            static_cast<double>(max_us_) / 1000.0);
  commits_ = changes_ = total_us_ = max_us_ = 0;
}

void JobCommits::send(net::TlsConn* c, core::Json msg) {
  if (!c) return;
  if (!must_wait()) {
    c->send(msg);
    return;
  }
  Waiting w;
  w.conn = c;
  w.msg = std::move(msg);
  outbox_.push_back(std::move(w));
}

void JobCommits::after_commit(std::function<void()> fn) {
  if (!must_wait()) {
    fn();
    return;
  }
  Waiting w;
  w.fn = std::move(fn);
  outbox_.push_back(std::move(w));
}

bool JobCommits::on_frame(net::TlsConn* c, core::Json& msg) {
  (void)c;
  (void)msg;
  return false;
}

void JobCommits::on_closed(net::TlsConn* c) {
  for (Waiting& w : outbox_) {
    if (w.conn == c) w.conn = nullptr;  // its frames go nowhere; what runs still runs
  }
}

void JobCommits::stop() {
  commit();
  report();
  if (!turn_end_) return;
  uv_prepare_stop(turn_end_);
  uv_close(reinterpret_cast<uv_handle_t*>(turn_end_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_prepare_t*>(h); });
  turn_end_ = nullptr;
}

}  // namespace kite::cm

#endif  // KITE_HAS_JOB_STORE
