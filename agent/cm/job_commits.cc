// The job queue's group commit in `kite cm` (see job_commits.h).
#if KITE_HAS_JOB_STORE  // the queue needs the durable store (SQLite)

#include "agent/cm/job_commits.h"

#include <cstdlib>

#include "agent/core/log.h"
#include "agent/queue/job_store.h"

namespace kite::cm {

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
  if (ctx_->jobs && !ctx_->jobs->commit_group(&err)) {
    // Nothing of this turn reached the disk, and the claims in memory already act on it. The
    // CM stops as a kill -9 would: at restart the queue is what the disk says and the agents'
    // claim reports re-adopt what runs (the path the kill -9 tests check). No frame that
    // relied on the lost updates has left.
    KLOG_ERROR("job queue: the commit failed, stopping: %s", err.c_str());
    std::_Exit(1);
  }
  if (outbox_.empty()) return;
  std::vector<std::pair<net::TlsConn*, core::Json>> out;
  out.swap(outbox_);
  for (auto& [conn, msg] : out) conn->send(msg);
}

void JobCommits::send(net::TlsConn* c, core::Json msg) {
  if (!c) return;
  if (outbox_.empty() && !(ctx_->jobs && ctx_->jobs->group_open())) {
    c->send(msg);
    return;
  }
  outbox_.emplace_back(c, std::move(msg));
}

bool JobCommits::on_frame(net::TlsConn* c, core::Json& msg) {
  (void)c;
  (void)msg;
  return false;
}

void JobCommits::on_closed(net::TlsConn* c) {
  std::erase_if(outbox_, [c](const auto& e) { return e.first == c; });
}

void JobCommits::stop() {
  commit();
  if (!turn_end_) return;
  uv_prepare_stop(turn_end_);
  uv_close(reinterpret_cast<uv_handle_t*>(turn_end_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_prepare_t*>(h); });
  turn_end_ = nullptr;
}

}  // namespace kite::cm

#endif  // KITE_HAS_JOB_STORE
