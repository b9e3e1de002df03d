// Parking an idle TLS connection's record buffers (see tls_idle_buffers.h).
#include "agent/net/tls_idle_buffers.h"

#include <mbedtls/platform.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/ssl_internal.h>  // MBEDTLS_SSL_{IN,OUT}_BUFFER_LEN without variable buffers

#include <cstring>

namespace kite::net {
namespace {

// One direction's record pointers in mbedtls_ssl_context (its in_* or out_* fields).
struct RecordPointers {
  unsigned char** buf;
  unsigned char** ctr;
  unsigned char** hdr;
  unsigned char** len;
  unsigned char** iv;
  unsigned char** msg;
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
  unsigned char** cid;
#endif
};

RecordPointers in_pointers(mbedtls_ssl_context* ssl) {
  return {
    &ssl->in_buf, &ssl->in_ctr, &ssl->in_hdr, &ssl->in_len, &ssl->in_iv, &ssl->in_msg,
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
        &ssl->in_cid
#endif
  };
}

RecordPointers out_pointers(mbedtls_ssl_context* ssl) {
  return {
    &ssl->out_buf, &ssl->out_ctr, &ssl->out_hdr, &ssl->out_len, &ssl->out_iv, &ssl->out_msg,
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
        &ssl->out_cid
#endif
  };
}

uint16_t offset(const unsigned char* p, const unsigned char* buf) {
  return static_cast<uint16_t>(p - buf);
}

using Side = TlsIdleBuffers::Side;

// Keeps one direction's counter and offsets in `side`, then frees its buffer (zeroed first).
void save(Side* side, const RecordPointers& p, size_t size) {
  unsigned char* buf = *p.buf;
  side->size = static_cast<uint16_t>(size);
  side->ctr = offset(*p.ctr, buf);
  side->hdr = offset(*p.hdr, buf);
  side->len = offset(*p.len, buf);
  side->iv = offset(*p.iv, buf);
  side->msg = offset(*p.msg, buf);
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
  side->cid = offset(*p.cid, buf);
#endif
  memcpy(side->counter, *p.ctr, sizeof side->counter);
  // As mbedtls_ssl_free would: the last records' plaintext does not linger in freed memory.
  mbedtls_platform_zeroize(buf, size);
  mbedtls_free(buf);
  *p.buf = *p.ctr = *p.hdr = *p.len = *p.iv = *p.msg = nullptr;
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
  *p.cid = nullptr;
#endif
}

// Points one direction's record pointers into the new `buf` as they were, counter restored.
void give_back(const Side& side, const RecordPointers& p, unsigned char* buf) {
  *p.buf = buf;
  *p.ctr = buf + side.ctr;
  *p.hdr = buf + side.hdr;
  *p.len = buf + side.len;
  *p.iv = buf + side.iv;
  *p.msg = buf + side.msg;
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
  *p.cid = buf + side.cid;
#endif
  memcpy(*p.ctr, side.counter, sizeof side.counter);
}

}  // namespace

bool TlsIdleBuffers::park(mbedtls_ssl_context* ssl) {
  if (parked_) return true;
  // Only between records: whatever mbedTLS holds in its buffers then is the record counters.
  if (ssl->state != MBEDTLS_SSL_HANDSHAKE_OVER || ssl->handshake || !ssl->in_buf || !ssl->out_buf ||
      ssl->in_left != 0 || ssl->in_msglen != 0 || ssl->in_offt || ssl->in_hslen != 0 ||
      ssl->keep_current_message || ssl->out_left != 0)
    return false;
#if defined(MBEDTLS_SSL_PROTO_DTLS)
  if (ssl->next_record_offset != 0) return false;
#endif
#if defined(MBEDTLS_SSL_VARIABLE_BUFFER_LENGTH)
  size_t in_size = ssl->in_buf_len, out_size = ssl->out_buf_len;
#else
  size_t in_size = MBEDTLS_SSL_IN_BUFFER_LEN, out_size = MBEDTLS_SSL_OUT_BUFFER_LEN;
#endif
  if (in_size > UINT16_MAX || out_size > UINT16_MAX) return false;
  save(&in_, in_pointers(ssl), in_size);
  save(&out_, out_pointers(ssl), out_size);
  parked_ = true;
  return true;
}

bool TlsIdleBuffers::restore(mbedtls_ssl_context* ssl) {
  if (!parked_) return true;
  auto* in = static_cast<unsigned char*>(mbedtls_calloc(1, in_.size));
  auto* out = static_cast<unsigned char*>(mbedtls_calloc(1, out_.size));
  if (!in || !out) {
    mbedtls_free(in);
    mbedtls_free(out);
    return false;
  }
  give_back(in_, in_pointers(ssl), in);
  give_back(out_, out_pointers(ssl), out);
  parked_ = false;
  return true;
}

}  // namespace kite::net
