// A framed connection on a libuv Unix-socket stream: queued writes, frames in, one close
// notification. Handles are freed after libuv's close callbacks, so owners may drop a
// connection at any time without dangling handles.
#pragma once

#include <uv.h>

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

  void send(const Json& msg);
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

  uv_pipe_t pipe_{};
  ConnHandler* handler_;
  FrameReader reader_;
  char rbuf_[16384];
  bool closing_ = false;
  friend struct ConnectReq;
};

}  // namespace kite::core
