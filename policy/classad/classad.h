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
      iterator(StringObj* const* n, Expr* const* v) : n_(n), v_(v) {}
      Entry operator*() const { return Entry{*n_, *v_}; }
      iterator& operator++() {
        ++n_;
        ++v_;
        return *this;
      }
      bool operator!=(const iterator& o) const { return v_ != o.v_; }
      bool operator==(const iterator& o) const { return v_ == o.v_; }

     private:
      StringObj* const* n_;
      Expr* const* v_;
    };
    Entries(StringObj* const* names, Expr* const* values, size_t n)
        : names_(names), values_(values), n_(n) {}
    iterator begin() const { return iterator(names_, values_); }
    iterator end() const { return iterator(names_ + n_, values_ + n_); }
    size_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    Entry operator[](size_t i) const { return Entry{names_[i], values_[i]}; }

   private:
    StringObj* const* names_;
    Expr* const* values_;
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
  // (AdLayout::intern), leaving this ad only its values; for stores that hold many ads. A later
  // insert of a new name or a remove copies the layout first, so nothing else changes.
  void share_layout();
  bool layout_shared() const { return layout_ && !layout_->writable(); }
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
    return i < 0 ? nullptr : values_[i];
  }
  // The spelled name and expression for interned `id`; both null when absent.
  Entry find_entry(uint32_t id) const {
    int i = layout_ ? layout_->find(id) : -1;
    return i < 0 ? Entry{nullptr, nullptr} : Entry{layout_->names()[i], values_[i]};
  }

  size_t size() const { return layout_ ? layout_->size() : 0; }
  // Entries in HTCondor's order (shorter names first, then case-insensitive
  // alphabetical), as ads print.
  std::vector<Entry> sorted_entries() const;
  // Entries in insertion order, as a vector (for callers that sort them their own way).
  std::vector<Entry> entry_list() const;
  // Entries in insertion order.
  Entries entries() const { return Entries(layout_ ? layout_->names() : nullptr, values_, size()); }

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

  static uint64_t next_generation();
  uint32_t refs_ = 1;
  uint32_t values_cap_ = 0;
  uint64_t gen_ = next_generation();
  const ClassAd* parent_ = nullptr;
  const ClassAd* partner_ = nullptr;
  AdLayout* layout_ = nullptr;  // null while empty
  Expr** values_ = nullptr;     // parallel to the layout's names; values_cap_ of them
  // Some entry may hold an ad literal (whose parent scope is this ad); when
  // false, destruction need not walk the trees to detach them.
  bool may_hold_ads_ = false;
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
