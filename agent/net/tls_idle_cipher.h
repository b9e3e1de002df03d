// An idle TLS connection's record protection handed back to the heap and set up again when
// records move: mbedTLS keeps a transform per connection (lengths, IVs and two cipher contexts:
// ~0.75 KiB with ChaCha20-Poly1305, ~1.9 KiB with AES-GCM's key schedules and tables). While
// parked, the transform's few fields and the handshake's two write keys (mbedTLS's export-keys
// callback hands them over as it derives them) are kept here, ~0.1 KiB, and the connection
// points at an inert transform with no cipher: a record sealed by mistake fails, never goes
// out in plaintext. The keys are wiped when the connection goes.
#pragma once

#include <mbedtls/ssl.h>

#include <cstdint>

namespace kite::net {

class TlsIdleCipher {
 public:
  TlsIdleCipher() = default;
  ~TlsIdleCipher();
  TlsIdleCipher(const TlsIdleCipher&) = delete;
  TlsIdleCipher& operator=(const TlsIdleCipher&) = delete;

  /// Registers the key callback on `conf` (every connection of a TlsContext).
  static void setup(mbedtls_ssl_config* conf);
  /// While alive, the keys mbedTLS derives on this thread are `idle`'s (around handshake steps).
  class Capture {
   public:
    Capture(TlsIdleCipher* idle, const mbedtls_ssl_context* ssl);
    ~Capture();
    Capture(const Capture&) = delete;
    Capture& operator=(const Capture&) = delete;

   private:
    TlsIdleCipher* outer_idle_;
    const mbedtls_ssl_context* outer_ssl_;
  };

  /// Frees the transform in use if it is the handshake's (its keys were captured) and no other
  /// is being negotiated. True when parked.
  bool park(mbedtls_ssl_context* ssl);
  /// Builds the transform again from what was kept. False when memory ran out (still parked).
  bool restore(mbedtls_ssl_context* ssl);
  bool parked() const { return parked_; }
  /// Before mbedtls_ssl_free: the inert transform is not the connection's to free.
  void detach(mbedtls_ssl_context* ssl);

 private:
  static int on_keys(void* p, const unsigned char* master, const unsigned char* key_block,
                     size_t mac_len, size_t key_len, size_t iv_len);
  static constexpr size_t kMaxKey = 32;
  // The client's and the server's write keys (RFC 5246 6.3), for the transform keys_for_.
  unsigned char client_key_[kMaxKey] = {}, server_key_[kMaxKey] = {};
  uint8_t key_len_ = 0;
  bool server_ = false;  // the keys' side (read at the handshake: the context may go first)
  const void* keys_for_ = nullptr;
  // The parked transform's fields.
  const mbedtls_cipher_info_t* cipher_ = nullptr;
  unsigned char iv_enc_[16] = {}, iv_dec_[16] = {};
  uint8_t minlen_ = 0, ivlen_ = 0, fixed_ivlen_ = 0, taglen_ = 0;
  int minor_ver_ = 0;
  bool parked_ = false;
};

}  // namespace kite::net
