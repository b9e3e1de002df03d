// One side's TLS settings, shared by all its connections: TLS 1.2 only, ECDHE with AES-GCM or
// ChaCha20-Poly1305 only, a certificate required from the peer and checked against the pool CA
// and its CRL, session tickets (issued by a server, kept by a client). Operators may bring
// their own CA: only paths are taken. Clients ask for small records (max_fragment_length) so
// that builds with variable-length record buffers keep a few KiB per connection, not 33.
#pragma once

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/pk.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crl.h>
#include <mbedtls/x509_crt.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/net/ticket_keys.h"

namespace kite::net {

struct TlsFiles {
  std::string ca;    // the pool CA certificate(s), PEM
  std::string cert;  // this side's certificate
  std::string key;   // its private key
  std::string crl;   // optional: revoked certificates (kite pki revoke writes CA_DIR/crl.pem)
  // A server's session ticket keys, kept across restarts (empty: in memory only).
  std::string ticket_keys;
};

class TlsContext {
 public:
  enum class Role { kServer, kClient };
  /// Null with a message naming the file on failure.
  static std::unique_ptr<TlsContext> load(Role role, const TlsFiles& files, std::string* err);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  Role role() const { return role_; }
  const mbedtls_ssl_config* conf() const { return &conf_; }
  /// A client that reads one large reply and exits (the CLI) asks for full 16 KiB records:
  /// small records cost a seal and an open each, ~1,000 of them for a 10,000-slot table.
  /// Call before the first connection.
  void use_full_records();
  /// The CRL, or null when none was given.
  const mbedtls_x509_crl* crl() const { return has_crl_ ? &crl_ : nullptr; }
  /// Uniform random number (backoff jitter).
  uint32_t random();
  /// A server's connection whose handshake is over needs its session no more (the ticket that
  /// resumes it was sealed during the handshake): mbedTLS then reads only its record size and
  /// ciphersuite. Wipes and frees `ssl`'s own session (master secret, peer certificate) and
  /// points it at one of the context's read-only sessions holding just those (one per kind);
  /// the connection must drop the pointers before mbedtls_ssl_free. False (kept) when out of
  /// memory. Not thread-safe: one loop's connections.
  bool share_session(mbedtls_ssl_context* ssl);
  /// How many such sessions the context holds (one per ciphersuite and record size in use).
  size_t shared_sessions() const { return shared_sessions_.size(); }

 private:
  TlsContext();
  Role role_ = Role::kClient;
  mbedtls_entropy_context entropy_;
  mbedtls_ctr_drbg_context drbg_;
  mbedtls_x509_crt ca_;
  mbedtls_x509_crl crl_;
  bool has_crl_ = false;
  mbedtls_x509_crt own_;
  mbedtls_pk_context key_;
  std::unique_ptr<TicketKeys> tickets_;                                // servers
  std::vector<std::unique_ptr<mbedtls_ssl_session>> shared_sessions_;  // share_session
  mbedtls_ssl_config conf_;
};

}  // namespace kite::net
