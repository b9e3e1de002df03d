// The shared-expression table: open addressing keyed by a structural hash,
// entries removed when the last ad drops the tree (expr_unref calls
// expr_forget_shared for roots marked kBitSharedRoot).
#include "policy/classad/expr_share.h"

#include <cstring>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/hash.h"

namespace kite::classad {
namespace {

// Sets the hash of every node below and at `e`, children first; false if
// the tree holds an ad literal.
bool rehash(Expr* e) {
  bool ok = true;
  switch (e->kind) {
    case ExprKind::kLiteral: {
      const Value& v = as_literal(e)->value;
      if (v.is_classad()) {
        ok = false;
      } else if (v.is_list()) {
        for (Expr* item : v.as_list()->items) ok = rehash(item) && ok;
      }
      break;
    }
    case ExprKind::kAttr:
      if (auto* base = static_cast<AttrExpr*>(e)->base) ok = rehash(base);
      break;
    case ExprKind::kOp: {
      auto* o = static_cast<OpExpr*>(e);
      for (Expr* kid : {o->a, o->b, o->c}) {
        if (kid) ok = rehash(kid) && ok;
      }
      break;
    }
    case ExprKind::kCall: {
      auto* c = static_cast<CallExpr*>(e);
      for (uint32_t i = 0; i < c->nargs; ++i) ok = rehash(c->args[i]) && ok;
      break;
    }
  }
  expr_set_hash(e);
  return ok;
}

#ifndef NDEBUG
// Debug builds check that the parser left every node's hash current.
bool hashes_current(const Expr* e) {
  bool ok = true;
  switch (e->kind) {
    case ExprKind::kLiteral:
      if (as_literal(e)->value.is_list()) {
        for (const Expr* item : as_literal(e)->value.as_list()->items) {
          ok = ok && hashes_current(item);
        }
      }
      break;
    case ExprKind::kAttr:
      if (as_attr(e)->base) ok = hashes_current(as_attr(e)->base);
      break;
    case ExprKind::kOp:
      for (const Expr* kid : {as_op(e)->a, as_op(e)->b, as_op(e)->c}) {
        if (kid) ok = ok && hashes_current(kid);
      }
      break;
    case ExprKind::kCall:
      for (uint32_t i = 0; i < as_call(e)->nargs; ++i) {
        ok = ok && hashes_current(as_call(e)->args[i]);
      }
      break;
  }
  return ok && expr_node_hash(e) == e->hash;
}
#endif

bool value_equal(const Value& a, const Value& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case ValueType::kUndefined:
    case ValueType::kError: return true;
    case ValueType::kBoolean: return a.as_boolean() == b.as_boolean();
    case ValueType::kInteger: return a.as_integer() == b.as_integer();
    case ValueType::kReal: {
      double x = a.as_real(), y = b.as_real();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case ValueType::kRelTime: {
      double x = a.as_rel_time(), y = b.as_rel_time();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case ValueType::kAbsTime:
      return a.as_abs_time().secs == b.as_abs_time().secs &&
             a.as_abs_time().offset == b.as_abs_time().offset;
    case ValueType::kString: return a.as_string() == b.as_string();
    case ValueType::kList: {
      const auto& x = a.as_list()->items;
      const auto& y = b.as_list()->items;
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!expr_equal(x[i], y[i])) return false;
      }
      return true;
    }
    case ValueType::kClassAd: return false;
  }
  return false;
}

// Open addressing over root pointers; a root's hash lives in the root.
struct Table {
  std::vector<Expr*> slots = std::vector<Expr*>(1024, nullptr);
  size_t used = 0;

  void resize(size_t n) {
    std::vector<Expr*> old(n, nullptr);
    old.swap(slots);
    size_t mask = slots.size() - 1;
    for (Expr* e : old) {
      if (!e) continue;
      size_t i = e->hash & mask;
      while (slots[i]) i = (i + 1) & mask;
      slots[i] = e;
    }
  }

  // Linear probing with backward-shift deletion (no tombstones).
  void erase_at(size_t i) {
    size_t mask = slots.size() - 1;
    slots[i] = nullptr;
    --used;
    size_t j = i;
    for (;;) {
      j = (j + 1) & mask;
      if (!slots[j]) return;
      size_t home = slots[j]->hash & mask;
      // Move slot j back to the hole at i if its home is not in (i, j].
      bool in_range = (i < j) ? (home > i && home <= j) : (home > i || home <= j);
      if (!in_range) {
        slots[i] = slots[j];
        slots[j] = nullptr;
        i = j;
      }
    }
  }
};

thread_local Table* t_table = nullptr;

Table& table() {
  if (!t_table) t_table = new Table();
  return *t_table;
}

}  // namespace

bool expr_equal(const Expr* a, const Expr* b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind || a->op != b->op || a->flags != b->flags ||
      (a->bits & kBitAbsolute) != (b->bits & kBitAbsolute)) {
    return false;
  }
  switch (a->kind) {
    case ExprKind::kLiteral: return value_equal(as_literal(a)->value, as_literal(b)->value);
    case ExprKind::kAttr: {
      const AttrExpr* x = as_attr(a);
      const AttrExpr* y = as_attr(b);
      return x->name == y->name && expr_equal(x->base, y->base);
    }
    case ExprKind::kOp: {
      const OpExpr* x = as_op(a);
      const OpExpr* y = as_op(b);
      return expr_equal(x->a, y->a) && expr_equal(x->b, y->b) && expr_equal(x->c, y->c);
    }
    case ExprKind::kCall: {
      const CallExpr* x = as_call(a);
      const CallExpr* y = as_call(b);
      if (x->name != y->name || x->nargs != y->nargs) return false;
      for (uint32_t i = 0; i < x->nargs; ++i) {
        if (!expr_equal(x->args[i], y->args[i])) return false;
      }
      return true;
    }
  }
  return false;
}

Expr* expr_share_hashed(Expr* e) {
  if (e->bits & kBitSharedRoot) return e;
#ifndef NDEBUG
  if (!hashes_current(e)) __builtin_trap();
#endif
  const uint32_t h = e->hash;
  Table& t = table();
  size_t mask = t.slots.size() - 1;
  size_t i = h & mask;
  for (; Expr* s = t.slots[i]; i = (i + 1) & mask) {
    if (s->hash == h && expr_equal(s, e)) {
      expr_ref(s);
      expr_unref(e);
      return s;
    }
  }
  if ((t.used + 1) * 2 > t.slots.size()) {
    t.resize(t.slots.size() * 2);
    mask = t.slots.size() - 1;
    i = h & mask;
    while (t.slots[i]) i = (i + 1) & mask;
  }
  t.slots[i] = e;
  ++t.used;
  e->bits |= kBitSharedRoot;
  return e;
}

Expr* expr_share(Expr* e) {
  if (e->bits & kBitSharedRoot) return e;
  if (!rehash(e)) return e;
  return expr_share_hashed(e);
}

bool expr_rehash_tree(Expr* e) {
  return rehash(e);
}

void expr_forget_shared(Expr* e) {
  Table& t = table();
  size_t mask = t.slots.size() - 1;
  for (size_t i = e->hash & mask; t.slots[i]; i = (i + 1) & mask) {
    if (t.slots[i] == e) {
      t.erase_at(i);
      // Given back once mostly empty: a store's first full ads share their unique numbers
      // (hundreds of thousands), which the merges that follow replace.
      if (t.slots.size() > 1024 && t.used * 8 < t.slots.size()) t.resize(t.slots.size() / 2);
      return;
    }
  }
}

size_t expr_shared_count() {
  return t_table ? t_table->used : 0;
}

}  // namespace kite::classad
