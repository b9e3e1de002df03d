// Counting a TLS connection's heap blocks (see conn_memory.h).
#include "agent/net/conn_memory.h"

#include <malloc.h>
#include <mbedtls/gcm.h>
#include <mbedtls/ssl_internal.h>  // the transform and handshake structures

#include <string>

#include "agent/net/tls_conn.h"

namespace kite::net {
namespace {

void add_block(const void* p, size_t* part, ConnMemory* m) {
  if (!p) return;
  *part += heap_block_bytes(p);
  ++m->blocks;
}

// A string's heap block, if it has one (short strings live inside the object).
void add_string(const std::string& s, size_t* part, ConnMemory* m) {
  const char* d = s.data();
  const char* self = reinterpret_cast<const char*>(&s);
  if (d < self || d >= self + sizeof s) add_block(d, part, m);
}

void add_cipher(const mbedtls_cipher_context_t& c, size_t* part, ConnMemory* m) {
  add_block(c.cipher_ctx, part, m);
  // A GCM context holds a cipher context of its own (the AES key schedule).
  if (c.cipher_ctx && c.cipher_info && c.cipher_info->mode == MBEDTLS_MODE_GCM)
    add_block(static_cast<const mbedtls_gcm_context*>(c.cipher_ctx)->cipher_ctx.cipher_ctx, part,
              m);
}

void add_transform(const mbedtls_ssl_transform* t, size_t* part, ConnMemory* m) {
  if (!t) return;
  add_block(t, part, m);
  add_cipher(t->cipher_ctx_enc, part, m);
  add_cipher(t->cipher_ctx_dec, part, m);
}

void add_session(const mbedtls_ssl_session* s, size_t* part, ConnMemory* m) {
  if (!s) return;
  add_block(s, part, m);
#if defined(MBEDTLS_X509_CRT_PARSE_C) && defined(MBEDTLS_SSL_KEEP_PEER_CERTIFICATE)
  if (s->peer_cert) {
    add_block(s->peer_cert, part, m);
    add_block(s->peer_cert->raw.p, part, m);
  }
#endif
#if defined(MBEDTLS_SSL_SESSION_TICKETS) && defined(MBEDTLS_SSL_CLI_C)
  add_block(s->ticket, part, m);
#endif
}

}  // namespace

ConnMemory& ConnMemory::operator+=(const ConnMemory& o) {
  object += o.object;
  session += o.session;
  transform += o.transform;
  records += o.records;
  handshake += o.handshake;
  buffers += o.buffers;
  blocks += o.blocks;
  return *this;
}

size_t heap_block_bytes(const void* p) {
#if defined(__GLIBC__)
  // An allocated glibc chunk is its usable size plus the size word in front of it.
  return p ? malloc_usable_size(const_cast<void*>(p)) + sizeof(size_t) : 0;
#else
  (void)p;
  return 0;
#endif
}

void add_conn_memory(const TlsConn& c, ConnMemory* m) {
  add_block(&c, &m->object, m);
  const mbedtls_ssl_context& ssl = c.ssl_;
  // After the handshake session, session_in and session_out are one; a server's is then the
  // context's, shared (TlsContext::share_session).
  if (!c.shared_session_) add_session(ssl.session, &m->session, m);
  if (ssl.session_negotiate != ssl.session) add_session(ssl.session_negotiate, &m->handshake, m);
  add_transform(ssl.transform, &m->transform, m);
  if (ssl.transform_negotiate != ssl.transform)
    add_transform(ssl.transform_negotiate, &m->handshake, m);
  add_block(ssl.handshake, &m->handshake, m);
  add_block(ssl.in_buf, &m->records, m);
  add_block(ssl.out_buf, &m->records, m);
#if defined(MBEDTLS_X509_CRT_PARSE_C)
  add_block(ssl.hostname, &m->buffers, m);
#endif
  for (const std::string* s : {&c.in_, &c.plain_, &c.out_, &c.reader_.buffer(), &c.peer_name_,
                               &c.address_, &c.opts_.name, &c.peer_.cn, &c.peer_.role})
    add_string(*s, &m->buffers, m);
  if (!c.peer_.sans.empty()) add_block(c.peer_.sans.data(), &m->buffers, m);
  for (const std::string& s : c.peer_.sans) add_string(s, &m->buffers, m);
}

}  // namespace kite::net
