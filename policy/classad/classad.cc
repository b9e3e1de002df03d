// ClassAd storage: values beside a (possibly shared) attribute layout, copied before its names
// change; HTCondor's print order, and the convenience evaluators.
#include "policy/classad/classad.h"

#include <strings.h>
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "policy/classad/eval.h"
#include "policy/classad/expr_share.h"

namespace kite::classad {
namespace {

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
  if (delta_) {
    for (uint32_t i = 0; i < values_cap_; ++i) release_own(delta_values()[i]);
    std::free(values_);
    layout_->unref();
    return;
  }
  const size_t n = size();
  for (size_t i = 0; i < n; ++i) {
    // Nested ads that outlive us must not point at freed memory.
    if (may_hold_ads_) {
      for_each_ad_literal(values_[i], [this](ClassAd* ad) {
        if (ad->parent() == this) ad->set_parent(nullptr);
      });
    }
    expr_unref(values_[i]);
  }
  std::free(values_);
  if (layout_) layout_->unref();
}

void ClassAd::set_values_capacity(uint32_t cap) {
  if (delta_) return;  // the delta block is always exact
  if (cap == values_cap_) return;
  if (cap == 0) {
    std::free(values_);
    values_ = nullptr;
    values_cap_ = 0;
    return;
  }
  void* p = std::realloc(values_, cap * sizeof(Expr*));
  if (!p) std::abort();
  values_ = static_cast<Expr**>(p);
  values_cap_ = cap;
}

void ClassAd::make_room(uint32_t need) {
  if (delta_) materialize();
  const uint32_t n = static_cast<uint32_t>(size());
  if (!layout_) {
    layout_ = AdLayout::make(need < 4 ? 4 : need);
  } else if (!layout_->writable() || layout_->capacity() < need) {
    uint32_t cap = layout_->capacity();
    if (cap < need) cap = need > 2 * n ? need : 2 * n;
    AdLayout* own = layout_->clone(cap);
    layout_->unref();
    layout_ = own;
  }
  if (values_cap_ < layout_->capacity()) set_values_capacity(layout_->capacity());
}

void ClassAd::reserve(size_t n) {
  if (n > size()) make_room(static_cast<uint32_t>(n));
}

void ClassAd::shrink() {
  if (delta_) return;  // exact already
  const uint32_t n = static_cast<uint32_t>(size());
  if (layout_ && layout_->writable() && layout_->capacity() != n) {
    AdLayout* exact = layout_->clone(n);
    layout_->unref();
    layout_ = exact;
  }
  set_values_capacity(n);
}

void ClassAd::share_layout() {
  if (!layout_ || delta_) return;
  if (!layout_->interned()) layout_ = AdLayout::intern(layout_);
  set_values_capacity(layout_->size());
  // Ads holding ad literals stay whole: their nested ads' parent scope is this ad.
  if (may_hold_ads_) return;
  if (!layout_->base()) layout_->set_base(values_);  // the first ad of its shape
  to_delta();
}

void ClassAd::to_delta() {
  const size_t n = size(), words = (n + 63) / 64;
  Expr* const* base = layout_->base();
  uint32_t own = 0;
  for (size_t i = 0; i < n; ++i) own += values_[i] != base[i];
  auto* block = static_cast<uint64_t*>(std::malloc((words + own) * sizeof(uint64_t)));
  if (!block) std::abort();
  std::memset(block, 0, words * sizeof(uint64_t));
  Expr** out = reinterpret_cast<Expr**>(block + words);
  for (size_t i = 0; i < n; ++i) {
    if (values_[i] == base[i]) {
      expr_unref(values_[i]);  // the layout holds it
    } else {
      block[i >> 6] |= uint64_t{1} << (i & 63);
      *out++ = values_[i];
    }
  }
  std::free(values_);
  values_ = reinterpret_cast<Expr**>(block);
  values_cap_ = own;
  delta_ = true;
}

void ClassAd::materialize() {
  const size_t n = size();
  auto** full = static_cast<Expr**>(std::malloc(n * sizeof(Expr*)));
  if (!full) std::abort();
  for (size_t i = 0; i < n; ++i) {
    full[i] = delta_value(i);
    if (!delta_has(i)) expr_ref(full[i]);  // was the layout's; now the ad's own too
  }
  std::free(values_);
  values_ = full;
  values_cap_ = static_cast<uint32_t>(n);
  delta_ = false;
}

void ClassAd::delta_set(size_t i, Expr* e) {
  auto* bits = reinterpret_cast<uint64_t*>(values_);
  const size_t words = delta_words(), r = delta_rank(i);
  const uint64_t bit = uint64_t{1} << (i & 63);
  const bool had = delta_has(i);
  Expr** own = values_ + words;
  if (e == layout_->base()[i]) {  // back to the base value: the layout holds it
    expr_unref(e);
    if (!had) return;
    release_own(own[r]);
    std::memmove(own + r, own + r + 1, (values_cap_ - r - 1) * sizeof(Expr*));
    --values_cap_;
    bits[i >> 6] &= ~bit;
    return;
  }
  if (had) {
    release_own(own[r]);
    own[r] = e;
    return;
  }
  void* p = std::realloc(values_, (words + values_cap_ + 1) * sizeof(uint64_t));
  if (!p) std::abort();
  values_ = static_cast<Expr**>(p);
  bits = reinterpret_cast<uint64_t*>(values_);
  own = values_ + words;
  std::memmove(own + r + 1, own + r, (values_cap_ - r) * sizeof(Expr*));
  own[r] = e;
  ++values_cap_;
  bits[i >> 6] |= bit;
}

namespace {

// A literal an ad may keep packed in its value slot: an integer of 63 bits, only this ad's,
// printed as it is (no parentheses).
bool packable(const Expr* e, int64_t* out) {
  if (e->kind != ExprKind::kLiteral || e->refs != 1 || e->flags != 0) return false;
  const Value& v = as_literal(e)->value;
  if (!v.is_integer()) return false;
  const int64_t i = v.as_integer();
  if (i < -(int64_t{1} << 62) || i >= (int64_t{1} << 62)) return false;  // one bit is the tag
  *out = i;
  return true;
}

}  // namespace

void ClassAd::pack_numbers() {
  if (!delta_) return;
  Expr** own = delta_values();
  bool packed = false;
  for (uint32_t r = 0; r < values_cap_; ++r) {
    int64_t i;
    if (is_packed(own[r]) || !packable(own[r], &i)) continue;
    expr_unref(own[r]);  // its only reference (and out of the shared table, if in it)
    own[r] = reinterpret_cast<Expr*>((static_cast<uint64_t>(i) << 1) | 1);
    packed = true;
  }
  // A node handed out before may be gone: caches keyed by (ad, generation) must miss.
  if (packed) gen_ = next_generation();
}

Expr* ClassAd::unpack(Expr** slot) {
  const int64_t i = static_cast<int64_t>(reinterpret_cast<uintptr_t>(*slot)) >> 1;
  auto* lit = new LiteralExpr(Value::integer(i));
  lit->hash = fresh_literal_hash(value_hash_integer(i));
  *slot = lit;
  return lit;
}

bool ClassAd::packed_at(size_t i, int64_t* value) const {
  if (!delta_ || i >= size() || !delta_has(i)) return false;
  const Expr* e = delta_values()[delta_rank(i)];
  if (!is_packed(e)) return false;
  if (value) *value = static_cast<int64_t>(reinterpret_cast<uintptr_t>(e)) >> 1;
  return true;
}

int ClassAd::position_of(std::string_view name) const {
  uint32_t id = intern_find(name);
  return id == 0 ? -1 : position_of_id(id);
}

size_t ClassAd::own_bytes() const {
  size_t n = sizeof(ClassAd) + values_cap_ * sizeof(Expr*);
  if (delta_) n += delta_words() * sizeof(uint64_t);
  if (layout_ && layout_->writable()) n += AdLayout::block_bytes(layout_->capacity());
  return n;
}

void ClassAd::adopt_entries(const Entry* entries, const uint32_t* ids, size_t n, bool nested) {
  clear();
  make_room(static_cast<uint32_t>(n));
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] == kIdMy || ids[i] == kIdTarget) g_my_target_defined = true;
    layout_->push(ids[i], entries[i].name);
    values_[i] = entries[i].expr;
  }
  gen_ = next_generation();
  if (nested) {
    may_hold_ads_ = true;
    for (size_t i = 0; i < n; ++i) expr_set_parent_scope(values_[i], this);
  }
}

void ClassAd::insert(const InternedName& name, Expr* e) {
  bool nested = false;
  for_each_ad_literal(e, [this, &nested](ClassAd* ad) {
    ad->set_parent(this);
    nested = true;
  });
  if (nested) {
    if (delta_) materialize();
    may_hold_ads_ = true;
  }
  insert_plain(name, e);
}

void ClassAd::insert_plain(const InternedName& name, Expr* e) {
  if (name.id == kIdMy || name.id == kIdTarget) g_my_target_defined = true;
  int i = layout_ ? layout_->find_for_insert(name.id) : -1;
  gen_ = next_generation();
  if (i >= 0 && delta_ && layout_->names()[i] == name.name) {
    delta_set(static_cast<size_t>(i), e);
    return;
  }
  if (delta_) materialize();
  if (i >= 0) {
    expr_unref(values_[i]);
    values_[i] = e;
    if (layout_->names()[i] != name.name) {  // a new spelling: the layout changes
      make_room(static_cast<uint32_t>(size()));
      layout_->set_name(i, name.name);
    }
    return;
  }
  const uint32_t n = static_cast<uint32_t>(size());
  // A copy's values have no spare room even where the layout it shared has.
  if (!layout_ || !layout_->writable() || layout_->capacity() == n || values_cap_ == n)
    make_room(n + 1);
  values_[n] = e;
  layout_->push(name.id, name.name);
}

void ClassAd::insert(std::string_view name, Expr* e) {
  insert(intern_name(name), e);
}

void ClassAd::insert_value(std::string_view name, Value v) {
  insert(name, new LiteralExpr(static_cast<Value&&>(v)));
}

bool ClassAd::remove(std::string_view name) {
  uint32_t id = intern_find(name);
  if (id == 0 || !layout_) return false;
  // After a removal the index is stale: a scan finds the next one without rebuilding it.
  int i = layout_->find_no_rebuild(id);
  if (i < 0) return false;
  if (delta_) materialize();
  expr_unref(values_[i]);
  const size_t n = size();
  std::memmove(values_ + i, values_ + i + 1, (n - i - 1) * sizeof(Expr*));
  make_room(static_cast<uint32_t>(n));
  layout_->erase(static_cast<size_t>(i));
  gen_ = next_generation();
  return true;
}

void ClassAd::clear() {
  if (delta_) {
    for (uint32_t i = 0; i < values_cap_; ++i) release_own(delta_values()[i]);
    std::free(values_);
    values_ = nullptr;
    values_cap_ = 0;
    delta_ = false;
    layout_->unref();  // interned: never writable
    layout_ = nullptr;
    gen_ = next_generation();
    return;
  }
  const size_t n = size();
  for (size_t i = 0; i < n; ++i) expr_unref(values_[i]);
  if (layout_ && !layout_->writable()) {
    layout_->unref();
    layout_ = nullptr;
  } else if (layout_) {
    layout_->clear();
  }
  gen_ = next_generation();
}

const Expr* ClassAd::lookup(std::string_view name) const {
  uint32_t id = intern_find(name);
  return id == 0 ? nullptr : lookup_id(id);
}

std::vector<ClassAd::Entry> ClassAd::entry_list() const {
  std::vector<Entry> out;
  out.reserve(size());
  for (Entry en : entries()) out.push_back(en);
  return out;
}

std::vector<ClassAd::Entry> ClassAd::sorted_entries() const {
  std::vector<Entry> out = entry_list();
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    if (a.name->len != b.name->len) return a.name->len < b.name->len;
    return strcasecmp(a.name->data(), b.name->data()) < 0;
  });
  return out;
}

ClassAd* ClassAd::copy() const {
  ClassAd* ad = make();
  const uint32_t n = static_cast<uint32_t>(size());
  if (n == 0) return ad;
  layout_->prepare_index();  // shared from now on: lookups must not change it
  layout_->ref();
  ad->layout_ = layout_;
  if (delta_) {  // the copy keeps the same own values beside the same base
    const size_t bytes = (delta_words() + values_cap_) * sizeof(uint64_t);
    ad->values_ = static_cast<Expr**>(std::malloc(bytes));
    if (!ad->values_) std::abort();
    std::memcpy(ad->values_, values_, bytes);
    for (uint32_t i = 0; i < values_cap_; ++i)
      if (!is_packed(delta_values()[i])) expr_ref(delta_values()[i]);
    ad->values_cap_ = values_cap_;
    ad->delta_ = true;
    ad->parent_ = parent_;
    return ad;
  }
  ad->set_values_capacity(n);
  for (uint32_t i = 0; i < n; ++i) {
    // A tree without ad literals is immutable: the copy shares it. One holding nested ads is
    // copied (they get the copy as their parent scope).
    Expr* e = values_[i];
    bool nested = false;
    if (may_hold_ads_) for_each_ad_literal(e, [&nested](ClassAd*) { nested = true; });
    if (nested) {
      e = expr_copy(e);
      expr_set_parent_scope(e, ad);
    } else {
      expr_ref(e);
    }
    ad->values_[i] = e;
  }
  ad->may_hold_ads_ = may_hold_ads_;
  ad->parent_ = parent_;
  return ad;
}

Value ClassAd::evaluate_attr(std::string_view name, const EvalEnv* env) const {
  uint32_t id = intern_find(name);  // never interns names nobody defined
  const Entry entry = id ? find_entry(id) : Entry{nullptr, nullptr};
  if (!entry.expr) return Value::undefined();
  // Evaluate through a reference so cycle detection sees the attribute.
  AttrExpr ref(id, entry.name);
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
