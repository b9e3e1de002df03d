// The attribute names of a ClassAd apart from its values (interned ids, spellings, hash index),
// so that ads of one shape can share a single immutable, interned copy.
#pragma once

#include <cstddef>
#include <cstdint>

#include "policy/classad/value.h"

namespace kite::classad {

// One block: this header, then `cap` spellings and `cap` ids. Refcounted: ads share a layout
// (ClassAd::copy, interning) and copy it before changing it (writable()).
class AdLayout {
 public:
  // An empty private layout with room for `cap` names.
  static AdLayout* make(uint32_t cap);
  // A private copy with room for `cap` (>= size()) names.
  AdLayout* clone(uint32_t cap) const;
  void ref() { ++refs_; }
  void unref();
  // The owner may change it in place: private (not interned) and held by one ad only.
  bool writable() const { return refs_ == 1 && !interned_; }
  bool interned() const { return interned_; }
  uint32_t size() const { return size_; }
  uint32_t capacity() const { return cap_; }
  StringObj* const* names() const { return reinterpret_cast<StringObj* const*>(this + 1); }
  const uint32_t* ids() const { return reinterpret_cast<const uint32_t*>(names() + cap_); }

  // The position of `id`, or -1. Builds the hash index of a large layout on first use.
  int find(uint32_t id) const;
  // As find(), while an ad is being filled: a linear scan rather than rebuilding the index
  // after every insert.
  int find_for_insert(uint32_t id) const;
  // As find(), but a stale index is not rebuilt: a scan (removals in a row, which each make
  // the index stale again).
  int find_no_rebuild(uint32_t id) const;
  // Changes, for a writable() layout only (push: size() < capacity()).
  void push(uint32_t id, StringObj* name);
  void set_name(size_t i, StringObj* name) { names_mut()[i] = name; }
  void erase(size_t i);
  void clear();
  // Builds the hash index now if the layout is large enough to use one, so that a layout
  // shared by several ads is never changed by a lookup.
  void prepare_index() const;

  // The interned layout with the same names in the same order as `l`, taking over the
  // caller's reference to `l` and returning one to the result (`l` itself, now interned and
  // immutable, when it is the first of its shape).
  static AdLayout* intern(AdLayout* l);
  // Interned layouts alive (for tests and memory accounting).
  static size_t interned_count();
  // Values most ads of an interned layout hold (one per name, referenced by the layout), or
  // null; the ads keep only the values that differ (ClassAd's delta mode).
  Expr* const* base() const { return base_; }
  // Sets the base values once, on an interned layout, taking a reference to each.
  void set_base(Expr* const* values);
  // Bytes of one layout of `n` names (for memory accounting).
  static size_t block_bytes(uint32_t n) { return sizeof(AdLayout) + n * (sizeof(void*) + 4); }

 private:
  friend struct LayoutTable;
  explicit AdLayout(uint32_t cap) : cap_(cap) {}
  ~AdLayout();
  AdLayout(const AdLayout&) = delete;
  AdLayout& operator=(const AdLayout&) = delete;
  StringObj** names_mut() { return reinterpret_cast<StringObj**>(this + 1); }
  uint32_t* ids_mut() { return reinterpret_cast<uint32_t*>(names_mut() + cap_); }
  void build_index() const;
  uint32_t shape_hash() const;

  uint32_t refs_ = 1;
  uint32_t size_ = 0;
  uint32_t cap_;
  mutable uint32_t index_cap_ = 0;
  bool interned_ = false;
  mutable bool index_dirty_ = true;
  mutable uint16_t* index_ = nullptr;  // open addressing: position + 1; index_cap_ slots
  Expr** base_ = nullptr;              // size_ values, or null
};

}  // namespace kite::classad
