// Group commit of the job queue in `kite cm`: the job updates of one loop turn become durable in
// one SQLite transaction (one fsync) at the end of the turn, and the frames that rely on them
// (activations, exit acknowledgements, action replies) leave only after that commit.
#pragma once

#include <uv.h>

#include <string>
#include <utility>
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

  bool on_frame(net::TlsConn* c, core::Json& msg) override;
  void on_closed(net::TlsConn* c) override;
  void stop() override;

 private:
  CmContext* ctx_;
  uv_prepare_t* turn_end_ = nullptr;
  std::vector<std::pair<net::TlsConn*, core::Json>> outbox_;
};

}  // namespace kite::cm
