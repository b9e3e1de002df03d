// Dialling, keeping and re-dialling one mutual-TLS connection (see client.h).
#include "agent/net/client.h"

#include <unistd.h>

#include "agent/core/log.h"
#include "agent/net/hosts_file.h"
#include "agent/net/session_file.h"
#include "agent/net/sockaddr.h"

namespace kite::net {
namespace {

struct ConnectReq {
  uv_connect_t req;
  NetClient* client;
};

}  // namespace

NetClient::NetClient(uv_loop_t* loop, TlsContext* ctx, NetClientHandler* handler,
                     ClientOptions opts)
    : loop_(loop), ctx_(ctx), handler_(handler), opts_(std::move(opts)), timer_(new uv_timer_t) {
  uv_timer_init(loop, timer_);
  timer_->data = this;
  mbedtls_ssl_session_init(&session_);
}

NetClient::~NetClient() {
  stop();
  timer_->data = nullptr;
  uv_close(reinterpret_cast<uv_handle_t*>(timer_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  mbedtls_ssl_session_free(&session_);
}

void NetClient::start() {
  if (running_) return;
  running_ = true;
  failures_ = 0;
  if (!have_session_ && !opts_.session_file.empty())
    have_session_ = session_saved_ =
        load_session_file(opts_.session_file, opts_.session_key, &session_);
  dial();
}

void NetClient::stop() {
  running_ = false;
  if (resolver_) resolver_->cancel();
  uv_timer_stop(timer_);
  if (conn_) {
    conn_->close_quietly();
    conn_ = nullptr;
  }
}

bool NetClient::send(const core::Json& msg) {
  if (!connected()) return false;
  conn_->send(msg);
  return true;
}

bool NetClient::send_all(const std::vector<core::Json>& msgs) {
  if (!connected()) return false;
  TlsConn* c = conn_;  // a failed write closes it (and clears conn_), not frees it
  c->batch_begin();
  for (const core::Json& m : msgs) c->send(m);
  c->batch_end();
  return true;
}

uint64_t NetClient::backoff_ms(int failures) {
  uint64_t d = opts_.backoff_min_ms;
  for (int i = 1; i < failures && d < opts_.backoff_max_ms; ++i) d *= 2;
  if (d > opts_.backoff_max_ms) d = opts_.backoff_max_ms;
  // Full jitter over the upper half, so a fleet that lost its CM does not return in step.
  return d / 2 + ctx_->random() % (d / 2 + 1);
}

void NetClient::dial() {
  ++attempts_;
  sockaddr_storage addr;
  if (numeric_sockaddr(opts_.host, opts_.port, &addr)) {
    dial_addr(reinterpret_cast<const sockaddr*>(&addr));
    return;
  }
  // Names come from /etc/hosts, then DNS through c-ares: getaddrinfo would go through NSS,
  // which the static image cannot load, and would block the loop.
  if (hosts_file_lookup(opts_.host, opts_.port, &addr)) {
    dial_addr(reinterpret_cast<const sockaddr*>(&addr));
    return;
  }
  if (!resolver_) resolver_ = std::make_unique<Resolver>(loop_, opts_.dns_servers);
  resolver_->resolve(opts_.host, opts_.port,
                     [this](bool ok, const sockaddr_storage& found, const std::string& err) {
                       if (!running_ || conn_) return;
                       if (ok) {
                         dial_addr(reinterpret_cast<const sockaddr*>(&found));
                       } else {
                         retry_later(err);
                       }
                     });
}

void NetClient::dial_addr(const sockaddr* addr) {
  conn_ = TlsConn::create(loop_, ctx_, this, opts_.conn);
  auto* req = new ConnectReq;
  req->client = this;
  req->req.data = conn_;
  int rc = uv_tcp_connect(&req->req, conn_->tcp(), addr, [](uv_connect_t* r, int status) {
    auto* cr = reinterpret_cast<ConnectReq*>(r);
    auto* conn = static_cast<TlsConn*>(r->data);
    NetClient* self = cr->client;
    delete cr;
    if (conn->closing()) return;  // stopped meanwhile
    if (status < 0) {
      conn->close(std::string("connect: ") + uv_strerror(status));
      return;
    }
    std::string err;
    if (!conn->start(self->opts_.server_name, self->have_session_ ? &self->session_ : nullptr,
                     &err))
      conn->close(err);
  });
  if (rc != 0) {
    delete req;
    conn_->close(std::string("connect: ") + uv_strerror(rc));
  }
}

void NetClient::retry_later(const std::string& why) {
  ++failures_;
  handler_->on_disconnected(this, why);
  if (!running_) return;
  uint64_t delay = backoff_ms(failures_);
  KLOG_WARN("net: %s:%d: %s; retrying in %llu ms", opts_.host.c_str(), opts_.port, why.c_str(),
            static_cast<unsigned long long>(delay));
  uv_timer_start(timer_, on_timer, delay, 0);
}

void NetClient::on_timer(uv_timer_t* t) {
  auto* self = static_cast<NetClient*>(t->data);
  if (self && self->running_ && !self->conn_) self->dial();
}

void NetClient::on_ready(TlsConn* c) {
  failures_ = 0;
  mbedtls_ssl_session_free(&session_);
  mbedtls_ssl_session_init(&session_);
  have_session_ = c->save_session(&session_);
  // A resumed session keeps the saved ticket (valid for its lifetime); a new one replaces it.
  if (have_session_ && !opts_.session_file.empty() && !(c->resumed() && session_saved_))
    session_saved_ = save_session_file(opts_.session_file, opts_.session_key, session_);
  handler_->on_connected(this);
}

bool NetClient::on_frame(TlsConn*, core::Json& msg) {
  return handler_->on_frame(this, msg);
}

void NetClient::on_closed(TlsConn* c, const std::string& why) {
  if (c == conn_) conn_ = nullptr;
  // A session whose handshake failed is dropped, so the next attempt does a full handshake.
  // A server that was not there (refused, unreachable) says nothing about it: the session is
  // kept for when it is back (a restarted CM still takes its tickets).
  bool handshake_failed = !c->established() && c->tls_started();
  if (handshake_failed && have_session_ && c->peer().cn.empty()) {
    mbedtls_ssl_session_free(&session_);
    mbedtls_ssl_session_init(&session_);
    have_session_ = false;
  }
  // A saved session that did not lead to a connection is not offered again.
  if (handshake_failed && session_saved_) {
    ::unlink(opts_.session_file.c_str());
    session_saved_ = false;
  }
  retry_later(why);
}

}  // namespace kite::net
