// The mutual-TLS connection: mbedTLS driven by libuv reads and writes (see tls_conn.h).
#include "agent/net/tls_conn.h"

#include <mbedtls/ssl_internal.h>  // handshake->resume: mbedTLS 2.28's only resumption report
#include <mbedtls/x509.h>

#include <cstring>

#include "agent/core/log.h"

namespace kite::net {
namespace {

struct WriteReq {
  uv_write_t req;
  TlsConn* conn;
  std::string data;
};

std::string sockaddr_text(const uv_tcp_t* tcp) {
  sockaddr_storage ss{};
  int len = sizeof ss;
  if (uv_tcp_getpeername(tcp, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "?";
  char host[64] = "?";
  int port = 0;
  if (ss.ss_family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    uv_ip4_name(a, host, sizeof host);
    port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    uv_ip6_name(a, host, sizeof host);
    port = ntohs(a->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace

TlsConn* TlsConn::create(uv_loop_t* loop, TlsContext* ctx, TlsConnHandler* h,
                         const ConnOptions& opts) {
  return new TlsConn(loop, ctx, h, opts);
}

TlsConn::TlsConn(uv_loop_t* loop, TlsContext* ctx, TlsConnHandler* h, const ConnOptions& opts)
    : loop_(loop), ctx_(ctx), handler_(h), opts_(opts) {
  mbedtls_ssl_init(&ssl_);
  uv_tcp_init(loop, &tcp_);
  uv_timer_init(loop, &timer_);
  tcp_.data = this;
  timer_.data = this;
  open_handles_ = 2;
}

TlsConn::~TlsConn() {
  idle_cipher_.detach(&ssl_);
  if (shared_session_) ssl_.session = ssl_.session_in = ssl_.session_out = nullptr;  // not ours
  mbedtls_ssl_free(&ssl_);
}

bool TlsConn::start(const std::string& server_name, const mbedtls_ssl_session* resume,
                    std::string* err) {
  address_ = sockaddr_text(&tcp_);
  int rc = mbedtls_ssl_setup(&ssl_, ctx_->conf());
  if (rc == 0 && !server_name.empty()) rc = mbedtls_ssl_set_hostname(&ssl_, server_name.c_str());
  if (rc == 0 && resume) rc = mbedtls_ssl_set_session(&ssl_, resume);
  if (rc != 0) {
    if (err) *err = "TLS setup: " + mbedtls_message(rc);
    return false;
  }
  mbedtls_ssl_set_bio(&ssl_, this, bio_send, bio_recv, nullptr);
  uv_tcp_nodelay(&tcp_, 1);
  last_heard_ms_ = started_ms_ = uv_now(loop_);
  tls_started_ = true;
  uv_timer_start(&timer_, on_timer, opts_.handshake_timeout_ms, 0);
  if ((rc = uv_read_start(reinterpret_cast<uv_stream_t*>(&tcp_), on_alloc, on_read)) != 0) {
    if (err) *err = std::string("reading the socket: ") + uv_strerror(rc);
    return false;
  }
  pump();  // a client's ClientHello goes out now
  return true;
}

int TlsConn::bio_send(void* self, const unsigned char* buf, size_t len) {
  static_cast<TlsConn*>(self)->out_.append(reinterpret_cast<const char*>(buf), len);
  return static_cast<int>(len);
}

int TlsConn::bio_recv(void* self, unsigned char* buf, size_t len) {
  auto* c = static_cast<TlsConn*>(self);
  size_t avail = c->in_.size() - c->in_pos_;
  if (avail == 0) {  // what an earlier read left is taken first, then the read being handled
    if (c->rx_left_ == 0) return MBEDTLS_ERR_SSL_WANT_READ;
    size_t n = len < c->rx_left_ ? len : c->rx_left_;
    memcpy(buf, c->rx_, n);
    c->rx_ += n;
    c->rx_left_ -= n;
    return static_cast<int>(n);
  }
  size_t n = len < avail ? len : avail;
  memcpy(buf, c->in_.data() + c->in_pos_, n);
  c->in_pos_ += n;
  if (c->in_pos_ == c->in_.size()) {
    c->in_.clear();
    c->in_pos_ = 0;
  }
  return static_cast<int>(n);
}

void TlsConn::on_alloc(uv_handle_t*, size_t, uv_buf_t* buf) {
  // on_read has mbedTLS take every read at once (copying what it leaves), so connections on
  // one loop (thread) share the buffer: a CM with thousands of agents does not keep 16 KiB
  // idle per connection.
  static thread_local char shared[16384];
  *buf = uv_buf_init(shared, sizeof shared);
}

void TlsConn::on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf) {
  auto* c = static_cast<TlsConn*>(s->data);
  if (c->state_ == State::kClosed) return;
  if (n < 0) {
    c->close(n == UV_EOF ? "peer closed the connection" : std::string("read: ") + uv_strerror(n));
    return;
  }
  // mbedTLS takes the ciphertext straight from the read buffer; only what it leaves (a
  // connection closed mid-read) is copied.
  c->rx_ = buf->base;
  c->rx_left_ = static_cast<size_t>(n);
  c->pump();
  if (c->rx_left_ > 0 && c->state_ != State::kClosed) c->in_.append(c->rx_, c->rx_left_);
  c->rx_ = nullptr;
  c->rx_left_ = 0;
}

void TlsConn::pump() {
  // Replies to the frames of one read leave together, after the read is handled.
  ++batch_depth_;
  if (state_ == State::kHandshake) handshake();
  if (state_ == State::kHello || state_ == State::kReady) read_plaintext();
  --batch_depth_;
  flush();
}

void TlsConn::batch_end() {
  if (batch_depth_ > 0 && --batch_depth_ == 0) flush();
}

void TlsConn::handshake() {
  // mbedtls_ssl_handshake() step by step, to see whether the server accepted our session.
  TlsIdleCipher::Capture keys(&idle_cipher_, &ssl_);  // the write keys, for parking later
  while (ssl_.state != MBEDTLS_SSL_HANDSHAKE_OVER) {
    if (ssl_.handshake) resumed_ = ssl_.handshake->resume != 0;
    int rc = mbedtls_ssl_handshake_step(&ssl_);
    if (rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE) return;
    if (rc != 0) {
      std::string why = "TLS handshake failed: " + mbedtls_message(rc);
      uint32_t flags = mbedtls_ssl_get_verify_result(&ssl_);
      if (flags != 0 && flags != static_cast<uint32_t>(-1)) {
        char info[256];
        if (mbedtls_x509_crt_verify_info(info, sizeof info, "", flags) > 0) {
          std::string s(info);
          while (!s.empty() && s.back() == '\n') s.pop_back();
          for (char& ch : s)
            if (ch == '\n') ch = ';';
          why += " (" + s + ")";
        }
      }
      flush();  // the alert, if mbedTLS wrote one
      close(why);
      return;
    }
  }
  handshake_done();
}

void TlsConn::handshake_done() {
  const mbedtls_x509_crt* cert = mbedtls_ssl_get_peer_cert(&ssl_);
  if (!cert) {
    close("peer presented no certificate");
    return;
  }
  // A resumed session skips the certificate checks: repeat the ones that can change.
  if (ctx_->crl() && mbedtls_x509_crt_is_revoked(cert, ctx_->crl())) {
    close("peer certificate is revoked");
    return;
  }
  if (mbedtls_x509_time_is_past(&cert->valid_to)) {
    close("peer certificate has expired");
    return;
  }
  peer_ = identity_of(cert);
  // A server needs its session no more (the ticket sealed during the handshake carries it for
  // a resumption): the certificate (over a KiB) and the session itself go for each of the
  // thousands of agents a CM holds.
  if (ctx_->role() == TlsContext::Role::kServer) shared_session_ = ctx_->share_session(&ssl_);
  state_ = State::kHello;
  core::Json hello = core::Json::message("hello");
  hello.set("version", kProtocolVersion).set("name", opts_.name);
  send(hello);
  if (opts_.ready_at_handshake && state_ == State::kHello) {
    awaiting_peer_hello_ = true;
    become_ready();
  }
}

void TlsConn::read_plaintext() {
  if (!wake()) return;
  unsigned char buf[16384];
  while (state_ == State::kHello || state_ == State::kReady) {
    int n = mbedtls_ssl_read(&ssl_, buf, sizeof buf);
    if (n == MBEDTLS_ERR_SSL_WANT_READ || n == MBEDTLS_ERR_SSL_WANT_WRITE) return;
    if (n == 0 || n == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY) {
      close("peer closed the connection");
      return;
    }
    if (n < 0) {
      close("TLS read: " + mbedtls_message(n));
      return;
    }
    reader_.feed(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
    for (;;) {
      core::Json msg;
      std::string err;
      core::FrameReader::Result r = reader_.next(&msg, &err);
      if (r == core::FrameReader::Result::kNeedMore) break;
      if (r == core::FrameReader::Result::kMessage) {
        last_heard_ms_ = uv_now(loop_);
        dispatch(msg);
      } else {
        send_error(err);
        if (reader_.broken() || ++bad_frames_ > opts_.max_bad_frames) {
          flush();
          close("bad frames: " + err);
        }
      }
      if (state_ == State::kClosed) return;
    }
  }
}

void TlsConn::dispatch(core::Json& msg) {
  if (state_ == State::kHello) {
    if (take_peer_hello(msg)) become_ready();
    return;
  }
  if (awaiting_peer_hello_) {
    awaiting_peer_hello_ = false;
    take_peer_hello(msg);
    return;
  }
  std::string type = msg.type();
  if (type == "ping") {
    send(core::Json::message("pong"));
  } else if (type == "pong") {
  } else if (type == "hello") {
    send_error("hello sent twice");
  } else if (type == "error") {
    // Never answered, or two peers could trade error frames forever.
    KLOG_WARN("net: %s (%s) reports: %s", address_.c_str(), peer_.cn.c_str(),
              msg.str("error").c_str());
    handler_->on_frame(this, msg);
  } else if (!handler_->on_frame(this, msg) && state_ != State::kClosed) {
    send_error("unknown frame type '" + type + "'");
  }
}

bool TlsConn::take_peer_hello(core::Json& msg) {
  std::string type = msg.type();
  if (type != "hello") {
    send_error("expected hello, got " + type);
    flush();
    close("first frame was " + type + ", not hello");
    return false;
  }
  int64_t v = msg.num("version", -1);
  if (v != kProtocolVersion) {
    send_error("protocol version " + std::to_string(v) + " is not supported (this side speaks " +
               std::to_string(kProtocolVersion) + ")");
    flush();
    close("peer speaks protocol version " + std::to_string(v));
    return false;
  }
  peer_name_ = msg.str("name");
  return true;
}

void TlsConn::become_ready() {
  state_ = State::kReady;
  established_ = true;
  uv_timer_start(&timer_, on_timer, opts_.keepalive_ms, opts_.keepalive_ms);
  handler_->on_ready(this);
}

void TlsConn::send(const core::Json& msg) {
  if (state_ != State::kHello && state_ != State::kReady) return;
  send_text(msg.dump());
}

void TlsConn::send_text(std::string_view json) {
  if (state_ != State::kHello && state_ != State::kReady) return;
  // Within a batch (batch_begin, or handling a read) frames wait and then leave together: one
  // TLS record and one write for many small frames, not one each, on both sides.
  core::frame_append_text(json, &plain_);
  if (batch_depth_ == 0 || plain_.size() >= kSealAtBytes) flush();
}

bool TlsConn::seal(std::string* err) {
  if (!unpark()) {
    std::string().swap(plain_);
    *err = "no memory for the TLS record buffers";
    return false;
  }
  size_t off = 0;
  int n = 0;
  while (off < plain_.size()) {
    n = mbedtls_ssl_write(&ssl_, reinterpret_cast<const unsigned char*>(plain_.data()) + off,
                          plain_.size() - off);
    if (n < 0) break;
    off += static_cast<size_t>(n);
  }
  plain_.clear();
  if (n >= 0) return true;
  *err = "TLS write: " + mbedtls_message(n);
  return false;
}

void TlsConn::send_error(const std::string& what) {
  core::Json e = core::Json::message("error");
  e.set("error", what);
  send(e);
}

void TlsConn::flush() {
  if (state_ == State::kClosed) return;
  std::string err;
  if (!plain_.empty() && !seal(&err)) {
    close(err);
    return;
  }
  if (!out_.empty()) {
    if (pending_write_ + out_.size() > opts_.max_pending_write) {
      shutdown("peer does not read (" + std::to_string(pending_write_) + " bytes queued)", true);
      return;
    }
    write_out();
  }
  if (batch_depth_ == 0) settle();
}

bool TlsConn::unpark() {
  return idle_.restore(&ssl_) && idle_cipher_.restore(&ssl_);
}

bool TlsConn::wake() {
  if (unpark()) return true;
  close("no memory for the TLS record buffers");
  return false;
}

void TlsConn::settle() {
  if (state_ != State::kHello && state_ != State::kReady) return;
  // Kite's own buffers first (empty now, but holding what the last burst made them grow to),
  // then mbedTLS's record buffers when nothing is left in them.
  if (in_.empty()) core::release_buffer(&in_);
  core::release_buffer(&plain_);
  reader_.release_if_empty();
  if (idle_.park(&ssl_)) idle_cipher_.park(&ssl_);
}

void TlsConn::write_out() {
  auto* w = new WriteReq;
  w->conn = this;
  w->data.swap(out_);
  pending_write_ += w->data.size();
  uv_buf_t b = uv_buf_init(&w->data[0], static_cast<unsigned>(w->data.size()));
  int rc = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(&tcp_), &b, 1,
                    [](uv_write_t* req, int status) {
                      auto* wr = reinterpret_cast<WriteReq*>(req);
                      TlsConn* c = wr->conn;
                      c->pending_write_ -= wr->data.size();
                      delete wr;
                      if (status < 0) c->close(std::string("write: ") + uv_strerror(status));
                    });
  if (rc != 0) {
    pending_write_ -= w->data.size();
    delete w;
    close(std::string("write: ") + uv_strerror(rc));
  }
}

void TlsConn::on_timer(uv_timer_t* t) {
  auto* c = static_cast<TlsConn*>(t->data);
  if (c->state_ == State::kClosed) {  // the last writes did not drain in time
    c->close_handles();
    return;
  }
  if (c->state_ != State::kReady) {
    c->close("handshake timed out after " + std::to_string(c->opts_.handshake_timeout_ms) + " ms");
    return;
  }
  uint64_t silent = uv_now(c->loop_) - c->last_heard_ms_;
  if (silent >= 2 * c->opts_.keepalive_ms) {
    c->close("keepalive: nothing heard for " + std::to_string(silent) + " ms");
    return;
  }
  c->send(core::Json::message("ping"));
}

bool TlsConn::save_session(mbedtls_ssl_session* out) const {
  return mbedtls_ssl_get_session(&ssl_, out) == 0;
}

void TlsConn::close(const std::string& why) {
  shutdown(why, true);
}

void TlsConn::close_quietly() {
  shutdown("", false);
}

void TlsConn::shutdown(const std::string& why, bool tell) {
  if (state_ == State::kClosed) return;
  bool was_up = state_ == State::kHello || state_ == State::kReady;
  state_ = State::kClosed;
  uv_read_stop(reinterpret_cast<uv_stream_t*>(&tcp_));
  uv_timer_stop(&timer_);
  std::string err;
  if (was_up && !plain_.empty()) seal(&err);  // frames queued this turn (an error frame)
  std::string().swap(plain_);
  if (was_up && unpark()) mbedtls_ssl_close_notify(&ssl_);
  if (!out_.empty() && pending_write_ + out_.size() <= opts_.max_pending_write) write_out();
  // Let queued frames (an error frame, close_notify) reach the peer, within a deadline.
  auto* req = new uv_shutdown_t;
  req->data = this;
  if (pending_write_ > 0 &&
      uv_shutdown(req, reinterpret_cast<uv_stream_t*>(&tcp_), [](uv_shutdown_t* r, int) {
        auto* c = static_cast<TlsConn*>(r->data);
        delete r;
        c->close_handles();
      }) == 0) {
    uv_timer_start(&timer_, on_timer, kDrainTimeoutMs, 0);
  } else {
    delete req;
    close_handles();
  }
  if (tell) handler_->on_closed(this, why);
}

void TlsConn::close_handles() {
  if (handles_closing_) return;
  handles_closing_ = true;
  uv_timer_stop(&timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), on_handle_closed);
  uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), on_handle_closed);
}

void TlsConn::on_handle_closed(uv_handle_t* h) {
  auto* c = static_cast<TlsConn*>(h->data);
  if (--c->open_handles_ == 0) delete c;
}

}  // namespace kite::net
