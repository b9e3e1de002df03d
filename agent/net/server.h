// The listening side of the transport (the CM's collector, later agents' command port):
// accepts TCP, runs each connection's TLS handshake, hands ready connections with their
// verified identity to the handler. A bad peer is logged and closed; others are unaffected.
// At most kMaxHandshakes handshakes younger than kSlowHandshakeMs run at once: a fleet dialling
// in together waits in the kernel's accept queue instead of sharing the CPU until every
// handshake times out. Older ones stop counting, so slow or silent peers cannot hold the places,
// and each handshake's timeout grows with the number running when it was accepted.
#pragma once

#include <uv.h>

#include <cstdint>
#include <string>
#include <unordered_set>

#include "agent/net/tls_conn.h"

namespace kite::net {

class NetServer : private TlsConnHandler {
 public:
  /// `handler` hears on_ready/on_frame for ready connections and on_closed for those that
  /// were ready; failed handshakes are only logged and counted.
  NetServer(uv_loop_t* loop, TlsContext* ctx, TlsConnHandler* handler, ConnOptions opts);
  ~NetServer();
  /// Binds and listens (`port` 0: any free port, see port()). False with a message.
  bool listen(const std::string& host, int port, std::string* err);
  int port() const { return port_; }
  /// Stops listening and closes every connection (the handler hears on_closed for the ready
  /// ones).
  void stop();
  size_t connections() const { return conns_.size(); }
  uint64_t handshake_failures() const { return handshake_failures_; }
  uint64_t handshakes() const { return handshakes_done_; }
  /// Of those, the ones that resumed a session with a ticket (the rest were full handshakes).
  uint64_t handshakes_resumed() const { return handshakes_resumed_; }
  static constexpr size_t kMaxHandshakes = 64;
  static constexpr uint64_t kSlowHandshakeMs = 1000;
  // Added to the handshake timeout for each handshake already running when one is accepted
  // (a full ECDHE-ECDSA handshake costs the server a few ms of CPU on an idle machine).
  static constexpr uint64_t kHandshakeCostMs = 20;
  static constexpr int kBacklog = 4096;              // the kernel caps it at net.core.somaxconn
  static constexpr uint64_t kTrimIntervalMs = 5000;  // malloc_trim after handshakes, at most

 private:
  static void on_connection(uv_stream_t* s, int status);
  void accept_one();
  void handshake_ended(TlsConn* c);
  bool handshake_place_free() const;
  static void on_recheck(uv_timer_t* t);
  void on_ready(TlsConn* c) override;
  bool on_frame(TlsConn* c, core::Json& msg) override;
  void on_closed(TlsConn* c, const std::string& why) override;

  uv_loop_t* loop_;
  TlsContext* ctx_;
  TlsConnHandler* handler_;
  ConnOptions opts_;
  uv_tcp_t* listener_ = nullptr;
  int port_ = 0;
  std::unordered_set<TlsConn*> conns_;
  uint64_t handshake_failures_ = 0;
  uint64_t handshakes_done_ = 0;
  uint64_t handshakes_resumed_ = 0;
  uint64_t last_trim_ms_ = 0;
  std::unordered_set<TlsConn*> handshaking_;  // accepted, not yet ready
  bool accept_waiting_ = false;               // a connection waits for a handshake place
  uv_timer_t* recheck_ = nullptr;             // while waiting: places free up as time passes
};

}  // namespace kite::net
