// Session-ticket keys of the TLS server: tickets sealed and opened, refused when tampered
// with, from another server, expired or under a rotated-out key; the keys kept in a 0600 file
// that a restarted server reads back, and fresh keys when that file is corrupt or too open.
#include "agent/net/ticket_keys.h"

#include <gtest/gtest.h>
#include <mbedtls/entropy.h>
#include <sys/stat.h>

#include <cstring>
#include <vector>

#include "agent/core/files.h"
#include "net_test_util.h"

namespace kite::test {
namespace {

using net::TicketKeys;

constexpr uint32_t kLifetime = 1000;
int64_t g_now = 1800000000;  // the fake clock (Unix seconds)
int64_t fake_clock() {
  return g_now;
}

class TicketKeysTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_now = 1800000000;
    mbedtls_entropy_init(&entropy_);
    mbedtls_ctr_drbg_init(&drbg_);
    ASSERT_EQ(mbedtls_ctr_drbg_seed(&drbg_, mbedtls_entropy_func, &entropy_, nullptr, 0), 0);
    mbedtls_ssl_session_init(&session_);
    session_.ciphersuite = MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256;
    for (size_t i = 0; i < sizeof session_.master; ++i)
      session_.master[i] = static_cast<unsigned char>(i * 7 + 1);
    session_.start = static_cast<mbedtls_time_t>(g_now);
    path_ = dir_ + "/tls-ticket-keys";
  }
  void TearDown() override {
    mbedtls_ssl_session_free(&session_);
    mbedtls_ctr_drbg_free(&drbg_);
    mbedtls_entropy_free(&entropy_);
  }
  std::unique_ptr<TicketKeys> keys(const std::string& path) {
    auto k = std::make_unique<TicketKeys>(&drbg_, kLifetime, fake_clock);
    std::string err;
    EXPECT_TRUE(k->open(path, &err)) << err;
    return k;
  }
  std::vector<unsigned char> seal(TicketKeys* k) {
    std::vector<unsigned char> buf(4096);
    size_t len = 0;
    uint32_t lifetime = 0;
    EXPECT_EQ(TicketKeys::write(k, &session_, buf.data(), buf.data() + buf.size(), &len, &lifetime),
              0);
    EXPECT_EQ(lifetime, kLifetime);
    buf.resize(len);
    return buf;
  }
  // What opening `ticket` returns; on success the session must be the one sealed.
  int open(TicketKeys* k, std::vector<unsigned char> ticket) {
    mbedtls_ssl_session out;
    mbedtls_ssl_session_init(&out);
    int rc = TicketKeys::parse(k, &out, ticket.data(), ticket.size());
    if (rc == 0) {
      EXPECT_EQ(std::memcmp(out.master, session_.master, sizeof out.master), 0);
      EXPECT_EQ(out.ciphersuite, session_.ciphersuite);
    }
    mbedtls_ssl_session_free(&out);
    return rc;
  }

  std::string dir_ = net_temp_dir();
  std::string path_;
  mbedtls_entropy_context entropy_;
  mbedtls_ctr_drbg_context drbg_;
  mbedtls_ssl_session session_;
};

TEST_F(TicketKeysTest, SealedTicketsOpenAndTamperedOrForeignOnesAreRefused) {
  auto k = keys("");
  std::vector<unsigned char> t = seal(k.get());
  EXPECT_EQ(open(k.get(), t), 0);
  // The session is not in the ticket in the clear.
  EXPECT_EQ(std::search(t.begin(), t.end(), session_.master, session_.master + 16), t.end());
  for (size_t at : {size_t{0}, size_t{5}, t.size() / 2, t.size() - 1}) {
    std::vector<unsigned char> bad = t;
    bad[at] ^= 0x40;
    EXPECT_EQ(open(k.get(), bad), MBEDTLS_ERR_SSL_INVALID_MAC) << "byte " << at;
  }
  EXPECT_NE(open(k.get(), std::vector<unsigned char>(t.begin(), t.begin() + 20)), 0);
  auto other = keys("");  // another server (another pool): other keys
  EXPECT_NE(other->current_id(), k->current_id());
  EXPECT_EQ(open(other.get(), t), MBEDTLS_ERR_SSL_INVALID_MAC);
}

TEST_F(TicketKeysTest, ExpiredTicketsAreRefused) {
  auto k = keys("");
  std::vector<unsigned char> t = seal(k.get());
  g_now += kLifetime;
  EXPECT_EQ(open(k.get(), t), 0) << "still within its lifetime";
  g_now += 1;
  EXPECT_EQ(open(k.get(), t), MBEDTLS_ERR_SSL_SESSION_TICKET_EXPIRED);
  g_now -= kLifetime + 2;  // the clock went back before the handshake
  EXPECT_NE(open(k.get(), t), 0);
}

TEST_F(TicketKeysTest, KeysRotateAndThePreviousOneOpensTicketsForOneMoreLifetime) {
  auto k = keys("");
  uint32_t first = k->current_id();
  EXPECT_EQ(k->previous_id(), 0u);
  g_now += kLifetime - 10;
  session_.start = static_cast<mbedtls_time_t>(g_now);  // a handshake just before the rotation
  std::vector<unsigned char> late = seal(k.get());
  EXPECT_EQ(k->current_id(), first);
  g_now += 20;
  std::vector<unsigned char> after = seal(k.get());  // sealing rotates when due
  EXPECT_NE(k->current_id(), first);
  EXPECT_EQ(k->previous_id(), first);
  EXPECT_EQ(open(k.get(), late), 0) << "the previous key no longer opens its tickets";
  EXPECT_EQ(open(k.get(), after), 0);
  g_now += kLifetime;  // the next rotation retires the first key
  EXPECT_EQ(open(k.get(), late), MBEDTLS_ERR_SSL_INVALID_MAC);
  EXPECT_NE(k->previous_id(), first);
}

TEST_F(TicketKeysTest, KeysSurviveARestartInA0600File) {
  std::vector<unsigned char> t;
  uint32_t id;
  {
    auto k = keys(path_);
    t = seal(k.get());
    id = k->current_id();
  }
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0) << "no key file";
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto again = keys(path_);
  EXPECT_EQ(again->current_id(), id);
  EXPECT_EQ(open(again.get(), t), 0) << "a restarted server refused its own ticket";

  // Down longer than two lifetimes: both keys are replaced at the start.
  again.reset();
  g_now += 2 * kLifetime + 1;
  session_.start = static_cast<mbedtls_time_t>(g_now);
  auto late = keys(path_);
  EXPECT_NE(late->current_id(), id);
  EXPECT_EQ(late->previous_id(), 0u);
}

TEST_F(TicketKeysTest, ACorruptOrOpenFileMeansFreshKeys) {
  uint32_t id;
  std::vector<unsigned char> t;
  {
    auto k = keys(path_);
    id = k->current_id();
    t = seal(k.get());
  }
  std::string good, err;
  ASSERT_TRUE(core::read_file(path_, &good, &err)) << err;
  EXPECT_EQ(good.rfind("kite-ticket-keys 1\ncurrent ", 0), 0u) << good;
  for (const std::string& bad :
       {std::string("garbage\n"), good.substr(0, good.size() / 2), std::string(""),
        std::string("kite-ticket-keys 1\ncurrent 00000000 1 00\n"),
        "kite-ticket-keys 1\nprevious" + good.substr(good.find(' ', 20))}) {
    ASSERT_TRUE(core::write_file_atomic(path_, bad, 0600, &err)) << err;
    auto k = keys(path_);
    EXPECT_NE(k->current_id(), id) << "kept a key from: " << bad;
    EXPECT_EQ(open(k.get(), t), MBEDTLS_ERR_SSL_INVALID_MAC);
    std::string now;
    ASSERT_TRUE(core::read_file(path_, &now, &err)) << err;
    EXPECT_EQ(now.rfind("kite-ticket-keys 1\ncurrent ", 0), 0u) << "not rewritten: " << now;
  }
  // Readable by others: not trusted, replaced, and the new file is 0600.
  ASSERT_TRUE(core::write_file_atomic(path_, good, 0644, &err)) << err;
  auto k = keys(path_);
  EXPECT_NE(k->current_id(), id);
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

}  // namespace
}  // namespace kite::test
