// Accepting mutual-TLS connections (see server.h).
#include "agent/net/server.h"

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
  int rc = uv_tcp_bind(listener_, reinterpret_cast<const sockaddr*>(&addr), 0);
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(listener_), 128, on_connection);
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
  TlsConn* c = TlsConn::create(self->loop_, self->ctx_, self, self->opts_);
  if (uv_accept(s, reinterpret_cast<uv_stream_t*>(c->tcp())) != 0) {
    c->close_quietly();
    return;
  }
  self->conns_.insert(c);
  std::string err;
  if (!c->start("", nullptr, &err)) c->close(err);
}

void NetServer::on_ready(TlsConn* c) {
  KLOG_INFO("net: %s connected as %s/%s%s", c->address().c_str(), c->peer().role.c_str(),
            c->peer().cn.c_str(), c->resumed() ? " (resumed session)" : "");
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
  // Closed before the hello exchange: a failed handshake, a bad or silent peer.
  if (c->peer().cn.empty()) ++handshake_failures_;
  KLOG_WARN("net: refused %s: %s", c->address().c_str(), why.c_str());
}

}  // namespace kite::net
