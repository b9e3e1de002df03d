// The node pool's slow paths: slabs are never returned, so a node freed on
// another thread simply joins that thread's list.
#include "policy/classad/pool.h"

#include <cstdlib>

namespace kite::classad {
namespace pool_detail {

constexpr size_t kSlabBytes = 64 * 1024;

thread_local constinit Pool t_pool;

void* alloc_slow(size_t n) {
  if (n > kPoolMaxSize) {
    void* p = std::malloc(n);
    if (!p) std::abort();
    return p;
  }
  Pool& pool = t_pool;
  size_t bytes = size_class(n) * 8;
  if (pool.bump_left < bytes) {
    pool.bump = static_cast<char*>(std::malloc(kSlabBytes));
    if (!pool.bump) std::abort();
    pool.bump_left = kSlabBytes;
    pool.slab_bytes += kSlabBytes;
  }
  void* p = pool.bump;
  pool.bump += bytes;
  pool.bump_left -= bytes;
  return p;
}

void free_large(void* p) {
  std::free(p);
}

}  // namespace pool_detail

size_t pool_slab_bytes() {
  return pool_detail::t_pool.slab_bytes;
}

}  // namespace kite::classad
