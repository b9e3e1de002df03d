// Sharing of equal expression trees between ads: thousands of machine ads
// carry the same START, Rank and literal values, so each distinct tree is
// kept once. Trees holding ad literals are never shared (their parent scope
// is the ad they sit in).
#pragma once

#include <cstring>

#include "policy/classad/expr.h"
#include "policy/classad/hash.h"

namespace kite::classad {

// Takes over the caller's reference to `e` and returns a reference to a tree
// equal to it: an existing shared tree (then `e` is freed) or `e` itself,
// now registered for sharing. Computes every node's hash first.
Expr* expr_share(Expr* e);
// As expr_share, for a tree whose nodes already carry their hashes (the
// parser sets them as it builds) and that holds no ad literal.
Expr* expr_share_hashed(Expr* e);
// Structural equality (same spelling, same literal values bit for bit).
bool expr_equal(const Expr* a, const Expr* b);
// Number of distinct shared trees alive (for tests and memory accounting).
size_t expr_shared_count();
// Recomputes and stores the hash of every node of `e`; false if `e` holds an
// ad literal (not shareable). For tests and trees not built by the parser.
bool expr_rehash_tree(Expr* e);

// Structural hashes of literal values, by type (lists fold in their items'
// stored hashes; ad literals hash by type only, they are never shared).
inline uint64_t value_hash_plain(ValueType t) {
  return static_cast<uint64_t>(t) + 1;
}
inline uint64_t value_hash_boolean(bool b) {
  return hash::mix(value_hash_plain(ValueType::kBoolean), b);
}
inline uint64_t value_hash_integer(int64_t i) {
  return hash::mix(value_hash_plain(ValueType::kInteger), static_cast<uint64_t>(i));
}
inline uint64_t value_hash_double(ValueType t, double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return hash::mix(value_hash_plain(t), bits);
}
inline uint64_t value_hash_string(std::string_view s) {
  return hash::mix(value_hash_plain(ValueType::kString), hash::bytes(s.data(), s.size(), false));
}

inline uint64_t value_hash(const Value& v) {
  switch (v.type()) {
    case ValueType::kUndefined:
    case ValueType::kError:
    case ValueType::kClassAd: return value_hash_plain(v.type());
    case ValueType::kBoolean: return value_hash_boolean(v.as_boolean());
    case ValueType::kInteger: return value_hash_integer(v.as_integer());
    case ValueType::kReal: return value_hash_double(v.type(), v.as_real());
    case ValueType::kRelTime: return value_hash_double(v.type(), v.as_rel_time());
    case ValueType::kAbsTime: {
      uint64_t h =
          hash::mix(value_hash_plain(v.type()), static_cast<uint64_t>(v.as_abs_time().secs));
      return hash::mix(h, static_cast<uint64_t>(v.as_abs_time().offset));
    }
    case ValueType::kString: return value_hash_string(v.as_string());
    case ValueType::kList: {
      uint64_t h = value_hash_plain(v.type());
      for (const Expr* item : v.as_list()->items) h = hash::mix(h, item->hash);
      return h;
    }
  }
  return value_hash_plain(v.type());
}

inline uint64_t expr_header_hash(const Expr* e) {
  return hash::mix(0, (static_cast<uint64_t>(e->kind) << 24) |
                          (static_cast<uint64_t>(e->op) << 16) |
                          (static_cast<uint64_t>(e->flags) << 8) | (e->bits & kBitAbsolute));
}
inline uint32_t hash_fold32(uint64_t h) {
  return static_cast<uint32_t>(h ^ (h >> 32));
}

// The hash of `e` from the node's own fields (kind, operator, flags, names,
// literal value) and its children's stored hashes, so a tree built bottom-up
// is hashed without a walk. Equal trees get equal hashes.
inline uint32_t expr_node_hash(const Expr* e) {
  uint64_t h = expr_header_hash(e);
  switch (e->kind) {
    case ExprKind::kLiteral: h = hash::mix(h, value_hash(as_literal(e)->value)); break;
    case ExprKind::kAttr: {
      const AttrExpr* a = as_attr(e);
      h = hash::mix(h, reinterpret_cast<uintptr_t>(a->name));
      if (a->base) h = hash::mix(h, a->base->hash);
      break;
    }
    case ExprKind::kOp: {
      const OpExpr* o = as_op(e);
      if (o->a) h = hash::mix(h, o->a->hash);
      if (o->b) h = hash::mix(h, o->b->hash);
      if (o->c) h = hash::mix(h, o->c->hash);
      break;
    }
    case ExprKind::kCall: {
      const CallExpr* c = as_call(e);
      h = hash::mix(h, reinterpret_cast<uintptr_t>(c->name));
      for (uint32_t i = 0; i < c->nargs; ++i) h = hash::mix(h, c->args[i]->hash);
      break;
    }
  }
  return hash_fold32(h);
}

// expr_node_hash of a new literal node (no parentheses) whose value hashes
// to `value_hash`: for the parser, which knows the value's type.
inline uint32_t fresh_literal_hash(uint64_t value_hash) {
  constexpr uint64_t kHeader = hash::mix(0, static_cast<uint64_t>(ExprKind::kLiteral) << 24);
  return hash_fold32(hash::mix(kHeader, value_hash));
}

inline void expr_set_hash(Expr* e) {
  e->hash = expr_node_hash(e);
}

}  // namespace kite::classad
