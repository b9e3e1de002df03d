// Parking an idle TLS connection's record protection (see tls_idle_cipher.h).
#include "agent/net/tls_idle_cipher.h"

#include <mbedtls/platform.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/ssl_internal.h>  // mbedtls_ssl_transform, mbedtls_ssl_transform_free

#include <cstring>

namespace kite::net {
namespace {

struct Capturing {
  TlsIdleCipher* idle = nullptr;
  const mbedtls_ssl_context* ssl = nullptr;
};
thread_local Capturing g_capturing;

// mbedtls_ssl_transform_init (ssl_internal.h declares it outside its extern "C" block).
void transform_init(mbedtls_ssl_transform* t) {
  memset(t, 0, sizeof *t);
  mbedtls_cipher_init(&t->cipher_ctx_enc);
  mbedtls_cipher_init(&t->cipher_ctx_dec);
#if defined(MBEDTLS_SSL_SOME_MODES_USE_MAC)
  mbedtls_md_init(&t->md_ctx_enc);
  mbedtls_md_init(&t->md_ctx_dec);
#endif
}

// What a parked connection's transform pointers hold: no cipher, so sealing or opening a
// record fails (MBEDTLS_ERR_SSL_INTERNAL_ERROR) instead of sending or taking plaintext.
mbedtls_ssl_transform* inert_transform() {
  static mbedtls_ssl_transform* t = [] {
    static mbedtls_ssl_transform inert;
    transform_init(&inert);
    return &inert;
  }();
  return t;
}

}  // namespace

TlsIdleCipher::~TlsIdleCipher() {
  mbedtls_platform_zeroize(client_key_, sizeof client_key_);
  mbedtls_platform_zeroize(server_key_, sizeof server_key_);
  mbedtls_platform_zeroize(iv_enc_, sizeof iv_enc_);
  mbedtls_platform_zeroize(iv_dec_, sizeof iv_dec_);
}

void TlsIdleCipher::setup(mbedtls_ssl_config* conf) {
#if defined(MBEDTLS_SSL_EXPORT_KEYS)
  mbedtls_ssl_conf_export_keys_cb(conf, on_keys, nullptr);
#else
  (void)conf;  // no keys handed over: transforms are never parked
#endif
}

TlsIdleCipher::Capture::Capture(TlsIdleCipher* idle, const mbedtls_ssl_context* ssl)
    : outer_idle_(g_capturing.idle), outer_ssl_(g_capturing.ssl) {
  g_capturing = {idle, ssl};
}

TlsIdleCipher::Capture::~Capture() {
  g_capturing = {outer_idle_, outer_ssl_};  // a handshake that started another (a reconnect)
}

int TlsIdleCipher::on_keys(void*, const unsigned char*, const unsigned char* key_block,
                           size_t mac_len, size_t key_len, size_t) {
  TlsIdleCipher* self = g_capturing.idle;
  if (!self || !g_capturing.ssl) return 0;
  if (key_len == 0 || key_len > kMaxKey) {  // a cipher this cannot park: never parked
    self->keys_for_ = nullptr;
    return 0;
  }
  // The key block: client MAC key, server MAC key, client write key, server write key, IVs.
  const unsigned char* client = key_block + 2 * mac_len;
  memcpy(self->client_key_, client, key_len);
  memcpy(self->server_key_, client + key_len, key_len);
  self->key_len_ = static_cast<uint8_t>(key_len);
  self->server_ = g_capturing.ssl->conf->endpoint == MBEDTLS_SSL_IS_SERVER;
  self->keys_for_ = g_capturing.ssl->transform_negotiate;
  return 0;
}

bool TlsIdleCipher::park(mbedtls_ssl_context* ssl) {
  if (parked_) return true;
  mbedtls_ssl_transform* t = ssl->transform;
  // Only the transform whose keys were captured, alone in use, and an AEAD one (the only kind
  // Kite's ciphersuites make).
  if (!t || t != keys_for_ || ssl->transform_in != t || ssl->transform_out != t ||
      ssl->transform_negotiate || !mbedtls_ssl_transform_uses_aead(t) ||
      !t->cipher_ctx_enc.cipher_info ||
      t->cipher_ctx_dec.cipher_info != t->cipher_ctx_enc.cipher_info)
    return false;
  if (t->minlen > UINT8_MAX || t->ivlen > sizeof iv_enc_ || t->fixed_ivlen > sizeof iv_enc_ ||
      t->taglen > UINT8_MAX)
    return false;
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
  if (t->in_cid_len || t->out_cid_len) return false;
#endif
  cipher_ = t->cipher_ctx_enc.cipher_info;
  minlen_ = static_cast<uint8_t>(t->minlen);
  ivlen_ = static_cast<uint8_t>(t->ivlen);
  fixed_ivlen_ = static_cast<uint8_t>(t->fixed_ivlen);
  taglen_ = static_cast<uint8_t>(t->taglen);
  minor_ver_ = t->minor_ver;
  memcpy(iv_enc_, t->iv_enc, sizeof iv_enc_);
  memcpy(iv_dec_, t->iv_dec, sizeof iv_dec_);
  mbedtls_ssl_transform_free(t);  // frees the cipher contexts, wipes the rest
  mbedtls_free(t);
  ssl->transform = nullptr;
  ssl->transform_in = ssl->transform_out = inert_transform();
  keys_for_ = nullptr;
  parked_ = true;
  return true;
}

bool TlsIdleCipher::restore(mbedtls_ssl_context* ssl) {
  if (!parked_) return true;
  auto* t = static_cast<mbedtls_ssl_transform*>(mbedtls_calloc(1, sizeof(mbedtls_ssl_transform)));
  if (!t) return false;
  transform_init(t);
  t->minlen = minlen_;
  t->ivlen = ivlen_;
  t->fixed_ivlen = fixed_ivlen_;
  t->taglen = taglen_;
  t->minor_ver = minor_ver_;
  memcpy(t->iv_enc, iv_enc_, sizeof iv_enc_);
  memcpy(t->iv_dec, iv_dec_, sizeof iv_dec_);
  // As mbedTLS set them up at the handshake: each side encrypts with its own write key.
  const unsigned char* enc = server_ ? server_key_ : client_key_;
  const unsigned char* dec = server_ ? client_key_ : server_key_;
  int bits = static_cast<int>(cipher_->key_bitlen);
  if (mbedtls_cipher_setup(&t->cipher_ctx_enc, cipher_) != 0 ||
      mbedtls_cipher_setup(&t->cipher_ctx_dec, cipher_) != 0 ||
      mbedtls_cipher_setkey(&t->cipher_ctx_enc, enc, bits, MBEDTLS_ENCRYPT) != 0 ||
      mbedtls_cipher_setkey(&t->cipher_ctx_dec, dec, bits, MBEDTLS_DECRYPT) != 0) {
    mbedtls_ssl_transform_free(t);
    mbedtls_free(t);
    return false;
  }
  ssl->transform = ssl->transform_in = ssl->transform_out = t;
  keys_for_ = t;
  parked_ = false;
  return true;
}

void TlsIdleCipher::detach(mbedtls_ssl_context* ssl) {
  if (!parked_) return;
  ssl->transform_in = ssl->transform_out = nullptr;
}

}  // namespace kite::net
