// TlsIdleCipher on a real TLS 1.2 session between two mbedTLS contexts wired in memory: a
// restored side's records open on its peer both ways, and a parked side seals nothing (no
// plaintext leaves it).
#include <mbedtls/ssl.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "agent/net/tls_idle_cipher.h"
#include "net_test_util.h"

namespace kite::test {
namespace {

// One side of the in-memory wire: what it writes, what it reads.
struct Wire {
  std::string* out;
  std::string* in;
};

int wire_send(void* p, const unsigned char* b, size_t n) {
  static_cast<Wire*>(p)->out->append(reinterpret_cast<const char*>(b), n);
  return static_cast<int>(n);
}

int wire_recv(void* p, unsigned char* b, size_t n) {
  std::string* in = static_cast<Wire*>(p)->in;
  if (in->empty()) return MBEDTLS_ERR_SSL_WANT_READ;
  n = std::min(n, in->size());
  memcpy(b, in->data(), n);
  in->erase(0, n);
  return static_cast<int>(n);
}

class NetIdleCipher : public ::testing::Test {
 protected:
  void SetUp() override {
    pool_.issue("cm", "cm1");
    pool_.issue("agent", "node1");
    server_ctx_ = pool_.context(net::TlsContext::Role::kServer, "cm1");
    client_ctx_ = pool_.context(net::TlsContext::Role::kClient, "node1");
    ASSERT_TRUE(server_ctx_ && client_ctx_);
    mbedtls_ssl_init(&server_);
    mbedtls_ssl_init(&client_);
    ASSERT_EQ(mbedtls_ssl_setup(&server_, server_ctx_->conf()), 0);
    ASSERT_EQ(mbedtls_ssl_setup(&client_, client_ctx_->conf()), 0);
    mbedtls_ssl_set_bio(&server_, &server_wire_, wire_send, wire_recv, nullptr);
    mbedtls_ssl_set_bio(&client_, &client_wire_, wire_send, wire_recv, nullptr);
    for (int i = 0; i < 200 && !(over(server_) && over(client_)); ++i) {
      {
        net::TlsIdleCipher::Capture keys(&client_keys_, &client_);
        int rc = mbedtls_ssl_handshake(&client_);
        ASSERT_TRUE(rc == 0 || rc == MBEDTLS_ERR_SSL_WANT_READ) << rc;
      }
      net::TlsIdleCipher::Capture keys(&server_keys_, &server_);
      int rc = mbedtls_ssl_handshake(&server_);
      ASSERT_TRUE(rc == 0 || rc == MBEDTLS_ERR_SSL_WANT_READ) << rc;
    }
    ASSERT_TRUE(over(server_) && over(client_)) << "no handshake";
  }
  void TearDown() override {
    server_keys_.detach(&server_);
    client_keys_.detach(&client_);
    mbedtls_ssl_free(&server_);
    mbedtls_ssl_free(&client_);
  }
  static bool over(const mbedtls_ssl_context& s) { return s.state == MBEDTLS_SSL_HANDSHAKE_OVER; }
  // Writes `text` from `from` and reads it on `to`; what `to` read.
  static std::string send(mbedtls_ssl_context* from, mbedtls_ssl_context* to,
                          const std::string& text) {
    int rc =
        mbedtls_ssl_write(from, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    if (rc != static_cast<int>(text.size())) return "write failed: " + std::to_string(rc);
    unsigned char buf[256];
    rc = mbedtls_ssl_read(to, buf, sizeof buf);
    if (rc <= 0) return "read failed: " + std::to_string(rc);
    return std::string(reinterpret_cast<const char*>(buf), static_cast<size_t>(rc));
  }

  TestPool pool_;
  std::unique_ptr<net::TlsContext> server_ctx_, client_ctx_;
  std::string to_client_, to_server_;
  Wire server_wire_{&to_client_, &to_server_}, client_wire_{&to_server_, &to_client_};
  mbedtls_ssl_context server_, client_;
  net::TlsIdleCipher server_keys_, client_keys_;
};

TEST_F(NetIdleCipher, RestoredSidesSealRecordsTheirPeersOpen) {
  ASSERT_TRUE(server_keys_.park(&server_));
  ASSERT_TRUE(client_keys_.park(&client_));
  EXPECT_EQ(server_.transform, nullptr);  // the transform and its cipher contexts are freed
  ASSERT_TRUE(server_keys_.restore(&server_));
  ASSERT_TRUE(client_keys_.restore(&client_));
  EXPECT_EQ(send(&server_, &client_, "from the cm"), "from the cm");
  EXPECT_EQ(send(&client_, &server_, "from the agent"), "from the agent");
  // Again after a second park: the record counters went on, the keys are the same.
  ASSERT_TRUE(server_keys_.park(&server_));
  ASSERT_TRUE(server_keys_.restore(&server_));
  EXPECT_EQ(send(&client_, &server_, "once more"), "once more");
  EXPECT_EQ(send(&server_, &client_, "and back"), "and back");
}

TEST_F(NetIdleCipher, AParkedSideSealsNothing) {
  ASSERT_TRUE(server_keys_.park(&server_));
  to_client_.clear();
  const std::string secret = "a frame that must not leave in the clear";
  int rc = mbedtls_ssl_write(&server_, reinterpret_cast<const unsigned char*>(secret.data()),
                             secret.size());
  EXPECT_LT(rc, 0);
  EXPECT_EQ(to_client_.find("in the clear"), std::string::npos) << "plaintext on the wire";
}

TEST_F(NetIdleCipher, NothingParksWithoutTheHandshakesKeys) {
  // A transform whose keys this object did not capture (another connection's) stays.
  net::TlsIdleCipher stranger;
  EXPECT_FALSE(stranger.park(&server_));
  EXPECT_NE(server_.transform, nullptr);
  EXPECT_EQ(send(&server_, &client_, "still here"), "still here");
}

}  // namespace
}  // namespace kite::test
