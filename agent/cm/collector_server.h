// The collector of `kite cm`: a NetServer whose connections send update / invalidate / query
// frames against an AdStore, with each peer's level checked (ALLOW_* / DENY_*), a timer that
// expires ads, and absent/offline ads saved atomically whenever they change.
#pragma once

#include <uv.h>

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agent/cm/cm_service.h"
#include "agent/cm/cm_stats.h"
#include "agent/cm/row_cache.h"
#include "agent/collector/ad_groups.h"
#include "agent/collector/ad_store.h"
#include "agent/core/ad_rows.h"
#include "agent/net/server.h"
#include "policy/security/authz.h"

namespace kite::cm {

struct CollectorOptions {
  std::string host = "0.0.0.0";
  int port = 9618;
  collector::StoreConfig store;
  policy::AuthzPolicy authz;
  std::string persist_path;  // absent/offline ads ("" = not kept)
  uint64_t expire_every_ms = 1000;
};

// Counters since start (read by whoever reports on the CM, e.g. a metrics endpoint).
class CollectorServer final : private net::TlsConnHandler {
 public:
  CollectorServer(uv_loop_t* loop, std::unique_ptr<net::TlsContext> tls, CollectorOptions opts);
  ~CollectorServer() override;
  /// Loads the saved ads, listens, starts the expiry timer. False with a message.
  bool start(std::string* err);
  void stop();
  int port() const { return server_.port(); }
  /// Frames of types the collector does not know go to these, in order (not owned).
  void add_service(CmService* s) { services_.push_back(s); }
  /// True when the peer holds `level`; else refuses the frame (`what` names it) and logs.
  bool allowed(net::TlsConn* c, policy::AuthLevel level, const std::string& what);
  /// True when the peer holds `level` (nothing sent, nothing logged).
  bool has_level(const net::TlsConn* c, policy::AuthLevel level) const;
  /// The connection of the agent that advertises `machine`, or null when it is not connected.
  net::TlsConn* node(const std::string& machine) const;
  const collector::AdStore& store() const { return store_; }
  const CollectorStats& stats() const { return stats_; }
  size_t connections() const { return server_.connections(); }
  uint64_t handshake_failures() const { return server_.handshake_failures(); }
  uint64_t handshakes() const { return server_.handshakes(); }
  uint64_t handshakes_resumed() const { return server_.handshakes_resumed(); }
  /// Stores an ad the CM makes itself (Accounting, Submitter and Defrag ads), as an update would.
  bool publish(std::string_view type, classad::AdPtr ad, std::string* err);
  /// Removes such an ad.
  void withdraw(std::string_view type, std::string_view name);

 private:
  void on_ready(net::TlsConn* c) override;
  bool on_frame(net::TlsConn* c, core::Json& msg) override;
  void on_closed(net::TlsConn* c, const std::string& why) override;
  void update(net::TlsConn* c, core::Json& msg);
  void update_whole(net::TlsConn* c, core::Json& msg);
  // The checks and the store for an update whose ad was built (whole ads, unusual merges).
  void store_update(net::TlsConn* c, core::Json& msg, classad::AdPtr ad);
  // False (refused) when an agent names a machine other than its own, or when the stored ad it
  // replaces (whose Machine is `before`, if any) is another machine's.
  bool may_advertise(net::TlsConn* c, std::string_view machine, const std::string_view* before);
  bool room_for_new(net::TlsConn* c);  // false (refused) when the store is full
  void stored(net::TlsConn* c, const std::string& machine);  // after an update is stored
  void invalidate(net::TlsConn* c, core::Json& msg);
  void query(net::TlsConn* c, core::Json& msg);
  void refuse(net::TlsConn* c, const std::string& why);
  void persist();
  static void on_expire_timer(uv_timer_t* t);
  // Queries run a chunk per loop turn so that updates are handled between chunks.
  struct Running {
    net::TlsConn* conn = nullptr;
    std::unique_ptr<collector::Query> query;
    std::vector<classad::AdPtr> found;  // scratch for Query::next
    std::vector<std::string> texts;     // matches not yet sent, as JSON
    size_t bytes = 0;                   // their size
    uint64_t started_ns = 0;            // when it came (its latency for /metrics)
    // A counted query ("group"): the matches' projections, counted, instead of texts.
    std::unique_ptr<collector::AdGroups> groups;
    // A query answered in rows ("rows", agent/core/ad_rows.h): the projection, its names'
    // interned ids, and the rows not yet sent.
    std::vector<std::string> row_attrs;
    std::vector<uint32_t> row_ids;
    std::string rows;
    // The client reads expressions and repeats in rows ("rows_v": 2, deltas: 3); null: plain rows.
    // Such rows are kept for the next query of the projection (row_key): those written so far.
    std::unique_ptr<core::RowWriter> row_writer;
    std::string row_key;
    RowCache::Fill row_fill;
    RowCache::Cursor row_cursor;
    std::string row_scratch;
    std::string frame_text;  // a rows frame's JSON text, written in place
  };
  void run_queries();
  // Runs `r` until it is finished or the clock passes `end`; true when finished (its last
  // frame sent, or its connection gone).
  bool advance(Running* r, uint64_t end);
  static void send_ads(Running* r, bool done);

  uv_loop_t* loop_;
  std::unique_ptr<net::TlsContext> tls_;
  CollectorOptions opts_;
  collector::AdStore store_;
  net::NetServer server_;
  uv_timer_t* expire_timer_ = nullptr;
  uv_idle_t* query_idle_ = nullptr;  // active while queries are running
  std::list<Running> running_;
  RowCache row_cache_;
  uint64_t arrival_window_start_ = 0, arrival_spent_ns_ = 0;  // slices run as queries arrive
  std::vector<CmService*> services_;
  std::map<std::string, net::TlsConn*> nodes_;  // machine -> its agent's connection
  // Per connection, two bits per AuthLevel: judged, granted (see has_level).
  mutable std::unordered_map<const net::TlsConn*, uint8_t> levels_;
  std::vector<classad::JsonAttr> merge_attrs_;  // scratch of update(), kept to spare allocations
  CollectorStats stats_;
};

}  // namespace kite::cm
