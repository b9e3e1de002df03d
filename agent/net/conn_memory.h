// What one TLS connection holds on the heap, part by part: the CM keeps thousands of agent
// connections, and tests/bench/conn_mem_bench prints where their bytes go from this.
#pragma once

#include <cstddef>

namespace kite::net {

class TlsConn;

struct ConnMemory {
  size_t object = 0;     // the TlsConn block: mbedtls_ssl_context, uv handles, strings inline
  size_t session = 0;    // mbedTLS's session (and a peer certificate kept in it)
  size_t transform = 0;  // the record protection in use: keys, IVs, cipher contexts
  size_t records = 0;    // mbedTLS's record buffers (none while parked)
  size_t handshake = 0;  // handshake state (none once the handshake is over)
  size_t buffers = 0;    // Kite's strings and buffers outside the object
  size_t blocks = 0;     // heap blocks counted
  size_t total() const { return object + session + transform + records + handshake + buffers; }
  ConnMemory& operator+=(const ConnMemory& o);
};

/// Adds `c`'s heap blocks to `m`, each counted as the allocator's block (payload and header).
void add_conn_memory(const TlsConn& c, ConnMemory* m);

/// The heap bytes behind block `p` (0 for null): glibc's usable size and its header, else 0.
size_t heap_block_bytes(const void* p);

}  // namespace kite::net
