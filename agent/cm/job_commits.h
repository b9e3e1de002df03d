// Group commit of the job queue in `kite cm`: the job updates of one loop turn become durable in
// one SQLite transaction (one fsync) at the end of the turn, and the frames that rely on them
// (activations, exit acknowledgements, action replies) leave only after that commit.
#pragma once

#include <uv.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "agent/cm/cm_service.h"

namespace kite::cm {

class JobCommits final : public CmService {
 public:
  explicit JobCommits(CmContext* ctx);
  ~JobCommits() override;
  /// Turns on grouping in the queue and commits at the end of every loop turn.
  void start();
  /// Makes the pending job updates durable now and sends the frames that waited for them. A
  /// commit that fails ends the process (see job_commits.cc).
  void commit();
  /// Sends `msg` on `c` once the job updates made so far are durable (now, when none are
  /// pending); frames keep their order.
  void send(net::TlsConn* c, core::Json msg);
  /// Runs `fn` once the job updates made so far are durable (now, when none are pending), in
  /// order with the frames of send(): what says "the queue has it" says it after the commit.
  void after_commit(std::function<void()> fn);

  bool on_frame(net::TlsConn* c, core::Json& msg) override;
  void on_closed(net::TlsConn* c) override;
  void stop() override;

 private:
  void report();

  CmContext* ctx_;
  uv_prepare_t* turn_end_ = nullptr;
  struct Waiting {
    net::TlsConn* conn = nullptr;  // a frame to send on it, or
    core::Json msg;
    std::function<void()> fn;  // something to run
  };
  bool must_wait() const;

  std::vector<Waiting> outbox_;
  // Commit figures since the last log line (at most one every kReportEveryMs).
  uint64_t commits_ = 0, changes_ = 0, total_us_ = 0, max_us_ = 0, report_ms_ = 0;
};

}  // namespace kite::cm
