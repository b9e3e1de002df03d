// The mutual-TLS transport on loopback with certificates made by `kite pki`: frames both ways,
// refused peers (other CA, expired, revoked, no certificate, plain TCP), hostile frames from a
// raw TLS client, keepalive, session resumption, reconnect after a server restart.
#include <arpa/inet.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/ssl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "agent/net/conn_memory.h"
#include "agent/net/session_file.h"
#include "net_test_util.h"

namespace kite::test {
namespace {

using net::TlsContext;

int tcp_connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{5, 0};  // a stalled server fails the test instead of hanging it
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

std::string frame_bytes(const std::string& body) {
  uint32_t n = static_cast<uint32_t>(body.size());
  std::string out{static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                  static_cast<char>(n)};
  return out + body;
}

// A TLS client on a blocking socket, driven by mbedTLS directly (in a thread of its own, so
// it can misbehave in ways NetClient never does). No certificate when `files.cert` is empty.
class RawTls {
 public:
  RawTls(const net::TlsFiles& files, int port) {
    mbedtls_ssl_init(&ssl_);
    mbedtls_ssl_config_init(&conf_);
    mbedtls_x509_crt_init(&ca_);
    mbedtls_x509_crt_init(&crt_);
    mbedtls_pk_init(&key_);
    mbedtls_entropy_init(&entropy_);
    mbedtls_ctr_drbg_init(&drbg_);
    mbedtls_ctr_drbg_seed(&drbg_, mbedtls_entropy_func, &entropy_, nullptr, 0);
    mbedtls_x509_crt_parse_file(&ca_, files.ca.c_str());
    mbedtls_ssl_config_defaults(&conf_, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
                                MBEDTLS_SSL_PRESET_DEFAULT);
    mbedtls_ssl_conf_rng(&conf_, mbedtls_ctr_drbg_random, &drbg_);
    mbedtls_ssl_conf_ca_chain(&conf_, &ca_, nullptr);
    mbedtls_ssl_conf_authmode(&conf_, MBEDTLS_SSL_VERIFY_REQUIRED);
    if (!files.cert.empty()) {
      mbedtls_x509_crt_parse_file(&crt_, files.cert.c_str());
      mbedtls_pk_parse_keyfile(&key_, files.key.c_str(), nullptr);
      mbedtls_ssl_conf_own_cert(&conf_, &crt_, &key_);
    }
    mbedtls_ssl_setup(&ssl_, &conf_);
    fd_ = tcp_connect(port);
    mbedtls_ssl_set_bio(&ssl_, &fd_, bio_send, bio_recv, nullptr);
  }
  ~RawTls() {
    if (fd_ >= 0) ::close(fd_);
    mbedtls_ssl_free(&ssl_);
    mbedtls_ssl_config_free(&conf_);
    mbedtls_x509_crt_free(&ca_);
    mbedtls_x509_crt_free(&crt_);
    mbedtls_pk_free(&key_);
    mbedtls_ctr_drbg_free(&drbg_);
    mbedtls_entropy_free(&entropy_);
  }
  int handshake() { return fd_ < 0 ? -1 : mbedtls_ssl_handshake(&ssl_); }
  bool write(const std::string& bytes) {
    size_t off = 0;
    while (off < bytes.size()) {
      int n = mbedtls_ssl_write(&ssl_, reinterpret_cast<const unsigned char*>(bytes.data()) + off,
                                bytes.size() - off);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  /// Plaintext until `needle` shows up; false on close, error or the socket timeout.
  bool read_until(const std::string& needle) {
    unsigned char buf[4096];
    while (got_.find(needle) == std::string::npos) {
      int n = mbedtls_ssl_read(&ssl_, buf, sizeof buf);
      if (n <= 0) return false;
      got_.append(reinterpret_cast<char*>(buf), static_cast<size_t>(n));
    }
    return true;
  }
  /// True when the server ends the connection (close_notify, EOF or reset) before the timeout.
  bool closed_by_peer() {
    unsigned char buf[4096];
    for (;;) {
      int n = mbedtls_ssl_read(&ssl_, buf, sizeof buf);
      if (n > 0) continue;
      if (n == MBEDTLS_ERR_SSL_TIMEOUT || n == MBEDTLS_ERR_SSL_WANT_READ) return false;
      return true;
    }
  }
  const std::string& got() const { return got_; }

 private:
  static int bio_send(void* ctx, const unsigned char* b, size_t n) {
    ssize_t r = ::send(*static_cast<int*>(ctx), b, n, MSG_NOSIGNAL);
    return r < 0 ? MBEDTLS_ERR_SSL_INTERNAL_ERROR : static_cast<int>(r);
  }
  static int bio_recv(void* ctx, unsigned char* b, size_t n) {
    ssize_t r = ::recv(*static_cast<int*>(ctx), b, n, 0);
    if (r < 0)
      return (errno == EAGAIN || errno == EWOULDBLOCK) ? MBEDTLS_ERR_SSL_TIMEOUT
                                                       : MBEDTLS_ERR_SSL_INTERNAL_ERROR;
    return static_cast<int>(r);  // 0: EOF
  }
  int fd_ = -1;
  mbedtls_ssl_context ssl_;
  mbedtls_ssl_config conf_;
  mbedtls_x509_crt ca_, crt_;
  mbedtls_pk_context key_;
  mbedtls_entropy_context entropy_;
  mbedtls_ctr_drbg_context drbg_;
  std::string got_;
};

const std::string kHello = R"({"type":"hello","version":1,"name":"raw"})";

// A loop with a pool, a CM server and an agent client around it.
class NetTransport : public ::testing::Test {
 protected:
  void SetUp() override {
    uv_loop_init(&loop_);
    pool_.issue("cm", "cm1");
    pool_.issue("agent", "node1");
    server_ctx_ = pool_.context(TlsContext::Role::kServer, "cm1");
    client_ctx_ = pool_.context(TlsContext::Role::kClient, "node1");
    ASSERT_TRUE(server_ctx_ && client_ctx_);
    start_server(0);
  }
  void TearDown() override {
    client_.reset();
    server_.reset();
    uv_run(&loop_, UV_RUN_NOWAIT);
    uv_run(&loop_, UV_RUN_NOWAIT);
    uv_loop_close(&loop_);
  }
  void start_server(int port) {
    net::ConnOptions o;
    o.name = "cm1";
    o.handshake_timeout_ms = 2000;
    o.keepalive_ms = keepalive_ms_;
    server_.reset(new net::NetServer(&loop_, server_ctx_.get(), &echo_, o));
    std::string err;
    ASSERT_TRUE(server_->listen("127.0.0.1", port, &err)) << err;
  }
  net::NetClient* start_client(TlsContext* ctx, RecordingClient* rec) {
    net::ClientOptions o;
    o.host = "127.0.0.1";
    o.port = server_->port();
    o.server_name = "localhost";
    o.conn.name = "node1";
    o.backoff_min_ms = 20;
    o.backoff_max_ms = 200;
    auto* c = new net::NetClient(&loop_, ctx, rec, o);
    c->start();
    return c;
  }
  // The live client still gets its echo: the server kept serving.
  void expect_echo(int n) {
    core::Json m = core::Json::message("echo");
    m.set("n", n);
    ASSERT_TRUE(client_->send(m));
    EXPECT_TRUE(run_until(&loop_, [&] { return !rec_.echoed.empty() && rec_.echoed.back() == n; }))
        << "no echo " << n;
  }
  // Runs `peer` in a thread while the loop serves; true when it finished in time.
  template <typename F>
  bool with_peer(F peer) {
    std::atomic<bool> done{false};
    std::thread t([&] {
      peer();
      done = true;
    });
    bool ok = run_until(
        &loop_, [&] { return done.load(); }, 20000);
    t.join();
    return ok;
  }

  uint64_t keepalive_ms_ = 30000;
  uv_loop_t loop_;
  TestPool pool_;
  std::unique_ptr<TlsContext> server_ctx_, client_ctx_;
  EchoServer echo_;
  RecordingClient rec_;
  std::unique_ptr<net::NetServer> server_;
  std::unique_ptr<net::NetClient> client_;
};

TEST_F(NetTransport, FramesBothWaysWithVerifiedIdentities) {
  client_.reset(start_client(client_ctx_.get(), &rec_));
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.connected == 1 && echo_.ready.size() == 1; }));
  EXPECT_EQ(echo_.peers[0], "agent/node1");
  EXPECT_EQ(echo_.ready[0]->peer_name(), "node1");
  EXPECT_TRUE(echo_.ready[0]->peer().may_act_for_machine("node1"));
  EXPECT_FALSE(echo_.ready[0]->peer().may_act_for_machine("node2"));
  EXPECT_EQ(client_->conn()->peer().cn, "cm1");
  EXPECT_EQ(client_->conn()->peer().role, "cm");
  expect_echo(7);
  // Server to client, and an unknown type answered with an error frame.
  core::Json push = core::Json::message("drain");
  echo_.ready[0]->send(push);
  core::Json odd = core::Json::message("no-such-type");
  ASSERT_TRUE(client_->send(odd));
  EXPECT_TRUE(run_until(&loop_, [&] {
    return rec_.frames.size() >= 3 && rec_.last_error.find("no-such-type") != std::string::npos;
  }));
  EXPECT_EQ(rec_.frames[1], "drain");
}

// A batch of frames (NetClient::send_all) is sealed and written together: they still arrive
// whole and in order, one far over the 64 KiB that makes the batch go at once among them, and
// a frame sent just before the client stops still reaches the server.
TEST_F(NetTransport, BatchedFramesArriveWholeAndInOrder) {
  client_.reset(start_client(client_ctx_.get(), &rec_));
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.connected == 1 && echo_.ready.size() == 1; }));
  const int kFrames = 300;
  std::vector<core::Json> batch;
  for (int i = 0; i < kFrames; ++i) {
    core::Json m = core::Json::message("echo");
    m.set("n", i);
    if (i == kFrames / 2) m.set("pad", std::string(200000, 'x'));
    batch.push_back(std::move(m));
  }
  ASSERT_TRUE(client_->send_all(batch));
  EXPECT_TRUE(run_until(&loop_, [&] { return rec_.echoed.size() == static_cast<size_t>(kFrames); }))
      << rec_.echoed.size() << " echoes";
  for (size_t i = 0; i < rec_.echoed.size(); ++i) ASSERT_EQ(rec_.echoed[i], static_cast<int>(i));
  ASSERT_TRUE(client_->send(core::Json::message("last-words")));
  client_->stop();
  EXPECT_TRUE(run_until(&loop_, [&] { return echo_.frames.back() == "last-words"; }))
      << echo_.frames.back();
}

// Between bursts both ends give their TLS record buffers back, and bring them back with the
// record counters as they were: a counter lost or reset would fail the next record's
// authentication and close the connection. Frames of every size keep flowing both ways, and
// the connection parks again after each exchange.
TEST_F(NetTransport, IdleConnectionsParkTheirRecordBuffersAndCiphers) {
  client_.reset(start_client(client_ctx_.get(), &rec_));
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.connected == 1 && echo_.ready.size() == 1; }));
  auto parked = [](const net::TlsConn* c) { return c->buffers_parked() && c->cipher_parked(); };
  auto both_parked = [&] {  // (a closed connection leaves echo_.ready)
    return echo_.ready.size() == 1 && parked(echo_.ready[0]) && client_->conn() &&
           parked(client_->conn());
  };
  ASSERT_TRUE(run_until(&loop_, both_parked)) << "no side parked after the handshake";
  const int kRounds = 40;
  for (int i = 0; i < kRounds; ++i) {
    core::Json m = core::Json::message("echo");
    m.set("n", i);
    if (i % 10 == 9) m.set("pad", std::string(5000 * static_cast<size_t>(i), 'p'));  // many records
    ASSERT_TRUE(client_->send(m));
    ASSERT_TRUE(run_until(&loop_, [&] { return rec_.echoed.size() == static_cast<size_t>(i + 1); }))
        << "no echo " << i << " (" << rec_.disconnected << " disconnects)";
    EXPECT_EQ(rec_.echoed.back(), i);
    ASSERT_TRUE(run_until(&loop_, both_parked)) << "not parked again after echo " << i;
  }
  // The server speaks first too (a command to an idle agent).
  echo_.ready[0]->send(core::Json::message("drain"));
  EXPECT_TRUE(run_until(&loop_, [&] { return rec_.frames.back() == "drain"; }));
  EXPECT_EQ(rec_.disconnected, 0);
  EXPECT_EQ(echo_.closed, 0);
  // A parked connection closes with a close_notify sealed by its restored keys: the peer reads
  // an orderly close, not a bad record.
  ASSERT_TRUE(run_until(&loop_, both_parked));
  echo_.ready[0]->close("test closes the idle agent");
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.disconnected == 1; }));
  EXPECT_EQ(rec_.why.back(), "peer closed the connection");
}

TEST_F(NetTransport, AnIdleServerConnectionKeepsNoSessionTransformOrRecords) {
  client_.reset(start_client(client_ctx_.get(), &rec_));
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.connected == 1 && echo_.ready.size() == 1; }));
  ASSERT_TRUE(run_until(
      &loop_, [&] { return echo_.ready[0]->cipher_parked() && client_->conn()->cipher_parked(); }));
  net::ConnMemory server, client;
  net::add_conn_memory(*echo_.ready[0], &server);
  net::add_conn_memory(*client_->conn(), &client);
  // The server's session is its context's shared one; the client keeps its own (its ticket,
  // for the next resumption).
  EXPECT_EQ(server.session, 0u);
  EXPECT_GT(client.session, 0u);
  EXPECT_EQ(server.transform, 0u);
  EXPECT_EQ(server.records, 0u);
  EXPECT_EQ(server.handshake, 0u);
  EXPECT_GE(server.object, sizeof(net::TlsConn));
  // Two connections share one session: a second client's frames still go both ways.
  RecordingClient rec2;
  std::unique_ptr<net::NetClient> second(start_client(client_ctx_.get(), &rec2));
  ASSERT_TRUE(run_until(&loop_, [&] { return rec2.connected == 1 && echo_.ready.size() == 2; }));
  core::Json m = core::Json::message("echo");
  m.set("n", 7);
  ASSERT_TRUE(second->send(m));
  ASSERT_TRUE(run_until(&loop_, [&] { return rec2.echoed.size() == 1; }));
  EXPECT_EQ(rec2.echoed.back(), 7);
  expect_echo(1);
  EXPECT_EQ(server_ctx_->shared_sessions(), 1u) << "the two connections' sessions differ";
}

TEST_F(NetTransport, RefusesBadPeersAndKeepsServing) {
  client_.reset(start_client(client_ctx_.get(), &rec_));
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.connected == 1; }));
  TestPool other;
  other.issue("agent", "intruder");
  pool_.issue("agent", "old", 0);
  pool_.issue("agent", "gone");
  pool_.revoke("gone");
  // The server reads the CRL at start: a CM restarted after the revocation.
  server_ctx_ = pool_.context(TlsContext::Role::kServer, "cm1");
  int port = server_->port();
  server_.reset();
  start_server(port);
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.connected == 2; }));

  struct Bad {
    const char* what;
    net::TlsFiles files;
  };
  net::TlsFiles no_cert = pool_.files("node1", false);
  no_cert.cert.clear();
  std::vector<Bad> bad = {
      {"other CA", other.files("intruder", false)},
      {"expired", pool_.files("old", false)},
      {"revoked", pool_.files("gone", false)},
      {"no certificate", no_cert},
  };
  // A peer whose CA differs still trusts ours, so the refusal is the server's.
  bad[0].files.ca = pool_.ca() + "/ca.crt";
  int n = 1;
  for (const Bad& b : bad) {
    uint64_t before = server_->handshake_failures();
    int rc = 0;
    ASSERT_TRUE(with_peer([&] {
      RawTls raw(b.files, port);
      rc = raw.handshake();
      if (rc == 0) rc = raw.write(frame_bytes(kHello)) && raw.read_until("hello") ? 0 : -1;
    })) << b.what;
    EXPECT_NE(rc, 0) << b.what << " was let in";
    EXPECT_TRUE(run_until(&loop_, [&] { return server_->handshake_failures() > before; }))
        << b.what << " not counted as a refused handshake";
    expect_echo(++n);
  }
  // Plain TCP sending garbage.
  uint64_t before = server_->handshake_failures();
  ASSERT_TRUE(with_peer([&] {
    int fd = tcp_connect(port);
    std::string junk = "GET / HTTP/1.0\r\n\r\n" + std::string(5000, 'x');
    (void)!::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL);
    char buf[256];
    while (::recv(fd, buf, sizeof buf, 0) > 0) {
    }
    ::close(fd);
  }));
  EXPECT_TRUE(run_until(&loop_, [&] { return server_->handshake_failures() > before; }));
  expect_echo(++n);
  EXPECT_EQ(echo_.ready.size(), 1u);
}

TEST_F(NetTransport, HostileFramesNeverStallTheServer) {
  client_.reset(start_client(client_ctx_.get(), &rec_));
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.connected == 1; }));
  int port = server_->port();
  net::TlsFiles me = pool_.files("node1", false);
  bool bad_json_answered = false, closed_after_repeats = false, oversize_closed = false;
  bool first_not_hello_closed = false, drip_echoed = false;
  ASSERT_TRUE(with_peer([&] {
    RawTls raw(me, port);
    if (raw.handshake() != 0 || !raw.write(frame_bytes(kHello))) return;
    bad_json_answered = raw.write(frame_bytes("{not json")) && raw.read_until("bad JSON");
    raw.write(frame_bytes("[1,2]") + frame_bytes(R"({"no":"type"})") + frame_bytes("x"));
    closed_after_repeats = raw.closed_by_peer();
  }));
  expect_echo(1);
  bool error_not_answered = false;
  ASSERT_TRUE(with_peer([&] {
    RawTls raw(me, port);
    if (raw.handshake() != 0 || !raw.write(frame_bytes(kHello))) return;
    raw.write(frame_bytes(R"({"type":"error","error":"x"})") +
              frame_bytes(R"({"type":"echo","n":5})"));
    error_not_answered =
        raw.read_until("\"n\":5") && raw.got().find("\"type\":\"error\"") == std::string::npos;
  }));
  EXPECT_TRUE(error_not_answered);
  ASSERT_TRUE(with_peer([&] {
    RawTls raw(me, port);
    if (raw.handshake() != 0 || !raw.write(frame_bytes(kHello))) return;
    raw.write(std::string("\x7f\xff\xff\xff", 4) + "{");
    oversize_closed = raw.read_until("over the 1 MiB limit") && raw.closed_by_peer();
  }));
  expect_echo(2);
  ASSERT_TRUE(with_peer([&] {
    RawTls raw(me, port);
    if (raw.handshake() != 0) return;
    raw.write(frame_bytes(R"({"type":"echo","n":1})"));
    first_not_hello_closed = raw.read_until("expected hello") && raw.closed_by_peer();
  }));
  expect_echo(3);
  // Slow drip: a hello and an echo one byte per record; the live client is served meanwhile.
  std::atomic<bool> dripping{true};
  std::thread drip([&] {
    RawTls raw(me, port);
    if (raw.handshake() == 0) {
      std::string all = frame_bytes(kHello) + frame_bytes(R"({"type":"echo","n":99})");
      for (char c : all) {
        if (!raw.write(std::string(1, c))) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the peer's pace, not a wait
      }
      drip_echoed = raw.read_until("\"n\":99");
    }
    // Truncated: half a frame, then the connection drops.
    raw.write(std::string("\x00\x00\x01\x00{\"type\"", 11));
    dripping = false;
  });
  expect_echo(4);
  ASSERT_TRUE(run_until(
      &loop_, [&] { return !dripping.load(); }, 20000));
  drip.join();
  expect_echo(5);
  EXPECT_TRUE(bad_json_answered);
  EXPECT_TRUE(closed_after_repeats);
  EXPECT_TRUE(oversize_closed);
  EXPECT_TRUE(first_not_hello_closed);
  EXPECT_TRUE(drip_echoed);
  EXPECT_TRUE(run_until(&loop_, [&] { return server_->connections() == 1; }));
}

TEST_F(NetTransport, SilentPeerIsClosedByKeepalive) {
  keepalive_ms_ = 100;
  start_server(0);
  int port = server_->port();
  bool closed = false;
  ASSERT_TRUE(with_peer([&] {
    RawTls raw(pool_.files("node1", false), port);
    if (raw.handshake() != 0 || !raw.write(frame_bytes(kHello))) return;
    closed = raw.read_until("ping") && raw.closed_by_peer();
  }));
  EXPECT_TRUE(closed);
  EXPECT_TRUE(run_until(&loop_, [&] { return echo_.closed == 1; }));
}

TEST_F(NetTransport, ReconnectResumesTheSession) {
  client_.reset(start_client(client_ctx_.get(), &rec_));
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.connected == 1; }));
  EXPECT_FALSE(client_->conn()->resumed());
  echo_.ready[0]->close("test drops the agent");
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.connected == 2; }));
  EXPECT_TRUE(client_->conn()->resumed()) << "client did not resume with its ticket";
  EXPECT_EQ(echo_.resumed, 1);
  EXPECT_EQ(echo_.peers.back(), "agent/node1");  // identity survives resumption
  expect_echo(1);
}

TEST_F(NetTransport, SessionFileLetsTheNextProcessResume) {
  std::string file = pool_.dir + "/node1.crt.session";
  net::TlsFiles files = pool_.files("node1");
  auto connect_once = [&](const std::string& key) {
    RecordingClient rec;
    auto ctx = pool_.context(TlsContext::Role::kClient, "node1");  // as a new process would
    net::ClientOptions o;
    o.host = "127.0.0.1";
    o.port = server_->port();
    o.conn.name = "node1";
    o.session_file = file;
    o.session_key = key;
    net::NetClient c(&loop_, ctx.get(), &rec, o);
    c.start();
    EXPECT_TRUE(run_until(&loop_, [&] { return rec.connected == 1; }));
    bool resumed = c.conn() && c.conn()->resumed();
    c.stop();
    uv_run(&loop_, UV_RUN_NOWAIT);
    return resumed;
  };
  std::string key = net::session_key("127.0.0.1:" + std::to_string(server_->port()), files);
  ASSERT_EQ(key.size(), 64u);
  EXPECT_NE(key, net::session_key("127.0.0.2:1", files));
  EXPECT_FALSE(connect_once(key)) << "no file yet: a full handshake";
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0) << "the session was not saved";
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_TRUE(connect_once(key)) << "the saved ticket was not used";
  EXPECT_EQ(echo_.peers.back(), "agent/node1");
  // A session saved for another server or other files is not offered.
  EXPECT_FALSE(connect_once(net::session_key("127.0.0.2:1", files)));
  // Corrupt, or readable by others: ignored, a full handshake instead.
  ASSERT_EQ(::truncate(file.c_str(), 100), 0);
  EXPECT_FALSE(connect_once(key));
  EXPECT_TRUE(connect_once(key)) << "the full handshake did not save a new session";
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  EXPECT_FALSE(connect_once(key));
}

TEST_F(NetTransport, ReconnectsWithBackoffAfterServerRestart) {
  client_.reset(start_client(client_ctx_.get(), &rec_));
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.connected == 1; }));
  int port = server_->port();
  server_.reset();
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.disconnected >= 3; }))
      << "client did not keep retrying";
  EXPECT_EQ(rec_.connected, 1);
  server_ctx_ = pool_.context(TlsContext::Role::kServer, "cm1");  // new ticket keys
  start_server(port);
  ASSERT_TRUE(run_until(&loop_, [&] { return rec_.connected == 2; }));
  EXPECT_GE(client_->attempts(), 4);
  expect_echo(1);
}

TEST_F(NetTransport, BackoffGrowsAndIsJittered) {
  client_.reset(start_client(client_ctx_.get(), &rec_));
  // backoff_min 20, max 200: failures 1,2,3,4,5,6 -> caps 20,40,80,160,200,200; jitter in
  // the upper half of each.
  const uint64_t caps[] = {20, 40, 80, 160, 200, 200};
  bool varied = false;
  for (int f = 1; f <= 6; ++f) {
    uint64_t first = client_->backoff_ms(f);
    for (int i = 0; i < 20; ++i) {
      uint64_t d = client_->backoff_ms(f);
      EXPECT_GE(d, caps[f - 1] / 2);
      EXPECT_LE(d, caps[f - 1]);
      varied |= d != first;
    }
  }
  EXPECT_TRUE(varied);
}

TEST_F(NetTransport, ClientRefusesServersItCannotVerify) {
  // The server's certificate names cm1 and localhost; a client expecting another name fails.
  net::ClientOptions o;
  o.host = "127.0.0.1";
  o.port = server_->port();
  o.server_name = "cm.elsewhere.org";
  o.backoff_min_ms = 20;
  o.backoff_max_ms = 50;
  RecordingClient wrong_name;
  std::unique_ptr<net::NetClient> c(new net::NetClient(&loop_, client_ctx_.get(), &wrong_name, o));
  c->start();
  EXPECT_TRUE(run_until(&loop_, [&] { return wrong_name.disconnected >= 2; }));
  EXPECT_EQ(wrong_name.connected, 0);
  c.reset();
  // A server from another pool (same CA name, other key) is refused by our agent.
  TestPool other;
  other.issue("cm", "cm1");
  server_ctx_ = other.context(TlsContext::Role::kServer, "cm1");
  int port = server_->port();
  server_.reset();
  start_server(port);
  o.server_name = "localhost";
  RecordingClient other_pool;
  c.reset(new net::NetClient(&loop_, client_ctx_.get(), &other_pool, o));
  c->start();
  EXPECT_TRUE(run_until(&loop_, [&] { return other_pool.disconnected >= 2; }));
  EXPECT_EQ(other_pool.connected, 0);
  EXPECT_TRUE(echo_.ready.empty());
}

TEST(NetTls, LoadErrorsNameTheFile) {
  std::string err;
  auto c = net::TlsContext::load(net::TlsContext::Role::kServer,
                                 {"/nonexistent/ca.crt", "/x.crt", "/x.key", "", ""}, &err);
  EXPECT_FALSE(c);
  EXPECT_NE(err.find("/nonexistent/ca.crt"), std::string::npos) << err;
}

}  // namespace
}  // namespace kite::test
