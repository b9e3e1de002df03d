// A ClassAd: a refcounted set of named expressions with a parent scope (for
// nested ads) and an optional match partner (TARGET, and the place an
// unqualified name falls back to in a match, as HTCondor's old semantics do).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/ad_layout.h"
#include "policy/classad/expr.h"
#include "policy/classad/intern.h"
#include "policy/classad/value.h"

namespace kite::classad {

struct EvalEnv;

class ClassAd {
 public:
  // One attribute: its spelling and its expression. Entries are made on the fly from an ad's
  // layout and values, so there is no Entry to point at: operator& is deleted to make code
  // that would keep a pointer to a temporary fail to compile (keep the Entry itself).
  struct Entry {
    StringObj* name;  // as spelled (interned, never freed)
    Expr* expr;       // owned reference to a (possibly shared) root
    const Entry* operator&() const = delete;
  };
  // The entries of an ad in insertion order, as a range of Entry values (valid until the ad
  // changes): range-for, size(), empty() and indexing, as a vector of entries offered.
  class Entries {
   public:
    class iterator {
     public:
      iterator(const ClassAd* ad, size_t i) : ad_(ad), i_(i) {}
      Entry operator*() const { return ad_->entry_at(i_); }
      iterator& operator++() {
        ++i_;
        return *this;
      }
      bool operator!=(const iterator& o) const { return i_ != o.i_; }
      bool operator==(const iterator& o) const { return i_ == o.i_; }

     private:
      const ClassAd* ad_;
      size_t i_;
    };
    explicit Entries(const ClassAd* ad) : ad_(ad), n_(ad->size()) {}
    iterator begin() const { return iterator(ad_, 0); }
    iterator end() const { return iterator(ad_, n_); }
    size_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    Entry operator[](size_t i) const { return ad_->entry_at(i); }

   private:
    const ClassAd* ad_;
    size_t n_;
  };

  static ClassAd* make() { return new ClassAd(); }
  void ref() { ++refs_; }
  void unref() {
    if (--refs_ == 0) delete this;
  }
  uint32_t refcount() const { return refs_; }

  // Inserts or replaces `name`; takes over the caller's reference to `e`.
  void insert(std::string_view name, Expr* e);
  void insert(const InternedName& name, Expr* e);
  // As insert(), for a tree known to hold no ad literals (the parser knows),
  // which spares walking it to set their parent scope.
  void insert_plain(const InternedName& name, Expr* e);
  // Fills an empty ad in one step with `n` entries of distinct names (ids
  // parallel), taking over their references; `nested`: some trees may hold
  // ad literals, which get this ad as their parent scope. For the parsers.
  void adopt_entries(const Entry* entries, const uint32_t* ids, size_t n, bool nested);
  // Gives the values and a private layout exactly the room they need.
  void shrink();
  void reserve(size_t n);
  // Shares the layout (names, ids, index) with every other ad of the same shape that did so
  // (AdLayout::intern), and with it the layout's base values: this ad keeps only the values
  // that differ from them (see values_). For stores that hold many ads. A later insert of a new
  // name or a remove copies the layout and the values first, so nothing else changes.
  void share_layout();
  bool layout_shared() const { return layout_ && !layout_->writable(); }
  // For stores that hold many ads, after share_layout(): the integer literals only this ad
  // holds are kept in their value slots (8 bytes, not a 32-byte node each). A lookup of one
  // makes its node again, kept until the next pack_numbers(), so an Expr* handed out stays
  // valid until the ad changes, as for any value. Changes the generation when it packs any.
  void pack_numbers();
  // Position `i` holds a packed integer (no node until looked up), whose value goes to `value`
  // if given: for readers that only copy or print values (projections, JSON) and so leave it
  // packed, and for memory accounting.
  bool packed_at(size_t i, int64_t* value = nullptr) const;
  // The position of `name` (interned `id`) in entries(), or -1.
  int position_of(std::string_view name) const;
  int position_of_id(uint32_t id) const { return layout_ ? layout_->find(id) : -1; }
  // Heap bytes this ad holds alone (the ClassAd itself, its values, a private layout), not the
  // trees and layouts it shares; for memory accounting.
  size_t own_bytes() const;
  // Convenience: inserts a literal.
  void insert_value(std::string_view name, Value v);
  bool remove(std::string_view name);
  void clear();

  // The expression bound to `name` in this ad only (no scope walk).
  const Expr* lookup(std::string_view name) const;
  const Expr* lookup_id(uint32_t id) const {
    int i = layout_ ? layout_->find(id) : -1;
    return i < 0 ? nullptr : value_at(static_cast<size_t>(i));
  }
  // The spelled name and expression for interned `id`; both null when absent.
  Entry find_entry(uint32_t id) const {
    int i = layout_ ? layout_->find(id) : -1;
    return i < 0 ? Entry{nullptr, nullptr} : entry_at(static_cast<size_t>(i));
  }

  size_t size() const { return layout_ ? layout_->size() : 0; }
  // The spelling of the name at position `i` of entries() (< size()).
  StringObj* name_at(size_t i) const { return layout_->names()[i]; }
  // Entries in HTCondor's order (shorter names first, then case-insensitive
  // alphabetical), as ads print.
  std::vector<Entry> sorted_entries() const;
  // Entries in insertion order, as a vector (for callers that sort them their own way).
  std::vector<Entry> entry_list() const;
  // Entries in insertion order.
  Entries entries() const { return Entries(this); }

  // Changes whenever an attribute is added, replaced or removed; unique
  // across all ads, so (ad, generation) identifies one state of one ad.
  uint64_t generation() const { return gen_; }

  const ClassAd* parent() const { return parent_; }
  void set_parent(const ClassAd* p) { parent_ = p; }
  const ClassAd* partner() const { return partner_; }
  void set_partner(const ClassAd* p) { partner_ = p; }

  // Deep copy (expressions shared where immutable, nested ads copied; the layout shared
  // until either ad changes its names).
  ClassAd* copy() const;

  // Evaluates the attribute/expression with this ad as MY (and its partner,
  // if any, as TARGET); `env` gives time and randomness (eval_env.h).
  Value evaluate_attr(std::string_view name, const EvalEnv* env = nullptr) const;
  Value evaluate_expr(const Expr* e, const EvalEnv* env = nullptr) const;
  // Typed helpers: false if missing or not of the type (ints convert to
  // real; booleans do not convert).
  bool evaluate_bool(std::string_view name, bool& out) const;
  bool evaluate_int(std::string_view name, int64_t& out) const;
  bool evaluate_real(std::string_view name, double& out) const;
  bool evaluate_string(std::string_view name, std::string& out) const;

 private:
  ClassAd() = default;
  ~ClassAd();
  ClassAd(const ClassAd&) = delete;
  ClassAd& operator=(const ClassAd&) = delete;
  // Makes the layout writable with room for `need` names (copying a shared one), and the
  // values array as large.
  void make_room(uint32_t need);
  void set_values_capacity(uint32_t cap);

  Entry entry_at(size_t i) const { return Entry{layout_->names()[i], value_at(i)}; }
  Expr* value_at(size_t i) const { return delta_ ? delta_value(i) : values_[i]; }
  // Delta mode: the words of the bitmap of values held apart from the layout's base.
  size_t delta_words() const { return (size() + 63) / 64; }
  const uint64_t* delta_bits() const { return reinterpret_cast<const uint64_t*>(values_); }
  Expr** delta_values() const { return values_ + delta_words(); }
  // The rank of `i` among the ad's own values (its bit set or not).
  size_t delta_rank(size_t i) const {
    const uint64_t* bits = delta_bits();
    size_t r =
        static_cast<size_t>(__builtin_popcountll(bits[i >> 6] & ((uint64_t{1} << (i & 63)) - 1)));
    for (size_t w = 0; w < (i >> 6); ++w) r += static_cast<size_t>(__builtin_popcountll(bits[w]));
    return r;
  }
  bool delta_has(size_t i) const { return (delta_bits()[i >> 6] >> (i & 63)) & 1; }
  Expr* delta_value(size_t i) const {
    if (!delta_has(i)) return layout_->base()[i];
    Expr** slot = delta_values() + delta_rank(i);
    return is_packed(*slot) ? unpack(slot) : *slot;
  }
  // Delta mode: an own value slot may hold a packed integer (pack_numbers) instead of a node:
  // the value shifted left once, bit 0 set (nodes are 8-byte aligned).
  static bool is_packed(const Expr* e) { return reinterpret_cast<uintptr_t>(e) & 1; }
  // Makes the node of the packed integer in `slot` and keeps it there.
  static Expr* unpack(Expr** slot);
  // Drops the ad's reference to an own value (nothing to drop for a packed integer).
  static void release_own(Expr* e) {
    if (!is_packed(e)) expr_unref(e);
  }
  // Delta mode: sets value `i` to `e` (taking over the reference).
  void delta_set(size_t i, Expr* e);
  // Into delta mode from a full values array (the layout is interned and has base values).
  void to_delta();
  // Back to a full values array (each value referenced by the ad).
  void materialize();

  static uint64_t next_generation();
  uint32_t refs_ = 1;
  uint32_t values_cap_ = 0;
  uint64_t gen_ = next_generation();
  const ClassAd* parent_ = nullptr;
  const ClassAd* partner_ = nullptr;
  AdLayout* layout_ = nullptr;  // null while empty
  // Full mode: parallel to the layout's names, values_cap_ of them, each referenced by the ad.
  // Delta mode (delta_): one block of a bitmap of delta_words() words (bit i: value i is the
  // ad's own) then the ad's own values in position order, values_cap_ of them; every other
  // value is the interned layout's base value (held by the layout, not referenced by the ad).
  // Most values of a store's slot ads are the same in every ad, so each keeps only ~30. An own
  // value may be a packed integer (is_packed), made a node when looked up: a const lookup then
  // writes its slot, so an ad is read by one thread at a time (as the node pools are per thread).
  Expr** values_ = nullptr;
  // Some entry may hold an ad literal (whose parent scope is this ad); when
  // false, destruction need not walk the trees to detach them.
  bool may_hold_ads_ = false;  // never in delta mode
  bool delta_ = false;
};

// True once any ad has an attribute named MY or TARGET (then `MY.x` must be
// looked up the slow, general way).
extern bool g_my_target_defined;

// Sets the parent scope of every ad literal nested in `e` (not inside
// nested ads, which already point at their own parents).
void expr_set_parent_scope(Expr* e, const ClassAd* scope);

// Owning handle for a ClassAd reference.
class AdPtr {
 public:
  AdPtr() = default;
  explicit AdPtr(ClassAd* a) : a_(a) {}
  ~AdPtr() {
    if (a_) a_->unref();
  }
  AdPtr(AdPtr&& o) noexcept : a_(o.a_) { o.a_ = nullptr; }
  AdPtr& operator=(AdPtr&& o) noexcept {
    if (this != &o) {
      if (a_) a_->unref();
      a_ = o.a_;
      o.a_ = nullptr;
    }
    return *this;
  }
  AdPtr(const AdPtr&) = delete;
  AdPtr& operator=(const AdPtr&) = delete;
  ClassAd* get() const { return a_; }
  ClassAd* operator->() const { return a_; }
  ClassAd& operator*() const { return *a_; }
  ClassAd* release() {
    ClassAd* a = a_;
    a_ = nullptr;
    return a;
  }
  explicit operator bool() const { return a_ != nullptr; }

 private:
  ClassAd* a_ = nullptr;
};

}  // namespace kite::classad
