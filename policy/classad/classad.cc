// ClassAd storage: values beside a (possibly shared) attribute layout, copied before its names
// change; HTCondor's print order, and the convenience evaluators.
#include "policy/classad/classad.h"

#include <strings.h>
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "policy/classad/eval.h"

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
  const uint32_t n = static_cast<uint32_t>(size());
  if (layout_ && layout_->writable() && layout_->capacity() != n) {
    AdLayout* exact = layout_->clone(n);
    layout_->unref();
    layout_ = exact;
  }
  set_values_capacity(n);
}

void ClassAd::share_layout() {
  if (!layout_) return;
  if (!layout_->interned()) layout_ = AdLayout::intern(layout_);
  set_values_capacity(layout_->size());
}

size_t ClassAd::own_bytes() const {
  size_t n = sizeof(ClassAd) + values_cap_ * sizeof(Expr*);
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
  may_hold_ads_ = true;
  expr_set_parent_scope(e, this);
  insert_plain(name, e);
}

void ClassAd::insert_plain(const InternedName& name, Expr* e) {
  if (name.id == kIdMy || name.id == kIdTarget) g_my_target_defined = true;
  int i = layout_ ? layout_->find_for_insert(name.id) : -1;
  gen_ = next_generation();
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
  int i = layout_->find(id);
  if (i < 0) return false;
  expr_unref(values_[i]);
  const size_t n = size();
  std::memmove(values_ + i, values_ + i + 1, (n - i - 1) * sizeof(Expr*));
  make_room(static_cast<uint32_t>(n));
  layout_->erase(static_cast<size_t>(i));
  gen_ = next_generation();
  return true;
}

void ClassAd::clear() {
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
