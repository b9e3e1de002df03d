// Parking an idle TLS connection's record buffers (see tls_idle_buffers.h).
#include "agent/net/tls_idle_buffers.h"

#include <mbedtls/platform.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/ssl_internal.h>  // MBEDTLS_SSL_{IN,OUT}_BUFFER_LEN without variable buffers

#include <cstring>

namespace kite::net {
namespace {

uint16_t offset(const unsigned char* p, const unsigned char* buf) {
  return static_cast<uint16_t>(p - buf);
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
  unsigned char* in = ssl->in_buf;
  in_.size = static_cast<uint16_t>(in_size);
  in_.ctr = offset(ssl->in_ctr, in);
  in_.hdr = offset(ssl->in_hdr, in);
  in_.len = offset(ssl->in_len, in);
  in_.iv = offset(ssl->in_iv, in);
  in_.msg = offset(ssl->in_msg, in);
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
  in_.cid = offset(ssl->in_cid, in);
#endif
  memcpy(in_.counter, ssl->in_ctr, sizeof in_.counter);
  unsigned char* out = ssl->out_buf;
  out_.size = static_cast<uint16_t>(out_size);
  out_.ctr = offset(ssl->out_ctr, out);
  out_.hdr = offset(ssl->out_hdr, out);
  out_.len = offset(ssl->out_len, out);
  out_.iv = offset(ssl->out_iv, out);
  out_.msg = offset(ssl->out_msg, out);
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
  out_.cid = offset(ssl->out_cid, out);
#endif
  memcpy(out_.counter, ssl->out_ctr, sizeof out_.counter);
  // As mbedtls_ssl_free would: the last records' plaintext does not linger in freed memory.
  mbedtls_platform_zeroize(in, in_size);
  mbedtls_platform_zeroize(out, out_size);
  mbedtls_free(in);
  mbedtls_free(out);
  ssl->in_buf = ssl->in_ctr = ssl->in_hdr = ssl->in_len = ssl->in_iv = ssl->in_msg = nullptr;
  ssl->out_buf = ssl->out_ctr = ssl->out_hdr = ssl->out_len = ssl->out_iv = ssl->out_msg = nullptr;
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
  ssl->in_cid = ssl->out_cid = nullptr;
#endif
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
  ssl->in_buf = in;
  ssl->in_ctr = in + in_.ctr;
  ssl->in_hdr = in + in_.hdr;
  ssl->in_len = in + in_.len;
  ssl->in_iv = in + in_.iv;
  ssl->in_msg = in + in_.msg;
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
  ssl->in_cid = in + in_.cid;
#endif
  memcpy(ssl->in_ctr, in_.counter, sizeof in_.counter);
  ssl->out_buf = out;
  ssl->out_ctr = out + out_.ctr;
  ssl->out_hdr = out + out_.hdr;
  ssl->out_len = out + out_.len;
  ssl->out_iv = out + out_.iv;
  ssl->out_msg = out + out_.msg;
#if defined(MBEDTLS_SSL_DTLS_CONNECTION_ID)
  ssl->out_cid = out + out_.cid;
#endif
  memcpy(ssl->out_ctr, out_.counter, sizeof out_.counter);
  parked_ = false;
  return true;
}

}  // namespace kite::net
