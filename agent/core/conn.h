// A framed connection on a libuv Unix-socket stream: queued writes, frames in, one close
// notification. Handles are freed after libuv's close callbacks, so owners may drop a
// connection at any time without dangling handles. Servers may bound a connection: a cap on
// the output queued for a peer that does not read, and an idle timeout between frames.
#pragma once

#include <uv.h>

#include <cstdint>
#include <string>

#include "agent/core/frame.h"

namespace kite::core {

class Conn;

/// What the owner of a connection hears.
class ConnHandler {
 public:
  virtual ~ConnHandler() = default;
  virtual void on_frame(Conn* c, Json& msg) = 0;
  /// The connection is gone (peer closed, error, bad frame stream, or close()). Called once;
  /// `c` must not be used after it returns.
  virtual void on_closed(Conn* c, const std::string& why) = 0;
};

class Conn {
 public:
  /// Accepts a pending connection on `server`. Null on failure.
  static Conn* accept(uv_stream_t* server, ConnHandler* h);
  /// Connects to `path`; `done(ctx, conn_or_null, err)` is called from the loop.
  using ConnectDone = void (*)(void* ctx, Conn* c, int status);
  static void connect(uv_loop_t* loop, const std::string& path, ConnHandler* h, void* ctx,
                      ConnectDone done);

  /// Queues `msg`. When a cap is set and more than that is already queued (the peer does not
  /// read), the connection is dropped instead; the handler hears it from the loop, never from
  /// inside send().
  void send(const Json& msg);
  /// Output cap in bytes (0 = none).
  void set_max_queued(size_t bytes) { max_queued_ = bytes; }
  /// Largest frame accepted from the peer (at most kMaxFrame, the default).
  void set_max_frame(size_t bytes) { reader_.set_max_frame(bytes); }
  /// Closes the connection when no whole frame arrives for `ms` (0 = off); restarts the count.
  void set_idle_timeout(uint64_t ms);
  /// Closes without telling the handler (the owner already knows).
  void close_quietly();
  void close(const std::string& why);
  int fd() const;
  bool closing() const { return closing_; }
  void* user = nullptr;  // owner's tag
  /// Bad frames tolerated before the connection is closed (repeat offenders).
  int bad_frames = 0;

 private:
  explicit Conn(ConnHandler* h) : handler_(h) {}
  ~Conn() = default;
  void start_read();
  static void on_alloc(uv_handle_t* h, size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf);
  static void on_closed_handle(uv_handle_t* h);
  void close_handles();
  void drop_later(const std::string& why);

  uv_pipe_t pipe_{};
  uv_timer_t idle_{};
  uint64_t idle_ms_ = 0;
  size_t max_queued_ = 0;
  int open_handles_ = 1;     // the pipe, plus the idle timer once it is set up
  std::string dropped_why_;  // told to the handler once the handles are closed
  ConnHandler* handler_;
  FrameReader reader_;
  char rbuf_[16384];
  bool closing_ = false;
  friend struct ConnectReq;
};

}  // namespace kite::core
