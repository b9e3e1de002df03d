// Small-object pool for expression nodes and strings: per-thread free lists
// by 8-byte size class, carved from 64 KiB slabs. Cuts the malloc/free cost
// of parsing and the per-node malloc header, which dominate a parsed ad.
#pragma once

#include <cstddef>

namespace kite::classad {

constexpr size_t kPoolMaxSize = 256;  // larger requests go to malloc

void* pool_alloc(size_t n);
void pool_free(void* p, size_t n);

// Bytes currently held in slabs by this thread (for memory accounting).
size_t pool_slab_bytes();

}  // namespace kite::classad
