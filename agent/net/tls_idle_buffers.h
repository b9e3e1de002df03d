// An idle TLS connection's record buffers handed back to the heap and brought back when records
// move again: mbedTLS keeps an input and an output buffer per connection for its whole life
// (2 x ~1 KiB with the static builds' small records, 2 x ~16.4 KiB with Debian's shared
// library), which is most of what a CM holding thousands of quiet agent connections spends.
#pragma once

#include <mbedtls/ssl.h>

#include <cstdint>

namespace kite::net {

class TlsIdleBuffers {
 public:
  /// Frees `ssl`'s record buffers if nothing is held in them: the handshake over, no partial
  /// record read, no plaintext unread, nothing unsent. Their record counters (kept in the
  /// buffers' first bytes) and pointer offsets are kept here. True when parked.
  bool park(mbedtls_ssl_context* ssl);
  /// Gives parked buffers back (zeroed, same sizes, counters and pointers as they were) before
  /// mbedTLS reads or writes a record. False when memory ran out (the buffers stay parked).
  bool restore(mbedtls_ssl_context* ssl);
  bool parked() const { return parked_; }

  // One direction's buffer size, record counter and the offsets of mbedTLS's record pointers
  // into it (they are at most 17 KiB).
  struct Side {
    uint16_t size, ctr, hdr, len, iv, msg;
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
    uint16_t cid;
#endif
    unsigned char counter[8];
  };

 private:
  Side in_{}, out_{};
  bool parked_ = false;
};

}  // namespace kite::net
