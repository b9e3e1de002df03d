// Building the shared mbedTLS configuration of a server or a client.
#include "agent/net/tls_context.h"

#include <mbedtls/platform.h>

#include <cstring>
#include <new>

#include "agent/net/identity.h"
#include "agent/net/tls_idle_cipher.h"

namespace kite::net {
namespace {

// ECDHE only (forward secrecy), AEAD only. The RSA forms serve operators whose own CA is RSA.
// The server's order decides. With AES instructions (Debian's mbedTLS) AES-GCM comes first;
// without them (the static builds' trimmed mbedTLS) ChaCha20-Poly1305 does: faster in software,
// and an established connection keeps ~1 KiB less (per direction a 240-byte ChaCha20-Poly1305
// context instead of a 424-byte GCM context and its 288-byte AES key schedule), which counts
// on a CM holding thousands of agents.
const int kCiphersuites[] = {
#if defined(MBEDTLS_AESNI_C)
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
    MBEDTLS_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
    MBEDTLS_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
#else
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
    MBEDTLS_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    MBEDTLS_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
    MBEDTLS_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
#endif
    0,
};

// What a client offers. The server picks by its own order, and a server with AES instructions
// (Debian's mbedTLS) puts AES-GCM first: a client without them (the static builds) would then
// run AES-GCM in software, 5.5x slower than ChaCha20-Poly1305 (16.7 vs 3.0 ms per MiB on x86_64;
// a 10,000-slot `kite status` table is 0.6 MiB). So it offers ChaCha20-Poly1305 only, which every
// Kite build serves.
#if defined(MBEDTLS_AESNI_C)
const int* const kClientCiphersuites = kCiphersuites;
#else
const int kClientCiphersuites[] = {
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    MBEDTLS_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
    0,
};
#endif

// Tickets live a day from the full handshake that checked the peer's certificate (HTCondor's
// daemon sessions last as long). Resumption skips the certificate checks, so revocation and
// expiry are checked again after every handshake (TlsConn).
constexpr uint32_t kTicketLifetimeS = 86400;

// Application records of at most 1 KiB each way (RFC 6066). A frame spans as many records as
// it needs; the handshake's own messages are not limited. With
// MBEDTLS_SSL_VARIABLE_BUFFER_LENGTH (the static builds' config) both sides shrink their
// record buffers to this size once the handshake is over.
#if defined(MBEDTLS_SSL_MAX_FRAGMENT_LENGTH)
constexpr unsigned char kMaxFragment = MBEDTLS_SSL_MAX_FRAG_LEN_1024;
#endif

bool fail(std::string* err, const std::string& what, int code) {
  if (err) *err = what + ": " + mbedtls_message(code);
  return false;
}

}  // namespace

TlsContext::TlsContext() {
  mbedtls_entropy_init(&entropy_);
  mbedtls_ctr_drbg_init(&drbg_);
  mbedtls_x509_crt_init(&ca_);
  mbedtls_x509_crl_init(&crl_);
  mbedtls_x509_crt_init(&own_);
  mbedtls_pk_init(&key_);
  mbedtls_ssl_config_init(&conf_);
}

TlsContext::~TlsContext() {
  mbedtls_ssl_config_free(&conf_);
  mbedtls_pk_free(&key_);
  mbedtls_x509_crt_free(&own_);
  mbedtls_x509_crl_free(&crl_);
  mbedtls_x509_crt_free(&ca_);
  mbedtls_ctr_drbg_free(&drbg_);
  mbedtls_entropy_free(&entropy_);
}

std::unique_ptr<TlsContext> TlsContext::load(Role role, const TlsFiles& f, std::string* err) {
  std::unique_ptr<TlsContext> c(new TlsContext());
  c->role_ = role;
  static const unsigned char kPers[] = "kite-net";
  int rc =
      mbedtls_ctr_drbg_seed(&c->drbg_, mbedtls_entropy_func, &c->entropy_, kPers, sizeof kPers - 1);
  if (rc != 0) return fail(err, "seeding the random generator", rc), nullptr;
  if ((rc = mbedtls_x509_crt_parse_file(&c->ca_, f.ca.c_str())) != 0)
    return fail(err, "CA certificate " + f.ca, rc), nullptr;
  if ((rc = mbedtls_x509_crt_parse_file(&c->own_, f.cert.c_str())) != 0)
    return fail(err, "certificate " + f.cert, rc), nullptr;
  if ((rc = mbedtls_pk_parse_keyfile(&c->key_, f.key.c_str(), nullptr)) != 0)
    return fail(err, "key " + f.key, rc), nullptr;
  if (!f.crl.empty()) {
    if ((rc = mbedtls_x509_crl_parse_file(&c->crl_, f.crl.c_str())) != 0)
      return fail(err, "CRL " + f.crl, rc), nullptr;
    c->has_crl_ = true;
  }
  mbedtls_ssl_config* conf = &c->conf_;
  bool server = role == Role::kServer;
  rc = mbedtls_ssl_config_defaults(conf, server ? MBEDTLS_SSL_IS_SERVER : MBEDTLS_SSL_IS_CLIENT,
                                   MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT);
  if (rc != 0) return fail(err, "TLS defaults", rc), nullptr;
  mbedtls_ssl_conf_min_version(conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
  mbedtls_ssl_conf_max_version(conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
  mbedtls_ssl_conf_ciphersuites(conf, server ? kCiphersuites : kClientCiphersuites);
  mbedtls_ssl_conf_authmode(conf, MBEDTLS_SSL_VERIFY_REQUIRED);
  mbedtls_ssl_conf_rng(conf, mbedtls_ctr_drbg_random, &c->drbg_);
  mbedtls_ssl_conf_ca_chain(conf, &c->ca_, c->has_crl_ ? &c->crl_ : nullptr);
  if ((rc = mbedtls_ssl_conf_own_cert(conf, &c->own_, &c->key_)) != 0)
    return fail(err, "certificate " + f.cert + " with key " + f.key, rc), nullptr;
  TlsIdleCipher::setup(conf);  // idle connections park their record protection
  if (server) {
    c->tickets_ = std::make_unique<TicketKeys>(&c->drbg_, kTicketLifetimeS);
    if (!c->tickets_->open(f.ticket_keys, err)) return nullptr;
    mbedtls_ssl_conf_session_tickets_cb(conf, TicketKeys::write, TicketKeys::parse,
                                        c->tickets_.get());
  } else {
    mbedtls_ssl_conf_session_tickets(conf, MBEDTLS_SSL_SESSION_TICKETS_ENABLED);
#if defined(MBEDTLS_SSL_MAX_FRAGMENT_LENGTH)
    if ((rc = mbedtls_ssl_conf_max_frag_len(conf, kMaxFragment)) != 0)
      return fail(err, "TLS max fragment length", rc), nullptr;
#endif
  }
  return c;
}

void TlsContext::use_full_records() {
#if defined(MBEDTLS_SSL_MAX_FRAGMENT_LENGTH)
  mbedtls_ssl_conf_max_frag_len(&conf_, MBEDTLS_SSL_MAX_FRAG_LEN_NONE);
#endif
}

namespace {

// What mbedTLS reads of a server's session once the handshake is over; nothing secret.
void copy_kind(const mbedtls_ssl_session& from, mbedtls_ssl_session* to) {
#if defined(MBEDTLS_SSL_MAX_FRAGMENT_LENGTH)
  to->mfl_code = from.mfl_code;
#endif
  to->ciphersuite = from.ciphersuite;
  to->compression = from.compression;
  to->verify_result = from.verify_result;
#if defined(MBEDTLS_SSL_TRUNCATED_HMAC)
  to->trunc_hmac = from.trunc_hmac;
#endif
#if defined(MBEDTLS_SSL_ENCRYPT_THEN_MAC)
  to->encrypt_then_mac = from.encrypt_then_mac;
#endif
}

bool same_kind(const mbedtls_ssl_session& a, const mbedtls_ssl_session& b) {
  mbedtls_ssl_session ka, kb;
  mbedtls_ssl_session_init(&ka);
  mbedtls_ssl_session_init(&kb);
  copy_kind(a, &ka);
  copy_kind(b, &kb);
  return memcmp(&ka, &kb, sizeof ka) == 0;  // both zeroed first: padding compares equal
}

}  // namespace

bool TlsContext::share_session(mbedtls_ssl_context* ssl) {
  mbedtls_ssl_session* own = ssl->session;
  if (!own || ssl->session_in != own || ssl->session_out != own || ssl->session_negotiate)
    return false;
  mbedtls_ssl_session* shared = nullptr;
  for (const auto& s : shared_sessions_)
    if (same_kind(*s, *own)) shared = s.get();
  if (!shared) {
    auto made = std::unique_ptr<mbedtls_ssl_session>(new (std::nothrow) mbedtls_ssl_session);
    if (!made) return false;
    mbedtls_ssl_session_init(made.get());
    copy_kind(*own, made.get());
    shared = made.get();
    shared_sessions_.push_back(std::move(made));
  }
  mbedtls_ssl_session_free(own);  // wipes the master secret, frees the peer certificate
  mbedtls_free(own);
  ssl->session = ssl->session_in = ssl->session_out = shared;
  return true;
}

uint32_t TlsContext::random() {
  uint32_t v = 0;
  mbedtls_ctr_drbg_random(&drbg_, reinterpret_cast<unsigned char*>(&v), sizeof v);
  return v;
}

}  // namespace kite::net
