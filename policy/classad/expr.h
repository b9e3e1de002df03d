// The compiled form of a ClassAd expression: compact nodes of a few kinds,
// parsed once and evaluated many times. Attribute names are interned
// (case-insensitively) so lookups compare integers, not strings.
#pragma once

#include <cstdint>

#include "policy/classad/pool.h"
#include "policy/classad/value.h"

namespace kite::classad {

struct FunctionEntry;

enum class ExprKind : uint8_t {
  kLiteral,  // LiteralExpr: a constant value (also list and ad literals)
  kAttr,     // AttrExpr: `name`, `.name`, or `base.name`
  kOp,       // OpExpr: unary, binary, ternary operators, subscript, parentheses
  kCall,     // CallExpr: function call
};

// Operators. The order of the binary block mirrors HTCondor's operator table.
enum class Op : uint8_t {
  kNone,
  // unary
  kUnaryPlus,
  kUnaryMinus,
  kLogicalNot,
  kBitwiseNot,
  kParens,
  // binary
  kOr,
  kAnd,
  kBitOr,
  kBitXor,
  kBitAnd,
  kEqual,
  kNotEqual,
  kMetaEqual,     // =?= and `is` (prints as `is`)
  kMetaNotEqual,  // =!= and `isnt` (prints as `isnt`)
  kLess,
  kLessEq,
  kGreater,
  kGreaterEq,
  kShiftLeft,
  kShiftRight,
  kShiftRightUnsigned,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kSubscript,
  // ternary and friends
  kTernary,  // a ? b : c
  kElvis,    // a ?: b
};

// Expr::bits.
enum : uint8_t {
  kBitAbsolute = 1,    // AttrExpr: `.name`, looked up from the root scope
  kBitSharedRoot = 2,  // root registered in the shared-expression table
  kBitFolded = 4,      // FoldedOpExpr: a constant operation with its value precomputed
};
// Parentheses around a node are kept as a count in the top bits of `flags`
// (for unparse) instead of as extra nodes the evaluator would have to walk.
constexpr uint8_t kParenShift = 2;
constexpr uint8_t kParenMax = 63;
inline int paren_count(const struct Expr* e);

struct Expr {
  ExprKind kind;
  Op op = Op::kNone;
  uint8_t flags = 0;
  uint8_t bits = 0;  // kBitAbsolute (AttrExpr `.name`), kBitSharedRoot
  bool is_absolute() const { return bits & kBitAbsolute; }
  uint32_t refs = 1;  // trees may be shared between ads (roots only)
  // Structural hash (expr_share.h), set by the parser as it builds each node
  // from the node's own fields and its children's hashes; the key of a
  // shared root in the shared-expression table.
  uint32_t hash = 0;
  explicit Expr(ExprKind k) : kind(k) {}
  // Nodes come from the small-object pool; always delete via the concrete
  // type (expr_delete does) so the sized delete gets the right size.
  static void* operator new(size_t n) { return pool_alloc(n); }
  static void operator delete(void* p, size_t n) { pool_free(p, n); }
};

struct LiteralExpr : Expr {
  Value value;
  explicit LiteralExpr(Value v) : Expr(ExprKind::kLiteral), value(static_cast<Value&&>(v)) {}
};

inline int paren_count(const Expr* e) {
  return e->flags >> kParenShift;
}

struct AttrExpr : Expr {
  uint32_t name_id;      // interned, case-insensitive (fills the header's last 4 bytes)
  StringObj* name;       // as spelled
  Expr* base = nullptr;  // `base.name`; null for `name` and `.name`
  // Inline cache of the last unqualified lookup: the ad (and its
  // generation) the name was found directly in, and the entry's expression.
  mutable const ClassAd* cache_ad = nullptr;
  mutable uint64_t cache_gen = 0;
  mutable const Expr* cache_expr = nullptr;
  AttrExpr(uint32_t id, StringObj* n) : Expr(ExprKind::kAttr), name_id(id), name(n) {}
};

struct OpExpr : Expr {
  Expr* a = nullptr;
  Expr* b = nullptr;
  Expr* c = nullptr;
  explicit OpExpr(Op o) : Expr(ExprKind::kOp) { op = o; }
};

// An operation on constants (`15 * 60`), kept whole for unparse but with
// its value computed once at parse time.
struct FoldedOpExpr : OpExpr {
  Value value;
  FoldedOpExpr(Op o, Value v) : OpExpr(o), value(static_cast<Value&&>(v)) { bits |= kBitFolded; }
};
inline const FoldedOpExpr* as_folded(const Expr* e) {
  return static_cast<const FoldedOpExpr*>(e);
}

struct CallExpr : Expr {
  uint32_t nargs = 0;       // first: fills the header's last 4 bytes
  const FunctionEntry* fn;  // null: unknown function (evaluates to error)
  StringObj* name;          // as spelled
  Expr** args = nullptr;
  CallExpr(const FunctionEntry* f, StringObj* n) : Expr(ExprKind::kCall), fn(f), name(n) {}
};

inline const LiteralExpr* as_literal(const Expr* e) {
  return static_cast<const LiteralExpr*>(e);
}
inline const AttrExpr* as_attr(const Expr* e) {
  return static_cast<const AttrExpr*>(e);
}
inline const OpExpr* as_op(const Expr* e) {
  return static_cast<const OpExpr*>(e);
}
inline const CallExpr* as_call(const Expr* e) {
  return static_cast<const CallExpr*>(e);
}

// Frees a whole tree (ignores `refs`; use expr_unref for shared roots).
void expr_delete(Expr* e);
inline void expr_ref(Expr* e) {
  ++e->refs;
}
void expr_forget_shared(Expr* e);  // expr_share.cc
inline void expr_unref(Expr* e) {
  if (--e->refs == 0) {
    if (e->bits & kBitSharedRoot) expr_forget_shared(e);
    expr_delete(e);
  }
}
// Deep copy of a tree (nested lists and ads are copied too).
Expr* expr_copy(const Expr* e);

// Owning handle for a tree root.
class ExprPtr {
 public:
  ExprPtr() = default;
  explicit ExprPtr(Expr* e) : e_(e) {}
  ~ExprPtr() {
    if (e_) expr_unref(e_);
  }
  ExprPtr(ExprPtr&& o) noexcept : e_(o.e_) { o.e_ = nullptr; }
  ExprPtr& operator=(ExprPtr&& o) noexcept {
    if (this != &o) {
      if (e_) expr_unref(e_);
      e_ = o.e_;
      o.e_ = nullptr;
    }
    return *this;
  }
  ExprPtr(const ExprPtr&) = delete;
  ExprPtr& operator=(const ExprPtr&) = delete;
  Expr* get() const { return e_; }
  Expr* release() {
    Expr* e = e_;
    e_ = nullptr;
    return e;
  }
  explicit operator bool() const { return e_ != nullptr; }

 private:
  Expr* e_ = nullptr;
};

}  // namespace kite::classad
