// Accepting mutual-TLS connections (see server.h).
#include "agent/net/server.h"

#include <malloc.h>

#include "agent/core/log.h"
#include "agent/net/sockaddr.h"

namespace kite::net {

NetServer::NetServer(uv_loop_t* loop, TlsContext* ctx, TlsConnHandler* handler, ConnOptions opts)
    : loop_(loop), ctx_(ctx), handler_(handler), opts_(std::move(opts)) {}

NetServer::~NetServer() {
  stop();
}

bool NetServer::listen(const std::string& host, int port, std::string* err) {
  sockaddr_storage addr;
  if (!numeric_sockaddr(host, port, &addr)) {
    if (err) *err = "listen address '" + host + "' is not a numeric IPv4 or IPv6 address";
    return false;
  }
  listener_ = new uv_tcp_t;
  uv_tcp_init(loop_, listener_);
  listener_->data = this;
  recheck_ = new uv_timer_t;
  uv_timer_init(loop_, recheck_);
  recheck_->data = this;
  int rc = uv_tcp_bind(listener_, reinterpret_cast<const sockaddr*>(&addr), 0);
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(listener_), kBacklog, on_connection);
  if (rc != 0) {
    if (err) *err = "listening on " + host + ":" + std::to_string(port) + ": " + uv_strerror(rc);
    stop();
    return false;
  }
  sockaddr_storage bound{};
  int len = sizeof bound;
  uv_tcp_getsockname(listener_, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = sockaddr_port(bound);
  return true;
}

void NetServer::stop() {
  if (listener_) {
    uv_close(reinterpret_cast<uv_handle_t*>(listener_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
    listener_ = nullptr;
  }
  if (recheck_) {
    uv_close(reinterpret_cast<uv_handle_t*>(recheck_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    recheck_ = nullptr;
  }
  accept_waiting_ = false;
  handshaking_.clear();
  std::unordered_set<TlsConn*> conns;
  conns.swap(conns_);
  for (TlsConn* c : conns) {
    bool established = c->established();
    c->close_quietly();
    if (established) handler_->on_closed(c, "server stopped");
  }
}

void NetServer::on_connection(uv_stream_t* s, int status) {
  auto* self = static_cast<NetServer*>(s->data);
  if (status < 0) {
    KLOG_WARN("net: accept: %s", uv_strerror(status));
    return;
  }
  // Not accepting now makes libuv stop polling the listener until accept_one() runs.
  if (!self->handshake_place_free()) {
    self->accept_waiting_ = true;
    if (!uv_is_active(reinterpret_cast<uv_handle_t*>(self->recheck_)))
      uv_timer_start(self->recheck_, on_recheck, kSlowHandshakeMs / 4, kSlowHandshakeMs / 4);
    return;
  }
  self->accept_one();
}

bool NetServer::handshake_place_free() const {
  if (handshaking_.size() < kMaxHandshakes) return true;
  uint64_t now = uv_now(loop_);
  size_t fresh = 0;
  for (const TlsConn* c : handshaking_)
    if (now - c->started_ms() < kSlowHandshakeMs) ++fresh;
  return fresh < kMaxHandshakes;
}

void NetServer::on_recheck(uv_timer_t* t) {
  auto* self = static_cast<NetServer*>(t->data);
  if (!self->accept_waiting_) {
    uv_timer_stop(t);
    return;
  }
  if (self->handshake_place_free()) self->accept_one();
}

void NetServer::accept_one() {
  accept_waiting_ = false;
  if (!listener_) return;
  uv_timer_stop(recheck_);
  // Handshakes share the CPU: the more run at once, the longer each may take.
  ConnOptions o = opts_;
  o.handshake_timeout_ms += handshaking_.size() * kHandshakeCostMs;
  TlsConn* c = TlsConn::create(loop_, ctx_, this, o);
  if (uv_accept(reinterpret_cast<uv_stream_t*>(listener_),
                reinterpret_cast<uv_stream_t*>(c->tcp())) != 0) {
    c->close_quietly();
    return;
  }
  conns_.insert(c);
  handshaking_.insert(c);
  std::string err;
  if (!c->start("", nullptr, &err)) c->close(err);
}

void NetServer::handshake_ended(TlsConn* c) {
  handshaking_.erase(c);
  if (accept_waiting_ && handshake_place_free()) accept_one();
    // Each handshake held 33 KiB of record buffers that shrank or went when it ended; once a
    // wave of them is over, the holes they left in the heap go back to the kernel (a walk of
    // the free lists: rate-limited, as every CLI command is a handshake too).
#if defined(__GLIBC__)
  uint64_t now = uv_now(loop_);
  if (handshaking_.empty() && now - last_trim_ms_ >= kTrimIntervalMs) {
    last_trim_ms_ = now;
    malloc_trim(0);
  }
#endif
}

void NetServer::on_ready(TlsConn* c) {
  KLOG_INFO("net: %s connected as %s/%s%s", c->address().c_str(), c->peer().role.c_str(),
            c->peer().cn.c_str(), c->resumed() ? " (resumed session)" : "");
  ++handshakes_done_;
  if (c->resumed()) ++handshakes_resumed_;
  handshake_ended(c);
  handler_->on_ready(c);
}

bool NetServer::on_frame(TlsConn* c, core::Json& msg) {
  return handler_->on_frame(c, msg);
}

void NetServer::on_closed(TlsConn* c, const std::string& why) {
  conns_.erase(c);
  if (c->established()) {
    handler_->on_closed(c, why);
    return;
  }
  handshake_ended(c);
  // Closed before the hello exchange: a failed handshake, a bad or silent peer.
  if (c->peer().cn.empty()) ++handshake_failures_;
  KLOG_WARN("net: refused %s: %s", c->address().c_str(), why.c_str());
}

}  // namespace kite::net
