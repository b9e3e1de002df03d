// libuv plumbing for framed Unix-socket connections.
#include "agent/core/conn.h"

#include <cstdlib>
#include <cstring>

#include "agent/core/log.h"

namespace kite::core {

struct ConnectReq {
  uv_connect_t req{};
  Conn* conn = nullptr;
  void* ctx = nullptr;
  Conn::ConnectDone done = nullptr;
};

namespace {

struct WriteReq {
  uv_write_t req{};
  std::string data;
};

void on_written(uv_write_t* req, int) {
  delete reinterpret_cast<WriteReq*>(req->data);
}

}  // namespace

Conn* Conn::accept(uv_stream_t* server, ConnHandler* h) {
  Conn* c = new Conn(h);
  uv_pipe_init(server->loop, &c->pipe_, 0);
  c->pipe_.data = c;
  if (uv_accept(server, reinterpret_cast<uv_stream_t*>(&c->pipe_)) != 0) {
    c->closing_ = true;
    c->handler_ = nullptr;
    uv_close(reinterpret_cast<uv_handle_t*>(&c->pipe_), on_closed_handle);
    return nullptr;
  }
  c->start_read();
  return c;
}

void Conn::connect(uv_loop_t* loop, const std::string& path, ConnHandler* h, void* ctx,
                   ConnectDone done) {
  Conn* c = new Conn(h);
  uv_pipe_init(loop, &c->pipe_, 0);
  c->pipe_.data = c;
  auto* r = new ConnectReq;
  r->conn = c;
  r->ctx = ctx;
  r->done = done;
  r->req.data = r;
  uv_pipe_connect(&r->req, &c->pipe_, path.c_str(), [](uv_connect_t* req, int status) {
    auto* r = static_cast<ConnectReq*>(req->data);
    Conn* c = r->conn;
    if (status != 0) {
      c->closing_ = true;
      c->handler_ = nullptr;
      uv_close(reinterpret_cast<uv_handle_t*>(&c->pipe_), on_closed_handle);
      r->done(r->ctx, nullptr, status);
    } else {
      c->start_read();
      r->done(r->ctx, c, 0);
    }
    delete r;
  });
}

int Conn::fd() const {
  uv_os_fd_t fd = -1;
  uv_fileno(reinterpret_cast<const uv_handle_t*>(&pipe_), &fd);
  return fd;
}

void Conn::start_read() {
  uv_read_start(reinterpret_cast<uv_stream_t*>(&pipe_), on_alloc, on_read);
}

void Conn::on_alloc(uv_handle_t* h, size_t, uv_buf_t* buf) {
  Conn* c = static_cast<Conn*>(h->data);
  *buf = uv_buf_init(c->rbuf_, sizeof c->rbuf_);
}

void Conn::on_read(uv_stream_t* s, ssize_t n, const uv_buf_t*) {
  Conn* c = static_cast<Conn*>(s->data);
  if (n < 0) {
    c->close(n == UV_EOF ? "peer closed" : uv_strerror(static_cast<int>(n)));
    return;
  }
  if (n == 0) return;
  c->reader_.feed(c->rbuf_, static_cast<size_t>(n));
  for (;;) {
    Json msg;
    std::string err;
    FrameReader::Result r = c->reader_.next(&msg, &err);
    if (r == FrameReader::Result::kNeedMore || c->closing_) return;
    // Only whole good frames count as activity: a slow drip of bytes does not keep a peer.
    if (r == FrameReader::Result::kMessage && c->idle_ms_ > 0) c->set_idle_timeout(c->idle_ms_);
    if (r == FrameReader::Result::kError) {
      Json e = Json::message("error");
      e.set("message", err);
      c->send(e);
      if (c->reader_.broken() || ++c->bad_frames > 3) {
        c->close("bad frames: " + err);
        return;
      }
      continue;
    }
    c->handler_->on_frame(c, msg);
    if (c->closing_) return;
  }
}

void Conn::send(const Json& msg) {
  if (closing_) return;
  size_t queued = uv_stream_get_write_queue_size(reinterpret_cast<const uv_stream_t*>(&pipe_));
  if (max_queued_ > 0 && queued > max_queued_) {
    drop_later("the peer does not read its replies (" + std::to_string(queued) +
               " bytes queued, the cap is " + std::to_string(max_queued_) + ")");
    return;
  }
  auto* w = new WriteReq;
  frame_append(msg, &w->data);
  w->req.data = w;
  uv_buf_t b = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
  if (uv_write(&w->req, reinterpret_cast<uv_stream_t*>(&pipe_), &b, 1, on_written) != 0) {
    delete w;
  }
}

void Conn::set_idle_timeout(uint64_t ms) {
  if (closing_) return;
  if (open_handles_ == 1) {
    uv_timer_init(pipe_.loop, &idle_);
    idle_.data = this;
    open_handles_ = 2;
  }
  idle_ms_ = ms;
  if (ms == 0) {
    uv_timer_stop(&idle_);
    return;
  }
  uv_timer_start(
      &idle_,
      [](uv_timer_t* t) {
        Conn* c = static_cast<Conn*>(t->data);
        c->close("idle for " + std::to_string(c->idle_ms_ / 1000) + " s");
      },
      ms, 0);
}

void Conn::on_closed_handle(uv_handle_t* h) {
  Conn* c = static_cast<Conn*>(h->data);
  if (--c->open_handles_ > 0) return;
  // A dropped connection's owner hears it here, outside whatever call dropped it.
  if (c->handler_ && !c->dropped_why_.empty()) c->handler_->on_closed(c, c->dropped_why_);
  delete c;
}

void Conn::close_handles() {
  uv_close(reinterpret_cast<uv_handle_t*>(&pipe_), on_closed_handle);
  if (open_handles_ == 2) uv_close(reinterpret_cast<uv_handle_t*>(&idle_), on_closed_handle);
}

void Conn::drop_later(const std::string& why) {
  if (closing_) return;
  closing_ = true;
  dropped_why_ = why;
  close_handles();
}

void Conn::close_quietly() {
  if (closing_) return;
  closing_ = true;
  handler_ = nullptr;
  close_handles();
}

void Conn::close(const std::string& why) {
  if (closing_) return;
  ConnHandler* h = handler_;
  close_quietly();
  if (h) h->on_closed(this, why);
}

}  // namespace kite::core
