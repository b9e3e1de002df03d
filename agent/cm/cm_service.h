// A part of `kite cm` that serves its own frame types on the central manager's TLS connections
// next to the collector's (the queue, the negotiator's claims, remote commands), and the context
// every such part is built from.
#pragma once

#include <uv.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/cm/cm_stats.h"
#include "agent/core/frame.h"
#include "agent/net/tls_conn.h"
#include "policy/config/config.h"

namespace kite::queue {
class JobStore;
}

namespace kite::cm {

class CollectorServer;
class JobCommits;

class CmService {
 public:
  virtual ~CmService() = default;
  /// Handles `msg` when its type is this service's (answering or refusing it) and returns true;
  /// false leaves it to the next service (and at the end to the transport's "unknown type").
  virtual bool on_frame(net::TlsConn* c, core::Json& msg) = 0;
  /// A ready connection closed; every service hears every close.
  virtual void on_closed(net::TlsConn* c) { (void)c; }
  /// An agent's connection advertised `machine` for the first time (a new node, or the node
  /// back on a new connection): the connection commands for that machine now travel on.
  virtual void on_node(const std::string& machine, net::TlsConn* c) {
    (void)machine;
    (void)c;
  }
  /// Before the loop stops: close timers and handles.
  virtual void stop() {}
};

/// A service that does its work on a timer (defrag's poll, the rooster's cycle) and takes no
/// frames: the timer's life is here once.
class PeriodicCmService : public CmService {
 public:
  ~PeriodicCmService() override { stop(); }
  bool on_frame(net::TlsConn*, core::Json&) override { return false; }
  void stop() override {
    if (!timer_) return;
    uv_close(reinterpret_cast<uv_handle_t*>(timer_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    timer_ = nullptr;
  }

 protected:
  /// Runs tick() every `seconds` from now on.
  void start_every(uv_loop_t* loop, int64_t seconds) {
    timer_ = new uv_timer_t;
    uv_timer_init(loop, timer_);
    timer_->data = this;
    const uint64_t ms = static_cast<uint64_t>(seconds) * 1000;
    uv_timer_start(
        timer_, [](uv_timer_t* t) { static_cast<PeriodicCmService*>(t->data)->tick(); }, ms, ms);
  }
  virtual void tick() = 0;

 private:
  uv_timer_t* timer_ = nullptr;
};

/// What the central manager's parts share. Pointers stay valid for the life of the services.
struct CmContext {
  uv_loop_t* loop = nullptr;
  const config::Config* cfg = nullptr;
  CollectorServer* collector = nullptr;  // ads, node connections, authorization
  queue::JobStore* jobs = nullptr;       // the durable queue (null: built without SQLite)
  NegotiatorStats negotiator_stats;      // the negotiator's cycles, for /metrics
  JobCommits* commits = nullptr;         // its group commit (set with `jobs`)
  std::string accountant_db;             // the accountant's SQLite file
  /// Asks for a negotiation cycle soon (a submit, a release, a claim that ended). Set by the
  /// negotiator's runner; a no-op until then.
  std::function<void()> reschedule = [] {};
  /// The queue tells the claim layer that a running job must stop: removed or held (`requeue`
  /// false), or vacated and Idle again (`requeue` true, `kite vacate-job`). Set by the claims
  /// runner; a no-op until then.
  /// The claim layer tells the accountant that a job started or stopped running on a claim, so
  /// that usage is charged from that second. Set by the accountant; a no-op until then.
  std::function<void()> usage_changed = [] {};
  std::function<void(int32_t cluster, int32_t proc, bool requeue)> stop_job = [](int32_t, int32_t,
                                                                                 bool) {};
};

/// The services of `kite cm` beside the collector, in the order frames are offered to them
/// (agent/cm/cm_services.cc: one line per service). Null entries are skipped.
std::vector<std::unique_ptr<CmService>> make_cm_services(CmContext* ctx, std::string* err);

}  // namespace kite::cm
