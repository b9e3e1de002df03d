// The listening side of the transport (the CM's collector, later agents' command port):
// accepts TCP, runs each connection's TLS handshake, hands ready connections with their
// verified identity to the handler. A bad peer is logged and closed; others are unaffected.
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

 private:
  static void on_connection(uv_stream_t* s, int status);
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
};

}  // namespace kite::net
