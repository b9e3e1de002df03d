// Small-object pool for expression nodes and strings: per-thread free lists
// by 8-byte size class, carved from 64 KiB slabs. Cuts the malloc/free cost
// of parsing and the per-node malloc header, which dominate a parsed ad.
// The common cases (a free-list hit, a free) are inline.
#pragma once

#include <cstddef>

namespace kite::classad {

constexpr size_t kPoolMaxSize = 256;  // larger requests go to malloc

namespace pool_detail {

struct FreeNode {
  FreeNode* next;
};

struct Pool {
  FreeNode* free_lists[kPoolMaxSize / 8 + 1] = {};
  char* bump = nullptr;
  size_t bump_left = 0;
  size_t slab_bytes = 0;
};

// constinit: no dynamic initialization, so other files reach it directly
// (no TLS wrapper call).
extern thread_local constinit Pool t_pool;

inline size_t size_class(size_t n) {
  return n == 0 ? 1 : (n + 7) / 8;
}

void* alloc_slow(size_t n);  // malloc for large sizes, else a new slab piece
void free_large(void* p);

}  // namespace pool_detail

inline void* pool_alloc(size_t n) {
  if (n > kPoolMaxSize) return pool_detail::alloc_slow(n);
  pool_detail::Pool& pool = pool_detail::t_pool;
  size_t c = pool_detail::size_class(n);
  if (pool_detail::FreeNode* f = pool.free_lists[c]) {
    pool.free_lists[c] = f->next;
    return f;
  }
  return pool_detail::alloc_slow(n);
}

inline void pool_free(void* p, size_t n) {
  if (!p) return;
  if (n > kPoolMaxSize) {
    pool_detail::free_large(p);
    return;
  }
  pool_detail::Pool& pool = pool_detail::t_pool;
  size_t c = pool_detail::size_class(n);
  auto* f = static_cast<pool_detail::FreeNode*>(p);
  f->next = pool.free_lists[c];
  pool.free_lists[c] = f;
}

// Bytes currently held in slabs by this thread (for memory accounting).
size_t pool_slab_bytes();

}  // namespace kite::classad
