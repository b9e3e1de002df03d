// The shared-expression table: open addressing keyed by a structural hash,
// entries removed when the last ad drops the tree (expr_unref calls
// expr_forget_shared for roots marked kBitSharedRoot).
#include "policy/classad/expr_share.h"

#include <cstring>
#include <vector>

#include "policy/classad/classad.h"

namespace kite::classad {
namespace {

inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

bool hash_value(const Value& v, uint64_t& h);

// Structural hash; false if the tree must not be shared.
bool hash_expr(const Expr* e, uint64_t& h) {
  h = mix(h, (static_cast<uint64_t>(e->kind) << 24) | (static_cast<uint64_t>(e->op) << 16) |
                 (static_cast<uint64_t>(e->flags) << 8) | (e->bits & kBitAbsolute));
  switch (e->kind) {
    case ExprKind::kLiteral: return hash_value(as_literal(e)->value, h);
    case ExprKind::kAttr: {
      const AttrExpr* a = as_attr(e);
      h = mix(h, reinterpret_cast<uintptr_t>(a->name));
      return !a->base || hash_expr(a->base, h);
    }
    case ExprKind::kOp: {
      const OpExpr* o = as_op(e);
      if (o->a && !hash_expr(o->a, h)) return false;
      if (o->b && !hash_expr(o->b, h)) return false;
      if (o->c && !hash_expr(o->c, h)) return false;
      return true;
    }
    case ExprKind::kCall: {
      const CallExpr* c = as_call(e);
      h = mix(h, reinterpret_cast<uintptr_t>(c->name));
      for (uint32_t i = 0; i < c->nargs; ++i) {
        if (!hash_expr(c->args[i], h)) return false;
      }
      return true;
    }
  }
  return false;
}

bool hash_value(const Value& v, uint64_t& h) {
  h = mix(h, static_cast<uint64_t>(v.type()));
  switch (v.type()) {
    case ValueType::kUndefined:
    case ValueType::kError: return true;
    case ValueType::kBoolean: h = mix(h, v.as_boolean()); return true;
    case ValueType::kInteger: h = mix(h, static_cast<uint64_t>(v.as_integer())); return true;
    case ValueType::kReal:
    case ValueType::kRelTime: {
      uint64_t bits;
      double d = v.is_real() ? v.as_real() : v.as_rel_time();
      std::memcpy(&bits, &d, sizeof bits);
      h = mix(h, bits);
      return true;
    }
    case ValueType::kAbsTime:
      h = mix(h, static_cast<uint64_t>(v.as_abs_time().secs));
      h = mix(h, static_cast<uint64_t>(v.as_abs_time().offset));
      return true;
    case ValueType::kString: {
      std::string_view s = v.as_string();
      uint64_t x = 1469598103934665603ull;
      for (char c : s) x = (x ^ static_cast<unsigned char>(c)) * 1099511628211ull;
      h = mix(h, x);
      return true;
    }
    case ValueType::kList:
      for (const Expr* item : v.as_list()->items) {
        if (!hash_expr(item, h)) return false;
      }
      return true;
    case ValueType::kClassAd: return false;
  }
  return false;
}

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

struct Slot {
  uint64_t hash;
  Expr* e;  // null: empty
};

struct Table {
  std::vector<Slot> slots = std::vector<Slot>(1024, Slot{0, nullptr});
  size_t used = 0;

  void grow() {
    std::vector<Slot> old(slots.size() * 2, Slot{0, nullptr});
    old.swap(slots);
    size_t mask = slots.size() - 1;
    for (const Slot& s : old) {
      if (!s.e) continue;
      size_t i = s.hash & mask;
      while (slots[i].e) i = (i + 1) & mask;
      slots[i] = s;
    }
  }

  // Linear probing with backward-shift deletion (no tombstones).
  void erase_at(size_t i) {
    size_t mask = slots.size() - 1;
    slots[i].e = nullptr;
    --used;
    size_t j = i;
    for (;;) {
      j = (j + 1) & mask;
      if (!slots[j].e) return;
      size_t home = slots[j].hash & mask;
      // Move slot j back to the hole at i if its home is not in (i, j].
      bool in_range = (i < j) ? (home > i && home <= j) : (home > i || home <= j);
      if (!in_range) {
        slots[i] = slots[j];
        slots[j].e = nullptr;
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

Expr* expr_share(Expr* e) {
  if (e->bits & kBitSharedRoot) return e;
  uint64_t h = 0;
  if (!hash_expr(e, h)) return e;
  Table& t = table();
  size_t mask = t.slots.size() - 1;
  for (size_t i = h & mask; t.slots[i].e; i = (i + 1) & mask) {
    if (t.slots[i].hash == h && expr_equal(t.slots[i].e, e)) {
      Expr* shared = t.slots[i].e;
      expr_ref(shared);
      expr_unref(e);
      return shared;
    }
  }
  if ((t.used + 1) * 2 > t.slots.size()) {
    t.grow();
    mask = t.slots.size() - 1;
  }
  size_t i = h & mask;
  while (t.slots[i].e) i = (i + 1) & mask;
  t.slots[i] = Slot{h, e};
  ++t.used;
  e->bits |= kBitSharedRoot;
  return e;
}

void expr_forget_shared(Expr* e) {
  uint64_t h = 0;
  hash_expr(e, h);
  Table& t = table();
  size_t mask = t.slots.size() - 1;
  for (size_t i = h & mask; t.slots[i].e; i = (i + 1) & mask) {
    if (t.slots[i].e == e) {
      t.erase_at(i);
      return;
    }
  }
}

size_t expr_shared_count() {
  return t_table ? t_table->used : 0;
}

}  // namespace kite::classad
