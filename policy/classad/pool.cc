// The node pool: free lists per size class; slabs are never returned, so a
// node freed on another thread simply joins that thread's list.
#include "policy/classad/pool.h"

#include <cstdlib>
#include <new>

namespace kite::classad {
namespace {

constexpr size_t kSlabBytes = 64 * 1024;
constexpr size_t kClasses = kPoolMaxSize / 8;

struct FreeNode {
  FreeNode* next;
};

struct Pool {
  FreeNode* free_lists[kClasses + 1] = {};
  char* bump = nullptr;
  size_t bump_left = 0;
  size_t slab_bytes = 0;
};

thread_local Pool t_pool;

inline size_t size_class(size_t n) {
  return (n + 7) / 8;
}

}  // namespace

void* pool_alloc(size_t n) {
  if (n == 0) n = 1;
  if (n > kPoolMaxSize) {
    void* p = std::malloc(n);
    if (!p) std::abort();
    return p;
  }
  Pool& pool = t_pool;
  size_t c = size_class(n);
  if (FreeNode* f = pool.free_lists[c]) {
    pool.free_lists[c] = f->next;
    return f;
  }
  size_t bytes = c * 8;
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

void pool_free(void* p, size_t n) {
  if (!p) return;
  if (n == 0) n = 1;
  if (n > kPoolMaxSize) {
    std::free(p);
    return;
  }
  Pool& pool = t_pool;
  size_t c = size_class(n);
  auto* f = static_cast<FreeNode*>(p);
  f->next = pool.free_lists[c];
  pool.free_lists[c] = f;
}

size_t pool_slab_bytes() {
  return t_pool.slab_bytes;
}

}  // namespace kite::classad
