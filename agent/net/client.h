// The dialling side of the transport (agents to the CM, the CLI): one connection kept up,
// reconnected after a loss with jittered exponential backoff, the TLS session kept so the
// reconnect resumes it with a ticket instead of a full handshake.
#pragma once

#include <mbedtls/ssl.h>
#include <uv.h>

#include <string>
#include <vector>

#include <memory>

#include "agent/net/resolver.h"
#include "agent/net/tls_conn.h"

namespace kite::net {

class NetClient;

class NetClientHandler {
 public:
  virtual ~NetClientHandler() = default;
  virtual void on_connected(NetClient* c) = 0;
  /// Return false for an unknown type (answered with an error frame).
  virtual bool on_frame(NetClient* c, core::Json& msg) = 0;
  /// A connection that was up is gone, or an attempt failed; a retry is scheduled.
  virtual void on_disconnected(NetClient* c, const std::string& why) = 0;
};

struct ClientOptions {
  std::string host;         // numeric address, "localhost", a name in /etc/hosts, or a DNS name
  std::string dns_servers;  // "host:port,..." asked instead of /etc/resolv.conf's (tests)
  int port = 0;
  std::string server_name;  // checked against the server certificate's CN/SANs (empty: not)
  ConnOptions conn;
  // A file keeping the TLS session between processes (the CLI; empty: none), with the key
  // the session must have been saved for (session_file.h).
  std::string session_file, session_key;
  uint64_t backoff_min_ms = 500;
  uint64_t backoff_max_ms = 60000;
};

class NetClient : private TlsConnHandler {
 public:
  NetClient(uv_loop_t* loop, TlsContext* ctx, NetClientHandler* handler, ClientOptions opts);
  ~NetClient();
  void start();
  /// Closes the connection and stops retrying.
  void stop();
  /// False (frame dropped) when not connected.
  bool send(const core::Json& msg);
  /// Sends `msgs` as one batch (TlsConn::batch_begin): one TLS record and one write for many
  /// small frames. False (all dropped) when not connected.
  bool send_all(const std::vector<core::Json>& msgs);
  bool connected() const { return conn_ && conn_->ready(); }
  /// The current connection (null when none), for its peer identity and resumed().
  const TlsConn* conn() const { return conn_; }
  int attempts() const { return attempts_; }
  /// The delay before the next attempt after `failures` failures in a row (jittered).
  uint64_t backoff_ms(int failures);

 private:
  void dial();
  void dial_addr(const sockaddr* addr);
  void retry_later(const std::string& why);
  static void on_timer(uv_timer_t* t);
  void on_ready(TlsConn* c) override;
  bool on_frame(TlsConn* c, core::Json& msg) override;
  void on_closed(TlsConn* c, const std::string& why) override;

  uv_loop_t* loop_;
  TlsContext* ctx_;
  NetClientHandler* handler_;
  ClientOptions opts_;
  uv_timer_t* timer_;
  TlsConn* conn_ = nullptr;
  bool running_ = false;
  int failures_ = 0;
  int attempts_ = 0;
  std::unique_ptr<Resolver> resolver_;  // made at the first name /etc/hosts does not know
  mbedtls_ssl_session session_;
  bool have_session_ = false;
  bool session_saved_ = false;  // session_ is the one in opts_.session_file
};

}  // namespace kite::net
