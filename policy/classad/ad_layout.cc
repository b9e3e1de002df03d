// Attribute layouts (see ad_layout.h): one allocation each, a lazily built hash index, and the
// table of interned layouts that ads of one shape share.
#include "policy/classad/ad_layout.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <unordered_set>

#include "policy/classad/expr.h"
#include "policy/classad/hash.h"

namespace kite::classad {
namespace {

// Layouts up to this size are searched linearly (faster than hashing).
constexpr uint32_t kLinearMax = 8;
// The index holds positions + 1 in 16 bits; larger ads are searched linearly.
constexpr uint32_t kIndexMax = 30000;

inline uint32_t hash_id(uint32_t id) {
  return id * 2654435761u;
}

}  // namespace

// The interned layouts, by shape (the spellings in order; a spelling determines its id).
struct LayoutTable {
  struct Hash {
    size_t operator()(const AdLayout* l) const { return l->shape_hash(); }
  };
  struct Equal {
    bool operator()(const AdLayout* a, const AdLayout* b) const {
      return a->size_ == b->size_ &&
             std::memcmp(a->names(), b->names(), a->size_ * sizeof(StringObj*)) == 0;
    }
  };
  std::unordered_set<AdLayout*, Hash, Equal> set;
};

namespace {
LayoutTable& table() {
  // Per thread, as the name and expression tables are; never destroyed (ads may outlive it).
  thread_local LayoutTable* t = new LayoutTable();
  return *t;
}
}  // namespace

AdLayout* AdLayout::make(uint32_t cap) {
  void* p = std::malloc(block_bytes(cap));
  if (!p) std::abort();
  return new (p) AdLayout(cap);
}

AdLayout::~AdLayout() {
  std::free(index_);
  if (base_) {
    for (uint32_t i = 0; i < size_; ++i) expr_unref(base_[i]);
    std::free(base_);
  }
}

void AdLayout::set_base(Expr* const* values) {
  if (base_ || !interned_ || size_ == 0) return;
  base_ = static_cast<Expr**>(std::malloc(size_ * sizeof(Expr*)));
  if (!base_) std::abort();
  for (uint32_t i = 0; i < size_; ++i) {
    base_[i] = values[i];
    expr_ref(base_[i]);
  }
}

void AdLayout::unref() {
  if (--refs_ != 0) return;
  if (interned_) {
    auto& set = table().set;
    auto it = set.find(this);
    if (it != set.end() && *it == this) set.erase(it);  // an equal layout may be another's
  }
  this->~AdLayout();
  std::free(this);
}

AdLayout* AdLayout::clone(uint32_t cap) const {
  AdLayout* l = make(cap);
  l->size_ = size_;
  std::memcpy(l->names_mut(), names(), size_ * sizeof(StringObj*));
  std::memcpy(l->ids_mut(), ids(), size_ * sizeof(uint32_t));
  return l;
}

uint32_t AdLayout::shape_hash() const {
  uint64_t h = size_;
  for (uint32_t i = 0; i < size_; ++i) h = hash::mix(h, reinterpret_cast<uintptr_t>(names()[i]));
  return static_cast<uint32_t>(h ^ (h >> 32));
}

void AdLayout::build_index() const {
  uint32_t cap = 16;
  while (cap < size_ * 2) cap <<= 1;
  if (cap != index_cap_) {
    std::free(index_);
    index_ = static_cast<uint16_t*>(std::malloc(cap * sizeof(uint16_t)));
    if (!index_) std::abort();
    index_cap_ = cap;
  }
  std::memset(index_, 0, cap * sizeof(uint16_t));
  const uint32_t mask = cap - 1;
  const uint32_t* id = ids();
  for (uint32_t i = 0; i < size_; ++i) {
    uint32_t h = hash_id(id[i]) & mask;
    while (index_[h] != 0) h = (h + 1) & mask;
    index_[h] = static_cast<uint16_t>(i + 1);
  }
  index_dirty_ = false;
}

void AdLayout::prepare_index() const {
  if (size_ > kLinearMax && size_ < kIndexMax && index_dirty_) build_index();
}

int AdLayout::find(uint32_t id) const {
  const uint32_t* ids_p = ids();
  if (size_ > kLinearMax && size_ < kIndexMax) {
    if (index_dirty_) build_index();
    const uint32_t mask = index_cap_ - 1;
    uint32_t h = hash_id(id) & mask;
    while (uint16_t slot = index_[h]) {
      if (ids_p[slot - 1] == id) return slot - 1;
      h = (h + 1) & mask;
    }
    return -1;
  }
  for (uint32_t i = 0; i < size_; ++i) {
    if (ids_p[i] == id) return static_cast<int>(i);
  }
  return -1;
}

int AdLayout::find_for_insert(uint32_t id) const {
  if (!index_dirty_ || size_ > 2 * kLinearMax) return find(id);  // builds the index once
  const uint32_t* ids_p = ids();
  for (uint32_t i = 0; i < size_; ++i) {
    if (ids_p[i] == id) return static_cast<int>(i);
  }
  return -1;
}

int AdLayout::find_no_rebuild(uint32_t id) const {
  if (!index_dirty_) return find(id);
  const uint32_t* ids_p = ids();
  for (uint32_t i = 0; i < size_; ++i) {
    if (ids_p[i] == id) return static_cast<int>(i);
  }
  return -1;
}

void AdLayout::push(uint32_t id, StringObj* name) {
  names_mut()[size_] = name;
  ids_mut()[size_] = id;
  ++size_;
  // Keep a live index up to date in place while it has room; otherwise it is rebuilt on the
  // next lookup.
  if (!index_dirty_ && size_ * 2 <= index_cap_ && size_ < kIndexMax) {
    const uint32_t mask = index_cap_ - 1;
    uint32_t h = hash_id(id) & mask;
    while (index_[h] != 0) h = (h + 1) & mask;
    index_[h] = static_cast<uint16_t>(size_);
  } else {
    index_dirty_ = true;
  }
}

void AdLayout::erase(size_t i) {
  std::memmove(names_mut() + i, names() + i + 1, (size_ - i - 1) * sizeof(StringObj*));
  std::memmove(ids_mut() + i, ids() + i + 1, (size_ - i - 1) * sizeof(uint32_t));
  --size_;
  index_dirty_ = true;
}

void AdLayout::clear() {
  size_ = 0;
  index_dirty_ = true;
}

AdLayout* AdLayout::intern(AdLayout* l) {
  if (l->interned_) return l;
  auto& set = table().set;
  auto it = set.find(l);
  if (it != set.end()) {
    (*it)->ref();
    l->unref();
    return *it;
  }
  if (l->cap_ != l->size_ || l->refs_ != 1) {  // keep an exact, unshared copy
    AdLayout* exact = l->clone(l->size_);
    l->unref();
    l = exact;
  }
  l->prepare_index();
  l->interned_ = true;
  set.insert(l);
  return l;
}

size_t AdLayout::interned_count() {
  return table().set.size();
}

}  // namespace kite::classad
