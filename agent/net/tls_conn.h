// One mutual-TLS connection on a libuv TCP stream. mbedTLS never touches the socket: its BIO
// callbacks read from a buffer libuv's reads fill and append to a buffer flushed by uv_write,
// so a handshake or a slow peer never blocks the loop. After the handshake both sides send a
// hello frame carrying the protocol version; the connection is "ready" when the peer's arrives.
// The transport answers ping with pong, bad frames and unknown types with an error frame, and
// closes repeat offenders, peers that miss keepalives and handshakes that take too long.
#pragma once

#include <mbedtls/ssl.h>
#include <uv.h>

#include <cstdint>
#include <string>

#include "agent/core/frame.h"
#include "agent/net/identity.h"
#include "agent/net/tls_context.h"
#include "agent/net/tls_idle_buffers.h"
#include "agent/net/tls_idle_cipher.h"

namespace kite::net {

inline constexpr int kProtocolVersion = 1;

struct ConnOptions {
  std::string name;                       // sent in our hello (the machine or daemon name)
  uint64_t handshake_timeout_ms = 10000;  // TLS handshake and hello exchange
  uint64_t keepalive_ms = 30000;          // ping when idle; closed after two intervals of silence
  int max_bad_frames = 3;                 // bad frames answered with errors before the close
  size_t max_pending_write = 8u << 20;    // a peer that stops reading is closed
  // Ready (on_ready) once TLS is done and our hello sent, not when the peer's hello comes: a
  // one-request client (the CLI) spares a round trip; the peer's hello is still checked.
  bool ready_at_handshake = false;
};

class TlsConn;
struct ConnMemory;

class TlsConnHandler {
 public:
  virtual ~TlsConnHandler() = default;
  /// TLS and hello done both ways; c->peer() is the verified identity.
  virtual void on_ready(TlsConn* c) = 0;
  /// A frame other than hello/ping/pong. Return false for a type the handler does not know:
  /// the transport answers with an error frame.
  virtual bool on_frame(TlsConn* c, core::Json& msg) = 0;
  /// The connection is gone (called once; `c` is freed after the loop's next turn).
  virtual void on_closed(TlsConn* c, const std::string& why) = 0;
};

class TlsConn {
 public:
  static TlsConn* create(uv_loop_t* loop, TlsContext* ctx, TlsConnHandler* h,
                         const ConnOptions& opts);
  uv_tcp_t* tcp() { return &tcp_; }
  /// Starts the handshake on a connected/accepted stream. A client passes the server name to
  /// check against its certificate (empty: any name the CA signed) and a saved session.
  bool start(const std::string& server_name, const mbedtls_ssl_session* resume, std::string* err);

  /// Sends a frame (dropped unless the TLS session is up): written at once, or, inside a batch
  /// or while a read is being handled, with the batch's other frames when it ends.
  void send(const core::Json& msg);
  /// send() of a frame whose JSON text the caller wrote.
  void send_text(std::string_view json);
  /// Frames sent until the matching batch_end() are sealed into as few TLS records as fit and
  /// written at once: a burst of small frames (an agent's slot updates) costs both sides one
  /// record and one write, not one each. Batches nest.
  void batch_begin() { ++batch_depth_; }
  void batch_end();
  void send_error(const std::string& what);
  /// Closes and tells the handler.
  void close(const std::string& why);
  /// Closes without telling the handler.
  void close_quietly();

  bool ready() const { return state_ == State::kReady; }
  /// Was ready at some point (still true after the close).
  bool established() const { return established_; }
  bool closing() const { return state_ == State::kClosed; }
  const PeerIdentity& peer() const { return peer_; }
  const std::string& peer_name() const { return peer_name_; }  // from the peer's hello
  const std::string& address() const { return address_; }
  /// The handshake resumed an earlier session (a ticket), as mbedTLS reported it.
  bool resumed() const { return resumed_; }
  /// Loop time (ms) at which start() ran.
  uint64_t started_ms() const { return started_ms_; }
  /// start() ran: the TCP connection was up and the TLS handshake began.
  bool tls_started() const { return tls_started_; }
  /// Copies the negotiated session for a later resumption (clients).
  bool save_session(mbedtls_ssl_session* out) const;
  /// Idle: the TLS record buffers are given back until records move again (TlsIdleBuffers).
  bool buffers_parked() const { return idle_.parked(); }
  /// Idle: the record protection (transform, cipher contexts) too (TlsIdleCipher).
  bool cipher_parked() const { return idle_cipher_.parked(); }
  void* user = nullptr;

 private:
  friend void add_conn_memory(const TlsConn& c, ConnMemory* m);  // conn_memory.h
  enum class State { kHandshake, kHello, kReady, kClosed };
  TlsConn(uv_loop_t* loop, TlsContext* ctx, TlsConnHandler* h, const ConnOptions& opts);
  ~TlsConn();
  static int bio_send(void* self, const unsigned char* buf, size_t len);
  static int bio_recv(void* self, unsigned char* buf, size_t len);
  static void on_alloc(uv_handle_t* h, size_t suggested, uv_buf_t* buf);
  static void on_read(uv_stream_t* s, ssize_t n, const uv_buf_t* buf);
  static void on_timer(uv_timer_t* t);
  static void on_handle_closed(uv_handle_t* h);
  void pump();
  void handshake();
  void handshake_done();
  void read_plaintext();
  void dispatch(core::Json& msg);
  // Checks the peer's hello (false: refused and closed).
  bool take_peer_hello(core::Json& msg);
  void become_ready();
  // Encrypts and writes what is queued.
  void flush();
  // Encrypts the queued frames into out_; false with `err` when mbedTLS fails.
  bool seal(std::string* err);
  void write_out();
  // Before mbedTLS reads: parked record buffers back (false: out of memory, closed).
  bool wake();
  // Parked buffers and record protection back (false: out of memory).
  bool unpark();
  // Once a turn's frames are handled and written: the buffers an idle connection does not
  // need go back to the heap (a CM holds thousands of quiet agent connections).
  void settle();
  // Queued frames past this many bytes are sealed at once (a big reply need not wait).
  static constexpr size_t kSealAtBytes = 64 * 1024;
  void close_handles();
  static constexpr uint64_t kDrainTimeoutMs = 2000;
  void shutdown(const std::string& why, bool tell);

  uv_loop_t* loop_;
  TlsContext* ctx_;
  TlsConnHandler* handler_;
  ConnOptions opts_;
  uv_tcp_t tcp_{};
  uv_timer_t timer_{};
  int open_handles_ = 0;
  bool handles_closing_ = false;
  mbedtls_ssl_context ssl_;
  State state_ = State::kHandshake;
  std::string in_;  // ciphertext an earlier read left, not yet taken by mbedTLS
  size_t in_pos_ = 0;
  const char* rx_ = nullptr;  // the read being handled (a buffer the loop's connections share)
  size_t rx_left_ = 0;        // its bytes mbedTLS has not taken yet
  TlsIdleBuffers idle_;
  TlsIdleCipher idle_cipher_;
  std::string plain_;  // frames of the current batch, not yet sealed
  int batch_depth_ = 0;
  std::string out_;  // ciphertext for the peer not yet handed to uv_write
  size_t pending_write_ = 0;
  core::FrameReader reader_;
  int bad_frames_ = 0;
  uint64_t last_heard_ms_ = 0;
  uint64_t started_ms_ = 0;
  bool resumed_ = false;
  bool tls_started_ = false;
  bool established_ = false;
  bool shared_session_ = false;       // ssl_.session is the context's (TlsContext::share_session)
  bool awaiting_peer_hello_ = false;  // ready_at_handshake: ready, the peer's hello not yet in
  PeerIdentity peer_;
  std::string peer_name_;
  std::string address_;
};

}  // namespace kite::net
