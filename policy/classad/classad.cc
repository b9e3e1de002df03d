// ClassAd storage: entries with interned ids, a lazily built hash index for
// large ads, HTCondor's print order, and the convenience evaluators.
#include "policy/classad/classad.h"

#include <strings.h>
#include <algorithm>

#include "policy/classad/eval.h"

namespace kite::classad {
namespace {

// Ads up to this size are searched linearly (faster than hashing).
constexpr size_t kLinearMax = 8;

inline uint32_t hash_id(uint32_t id) {
  return id * 2654435761u;
}

// Walks `e`, calling f(ad) for each ad literal not nested inside another ad.
template <typename F>
void for_each_ad_literal(Expr* e, F&& f) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::kLiteral: {
      Value& v = static_cast<LiteralExpr*>(e)->value;
      if (v.is_classad()) {
        f(v.as_classad());
      } else if (v.is_list()) {
        for (Expr* item : v.as_list()->items) for_each_ad_literal(item, f);
      }
      return;
    }
    case ExprKind::kAttr: for_each_ad_literal(static_cast<AttrExpr*>(e)->base, f); return;
    case ExprKind::kOp: {
      auto* o = static_cast<OpExpr*>(e);
      for_each_ad_literal(o->a, f);
      for_each_ad_literal(o->b, f);
      for_each_ad_literal(o->c, f);
      return;
    }
    case ExprKind::kCall: {
      auto* c = static_cast<CallExpr*>(e);
      for (uint32_t i = 0; i < c->nargs; ++i) for_each_ad_literal(c->args[i], f);
      return;
    }
  }
}

}  // namespace

bool g_my_target_defined = false;

uint64_t ClassAd::next_generation() {
  static uint64_t counter = 0;
  return ++counter;
}

void expr_set_parent_scope(Expr* e, const ClassAd* scope) {
  for_each_ad_literal(e, [scope](ClassAd* ad) { ad->set_parent(scope); });
}

ClassAd::~ClassAd() {
  for (Entry& en : entries_) {
    // Nested ads that outlive us must not point at freed memory.
    if (may_hold_ads_) {
      for_each_ad_literal(en.expr, [this](ClassAd* ad) {
        if (ad->parent() == this) ad->set_parent(nullptr);
      });
    }
    expr_unref(en.expr);
  }
}

void ClassAd::adopt_entries(const Entry* entries, const uint32_t* ids, size_t n, bool nested) {
  entries_.assign(entries, entries + n);
  ids_.assign(ids, ids + n);
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] == kIdMy || ids[i] == kIdTarget) g_my_target_defined = true;
  }
  index_dirty_ = true;
  gen_ = next_generation();
  if (nested) {
    may_hold_ads_ = true;
    for (Entry& en : entries_) expr_set_parent_scope(en.expr, this);
  }
}

void ClassAd::build_index() const {
  size_t cap = 16;
  while (cap < entries_.size() * 2) cap <<= 1;
  index_.assign(cap, 0);
  const uint32_t mask = static_cast<uint32_t>(cap - 1);
  for (size_t i = 0; i < ids_.size(); ++i) {
    uint32_t h = hash_id(ids_[i]) & mask;
    while (index_[h] != 0) h = (h + 1) & mask;
    index_[h] = static_cast<uint16_t>(i + 1);
  }
  index_dirty_ = false;
}

int ClassAd::find_index(uint32_t id) const {
  const size_t n = ids_.size();
  if (n > kLinearMax && n < 30000) {
    if (index_dirty_ || index_.empty()) build_index();
    const uint32_t mask = static_cast<uint32_t>(index_.size() - 1);
    uint32_t h = hash_id(id) & mask;
    while (uint16_t slot = index_[h]) {
      if (ids_[slot - 1] == id) return slot - 1;
      h = (h + 1) & mask;
    }
    return -1;
  }
  for (size_t i = 0; i < n; ++i) {
    if (ids_[i] == id) return static_cast<int>(i);
  }
  return -1;
}

// While an ad is being filled, a linear scan of the ids beats rebuilding
// the hash index after every insert.
int ClassAd::find_index_for_insert(uint32_t id) const {
  if (!index_dirty_ && !index_.empty()) return find_index(id);
  if (ids_.size() > 2 * kLinearMax) return find_index(id);  // builds the index once
  for (size_t i = 0; i < ids_.size(); ++i) {
    if (ids_[i] == id) return static_cast<int>(i);
  }
  return -1;
}

void ClassAd::insert(const InternedName& name, Expr* e) {
  may_hold_ads_ = true;
  expr_set_parent_scope(e, this);
  insert_plain(name, e);
}

void ClassAd::insert_plain(const InternedName& name, Expr* e) {
  if (name.id == kIdMy || name.id == kIdTarget) g_my_target_defined = true;
  int i = find_index_for_insert(name.id);
  if (i >= 0) {
    expr_unref(entries_[i].expr);
    entries_[i].expr = e;
    entries_[i].name = name.name;
    gen_ = next_generation();
    return;
  }
  entries_.push_back(Entry{name.name, e});
  ids_.push_back(name.id);
  gen_ = next_generation();
  // Keep a live index up to date in place while it has room; otherwise it is
  // rebuilt on the next lookup.
  if (!index_dirty_ && !index_.empty() && ids_.size() * 2 <= index_.size() && ids_.size() < 30000) {
    const uint32_t mask = static_cast<uint32_t>(index_.size() - 1);
    uint32_t h = hash_id(name.id) & mask;
    while (index_[h] != 0) h = (h + 1) & mask;
    index_[h] = static_cast<uint16_t>(ids_.size());
  } else {
    index_dirty_ = true;
  }
}

void ClassAd::insert(std::string_view name, Expr* e) {
  insert(intern_name(name), e);
}

void ClassAd::insert_value(std::string_view name, Value v) {
  insert(name, new LiteralExpr(static_cast<Value&&>(v)));
}

bool ClassAd::remove(std::string_view name) {
  uint32_t id = intern_find(name);
  if (id == 0) return false;
  // After a removal the index is stale: a scan finds the next one without rebuilding it.
  int i = -1;
  if (index_dirty_) {
    for (size_t k = 0; k < ids_.size() && i < 0; ++k)
      if (ids_[k] == id) i = static_cast<int>(k);
  } else {
    i = find_index(id);
  }
  if (i < 0) return false;
  expr_unref(entries_[i].expr);
  entries_.erase(entries_.begin() + i);
  ids_.erase(ids_.begin() + i);
  index_dirty_ = true;
  gen_ = next_generation();
  return true;
}

void ClassAd::clear() {
  for (Entry& en : entries_) expr_unref(en.expr);
  entries_.clear();
  ids_.clear();
  index_dirty_ = true;
  gen_ = next_generation();
}

const Expr* ClassAd::lookup_id(uint32_t id) const {
  int i = find_index(id);
  return i < 0 ? nullptr : entries_[i].expr;
}

const ClassAd::Entry* ClassAd::find_entry(uint32_t id) const {
  int i = find_index(id);
  return i < 0 ? nullptr : &entries_[i];
}

const Expr* ClassAd::lookup(std::string_view name) const {
  uint32_t id = intern_find(name);
  return id == 0 ? nullptr : lookup_id(id);
}

std::vector<const ClassAd::Entry*> ClassAd::sorted_entries() const {
  std::vector<const Entry*> out;
  out.reserve(entries_.size());
  for (const Entry& en : entries_) out.push_back(&en);
  std::sort(out.begin(), out.end(), [](const Entry* a, const Entry* b) {
    if (a->name->len != b->name->len) return a->name->len < b->name->len;
    return strcasecmp(a->name->data(), b->name->data()) < 0;
  });
  return out;
}

ClassAd* ClassAd::copy() const {
  ClassAd* ad = make();
  ad->entries_.reserve(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) {
    // A tree without ad literals is immutable: the copy shares it. One holding nested ads is
    // copied (they get the copy as their parent scope).
    Expr* e = entries_[i].expr;
    bool nested = false;
    if (may_hold_ads_) for_each_ad_literal(e, [&nested](ClassAd*) { nested = true; });
    if (nested) {
      e = expr_copy(e);
      expr_set_parent_scope(e, ad);
    } else {
      expr_ref(e);
    }
    ad->entries_.push_back(Entry{entries_[i].name, e});
    ad->ids_.push_back(ids_[i]);
  }
  ad->index_dirty_ = true;
  ad->may_hold_ads_ = may_hold_ads_;
  ad->parent_ = parent_;
  return ad;
}

Value ClassAd::evaluate_attr(std::string_view name, const EvalEnv* env) const {
  uint32_t id = intern_find(name);  // never interns names nobody defined
  const Entry* entry = id ? find_entry(id) : nullptr;
  if (!entry) return Value::undefined();
  // Evaluate through a reference so cycle detection sees the attribute.
  AttrExpr ref(id, entry->name);
  EvalContext ctx(this, env);
  return ctx.eval(&ref);
}

Value ClassAd::evaluate_expr(const Expr* e, const EvalEnv* env) const {
  EvalContext ctx(this, env);
  return ctx.eval(e);
}

bool ClassAd::evaluate_bool(std::string_view name, bool& out) const {
  Value v = evaluate_attr(name);
  if (!v.is_boolean()) return false;
  out = v.as_boolean();
  return true;
}

bool ClassAd::evaluate_int(std::string_view name, int64_t& out) const {
  Value v = evaluate_attr(name);
  if (v.is_integer()) {
    out = v.as_integer();
    return true;
  }
  if (v.is_real()) {
    out = static_cast<int64_t>(v.as_real());
    return true;
  }
  return false;
}

bool ClassAd::evaluate_real(std::string_view name, double& out) const {
  Value v = evaluate_attr(name);
  if (v.is_integer() || v.is_real()) return v.to_number(out);
  return false;
}

bool ClassAd::evaluate_string(std::string_view name, std::string& out) const {
  Value v = evaluate_attr(name);
  if (!v.is_string()) return false;
  out.assign(v.as_string());
  return true;
}

}  // namespace kite::classad
