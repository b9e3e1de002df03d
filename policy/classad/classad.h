// A ClassAd: a refcounted set of named expressions with a parent scope (for
// nested ads) and an optional match partner (TARGET, and the place an
// unqualified name falls back to in a match, as HTCondor's old semantics do).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/expr.h"
#include "policy/classad/intern.h"
#include "policy/classad/value.h"

namespace kite::classad {

struct EvalEnv;

class ClassAd {
 public:
  struct Entry {
    StringObj* name;  // as spelled (interned, never freed)
    Expr* expr;       // owned reference to a (possibly shared) root
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
  // A copy, not shrink_to_fit: libstdc++ makes that a no-op without exceptions.
  void shrink() {
    if (entries_.capacity() != entries_.size()) std::vector<Entry>(entries_).swap(entries_);
    if (ids_.capacity() != ids_.size()) std::vector<uint32_t>(ids_).swap(ids_);
  }
  void reserve(size_t n) {
    entries_.reserve(n);
    ids_.reserve(n);
  }
  // Convenience: inserts a literal.
  void insert_value(std::string_view name, Value v);
  bool remove(std::string_view name);
  void clear();

  // The expression bound to `name` in this ad only (no scope walk).
  const Expr* lookup(std::string_view name) const;
  const Expr* lookup_id(uint32_t id) const;
  // The spelled name and expression for interned `id`, or null.
  const Entry* find_entry(uint32_t id) const;

  size_t size() const { return entries_.size(); }
  // Entries in HTCondor's order (shorter names first, then case-insensitive
  // alphabetical), as ads print.
  std::vector<const Entry*> sorted_entries() const;
  // Entries in insertion order.
  const std::vector<Entry>& entries() const { return entries_; }

  // Changes whenever an attribute is added, replaced or removed; unique
  // across all ads, so (ad, generation) identifies one state of one ad.
  uint64_t generation() const { return gen_; }

  const ClassAd* parent() const { return parent_; }
  void set_parent(const ClassAd* p) { parent_ = p; }
  const ClassAd* partner() const { return partner_; }
  void set_partner(const ClassAd* p) { partner_ = p; }

  // Deep copy (expressions shared where immutable, nested ads copied).
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
  int find_index(uint32_t id) const;
  int find_index_for_insert(uint32_t id) const;
  void build_index() const;

  static uint64_t next_generation();
  uint32_t refs_ = 1;
  uint64_t gen_ = next_generation();
  const ClassAd* parent_ = nullptr;
  const ClassAd* partner_ = nullptr;
  std::vector<Entry> entries_;
  std::vector<uint32_t> ids_;            // parallel to entries_
  mutable std::vector<uint16_t> index_;  // open addressing: entry index + 1
  mutable bool index_dirty_ = false;
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
