// The evaluator: a recursive walk over the compiled tree with HTCondor's
// scoping (current ad, its parents, then the match partner for unqualified
// names), lazy logic operators, and cycle detection that yields UNDEFINED.
// HTCONDOR: classad-mechanism "Evaluation Semantics", "Attribute References".
#include "policy/classad/eval.h"

#include "policy/classad/functions.h"
#include "policy/classad/operators.h"

namespace kite::classad {
namespace {

enum class Truth { kFalse, kTrue, kUndefined, kError };

inline Truth truth(const Value& v) {
  switch (v.type()) {
    case ValueType::kBoolean: return v.as_boolean() ? Truth::kTrue : Truth::kFalse;
    case ValueType::kInteger: return v.as_integer() != 0 ? Truth::kTrue : Truth::kFalse;
    case ValueType::kReal: return v.as_real() != 0.0 ? Truth::kTrue : Truth::kFalse;
    case ValueType::kUndefined: return Truth::kUndefined;
    default: return Truth::kError;
  }
}

inline void set_truth(Truth t, Value& out) {
  switch (t) {
    case Truth::kFalse: out.set_boolean(false); return;
    case Truth::kTrue: out.set_boolean(true); return;
    case Truth::kUndefined: out.set_undefined(); return;
    case Truth::kError: out.set_error(); return;
  }
}

// Fast paths for the common operand types; false when the general
// operator code must decide. Always inlined: GCC's heuristics left it out of eval_op once a
// Value became 16 bytes, costing START evaluation ~10%.
[[gnu::always_inline]] inline bool fast_binary(Op op, const Value& a, const Value& b, Value& out) {
  if (a.is_integer() && b.is_integer()) {
    int64_t x = a.as_integer(), y = b.as_integer();
    switch (op) {
      case Op::kEqual: out.set_boolean(x == y); return true;
      case Op::kNotEqual: out.set_boolean(x != y); return true;
      case Op::kLess: out.set_boolean(x < y); return true;
      case Op::kLessEq: out.set_boolean(x <= y); return true;
      case Op::kGreater: out.set_boolean(x > y); return true;
      case Op::kGreaterEq: out.set_boolean(x >= y); return true;
      case Op::kAdd:
        out.set_integer(static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y)));
        return true;
      case Op::kSub:
        out.set_integer(static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y)));
        return true;
      case Op::kMul:
        out.set_integer(static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y)));
        return true;
      default: return false;
    }
  }
  if (a.is_string() && b.is_string() && (op == Op::kEqual || op == Op::kNotEqual)) {
    std::string_view x = a.as_string(), y = b.as_string();
    bool eq = x.size() == y.size();
    for (size_t k = 0; eq && k < x.size(); ++k) {
      unsigned char cx = static_cast<unsigned char>(x[k]), cy = static_cast<unsigned char>(y[k]);
      if (cx != cy) {
        if (cx >= 'A' && cx <= 'Z') cx = static_cast<unsigned char>(cx + 32);
        if (cy >= 'A' && cy <= 'Z') cy = static_cast<unsigned char>(cy + 32);
        eq = cx == cy;
      }
    }
    out.set_boolean(op == Op::kEqual ? eq : !eq);
    return true;
  }
  if ((a.is_real() || a.is_integer()) && (b.is_real() || b.is_integer())) {
    double x = a.is_real() ? a.as_real() : static_cast<double>(a.as_integer());
    double y = b.is_real() ? b.as_real() : static_cast<double>(b.as_integer());
    switch (op) {
      case Op::kEqual: out.set_boolean(x == y); return true;
      case Op::kNotEqual: out.set_boolean(x != y); return true;
      case Op::kLess: out.set_boolean(x < y); return true;
      case Op::kLessEq: out.set_boolean(x <= y); return true;
      case Op::kGreater: out.set_boolean(x > y); return true;
      case Op::kGreaterEq: out.set_boolean(x >= y); return true;
      case Op::kSub: {
        double r = x - y;
        if (r > 1.7976931348623157e308) return false;  // +INF: let the general path decide
        out.set_real(r);
        return true;
      }
      case Op::kAdd: {
        double r = x + y;
        if (r > 1.7976931348623157e308) return false;
        out.set_real(r);
        return true;
      }
      default: return false;
    }
  }
  return false;
}

// Finds `id` in `start` or its enclosing ads; sets *where to the ad it is in.
inline const Expr* lookup_in_scope(const ClassAd* start, uint32_t id, const ClassAd** where) {
  int guard = 0;
  for (const ClassAd* ad = start; ad && guard < 1000; ad = ad->parent(), ++guard) {
    if (const Expr* e = ad->lookup_id(id)) {
      *where = ad;
      return e;
    }
  }
  return nullptr;
}

inline const ClassAd* root_of(const ClassAd* ad) {
  int guard = 0;
  while (ad && ad->parent() && guard++ < 1000) ad = ad->parent();
  return ad;
}

// TARGET and `other` name the match partner when no ad from `ad` up
// defines them: HTCondor's match puts each ad inside a context ad holding
// `target` and `other` (and the partner as the place unqualified names fall
// back to).
inline bool names_partner(uint32_t id) {
  return id == kIdTarget || id == kIdOther;
}

// The partner ad as a value for a TARGET/`other` that no ad defines.
inline void partner_value(const ClassAd* ad, Value& out) {
  const ClassAd* root = root_of(ad);
  const ClassAd* t = root ? root->partner() : nullptr;
  if (t) {
    out = Value::classad(const_cast<ClassAd*>(t));
  } else {
    out.set_undefined();
  }
}

}  // namespace

struct Evaluator {
  static inline void eval(EvalContext& ctx, const Expr* e, Value& out) {
    switch (e->kind) {
      case ExprKind::kLiteral: out = as_literal(e)->value; return;
      case ExprKind::kAttr: eval_attr(ctx, as_attr(e), out); return;
      case ExprKind::kOp:
        if (e->bits & kBitFolded) {
          out = as_folded(e)->value;
        } else {
          eval_op(ctx, as_op(e), out);
        }
        return;
      case ExprKind::kCall: eval_call(ctx, as_call(e), out); return;
    }
  }
  static void eval_call(EvalContext& ctx, const CallExpr* c, Value& out);
  static void special_name(EvalContext& ctx, const ClassAd* ad, uint32_t id, Value& out);
  static void logic(EvalContext& ctx, const OpExpr* o, Truth decisive, Value& out);
  static void eval_in_ad(EvalContext& ctx, const ClassAd* ad, const AttrExpr* a, Value& out);
  static void eval_attr(EvalContext& ctx, const AttrExpr* a, Value& out);
  static void eval_bound(EvalContext& ctx, const ClassAd* where, const Expr* e, Value& out);
  static void eval_op(EvalContext& ctx, const OpExpr* o, Value& out);
  static void select(EvalContext& ctx, const Value& base, const AttrExpr* a, Value& out);
  // Evaluates `e`, returning a reference to the value: straight to the
  // literal when `e` is one or is an attribute bound to one (no copy, no
  // refcount traffic), else to `tmp` after evaluating into it.
  static inline const Value& eval_ref(EvalContext& ctx, const Expr* e, Value& tmp) {
    if (e->kind == ExprKind::kLiteral) return as_literal(e)->value;
    if (e->bits & kBitFolded) return as_folded(e)->value;
    if (e->kind == ExprKind::kAttr) {
      const AttrExpr* a = as_attr(e);
      const ClassAd* ad = nullptr;
      if (!a->base) {
        if (!a->is_absolute()) ad = ctx.scope_;
      } else if (!g_my_target_defined && a->base->kind == ExprKind::kAttr) {
        const AttrExpr* ba = as_attr(a->base);
        if (!ba->base && !ba->is_absolute()) {
          if (ba->name_id == kIdMy) {
            ad = ctx.scope_;
          } else if (ba->name_id == kIdTarget) {
            ad = target_of(ctx);
          }
        }
      }
      if (ad && a->cache_ad == ad && a->cache_gen == ad->generation() &&
          a->cache_expr->kind == ExprKind::kLiteral) {
        return as_literal(a->cache_expr)->value;
      }
    }
    eval(ctx, e, tmp);
    return tmp;
  }
  static const ClassAd* target_of(const EvalContext& ctx);
  // Remembers the ad an attribute's list value comes from; the innermost
  // attribute that produced the list is the ad holding it.
  static inline void note_list_scope(EvalContext& ctx, const ClassAd* where, const Value& v) {
    if (v.is_list() && v.as_list() != ctx.list_obj_) {
      ctx.list_obj_ = v.as_list();
      ctx.list_scope_ = where;
    }
  }
};

const ClassAd* Evaluator::target_of(const EvalContext& ctx) {
  const ClassAd* root = root_of(ctx.scope_);
  return root ? root->partner() : nullptr;
}

void Evaluator::eval_bound(EvalContext& ctx, const ClassAd* where, const Expr* e, Value& out) {
  if (e->kind == ExprKind::kLiteral) {  // cannot refer back to anything
    out = as_literal(e)->value;
    note_list_scope(ctx, where, out);
    return;
  }
  for (int i = ctx.stack_size_ - 1; i >= 0; --i) {
    if (ctx.stack_[i].expr == e && ctx.stack_[i].ad == where) {
      out = Value::undefined();  // a reference back into itself
      return;
    }
  }
  if (ctx.stack_size_ >= EvalContext::kMaxFrames || ctx.stack_exhausted()) {
    out = Value::error();
    return;
  }
  ctx.stack_[ctx.stack_size_++] = EvalContext::Frame{where, e};
  const ClassAd* saved = ctx.scope_;
  ctx.scope_ = where;
  eval(ctx, e, out);
  ctx.scope_ = saved;
  --ctx.stack_size_;
  note_list_scope(ctx, where, out);
}

void Evaluator::select(EvalContext& ctx, const Value& base, const AttrExpr* a, Value& out) {
  if (base.is_classad()) {
    const ClassAd* ad = base.as_classad();
    const ClassAd* where = ad;
    const Expr* e;
    if (a->name_id <= kIdLastReserved && a->name_id != kIdTarget) {
      e = ad->lookup_id(a->name_id);
      if (!e) {
        special_name(ctx, ad, a->name_id, out);
        return;
      }
    } else {
      e = lookup_in_scope(ad, a->name_id, &where);
    }
    if (!e) {
      if (names_partner(a->name_id)) {  // MY.TARGET, TARGET.TARGET, x.other
        Value keep = base;
        partner_value(ad, out);
        return;
      }
      out = Value::undefined();
      return;
    }
    // Keep the ad alive while its attribute evaluates.
    Value keep = base;
    eval_bound(ctx, where, e, out);
    return;
  }
  if (base.is_list()) {
    // Selection on a list applies to each element.
    ListObj* result = ListObj::make();
    Value holder = Value::adopt_list(result);
    for (const Expr* item : base.as_list()->items) {
      Value v;
      eval(ctx, item, v);
      Value r;
      if (v.is_classad() || v.is_list()) {
        select(ctx, v, a, r);
      } else if (v.is_undefined()) {
        r = Value::undefined();
      } else {
        r = Value::error();
      }
      result->items.push_back(new LiteralExpr(static_cast<Value&&>(r)));
    }
    out = static_cast<Value&&>(holder);
    return;
  }
  out = base.is_undefined() ? Value::undefined() : Value::error();
}

// The value of a special name (self/MY, parent, root/toplevel, CurrentTime)
// that `ad` does not define.
void Evaluator::special_name(EvalContext& ctx, const ClassAd* ad, uint32_t id, Value& out) {
  const ClassAd* r = nullptr;
  switch (id) {
    case kIdMy:
    case kIdSelf: r = ad; break;
    case kIdParent: r = ad ? ad->parent() : nullptr; break;
    case kIdRoot:
    case kIdTopLevel: r = root_of(ad); break;
    case kIdCurrentTime: out.set_integer(ctx.now()); return;
    default: break;
  }
  if (r) {
    out = Value::classad(const_cast<ClassAd*>(r));
  } else {
    out.set_undefined();
  }
}

// `ad.name` where `ad` is MY or TARGET: lookup from `ad` up its parents,
// through the node's inline cache.
void Evaluator::eval_in_ad(EvalContext& ctx, const ClassAd* ad, const AttrExpr* a, Value& out) {
  if (a->name_id <= kIdLastReserved && a->name_id != kIdTarget && !ad->lookup_id(a->name_id)) {
    special_name(ctx, ad, a->name_id, out);
    return;
  }
  const ClassAd* where = ad;
  const Expr* e;
  if (a->cache_ad == ad && a->cache_gen == ad->generation()) {
    e = a->cache_expr;
  } else {
    e = lookup_in_scope(ad, a->name_id, &where);
    if (e && where == ad) {
      a->cache_ad = ad;
      a->cache_gen = ad->generation();
      a->cache_expr = e;
    }
  }
  if (!e) {
    if (names_partner(a->name_id)) {
      partner_value(ad, out);
    } else {
      out.set_undefined();
    }
    return;
  }
  eval_bound(ctx, where, e, out);
}

void Evaluator::eval_attr(EvalContext& ctx, const AttrExpr* a, Value& out) {
  if (a->base) {
    // MY.x and TARGET.x: resolve the ad directly (no ad value, no refcount)
    // unless some ad in scope really has an attribute named MY/TARGET.
    const Expr* b = a->base;
    if (b->kind == ExprKind::kAttr) {
      const AttrExpr* ba = as_attr(b);
      if (!ba->base && !ba->is_absolute() && (ba->name_id == kIdMy || ba->name_id == kIdTarget)) {
        if (!g_my_target_defined) {
          const ClassAd* ad = ba->name_id == kIdMy ? ctx.scope_ : target_of(ctx);
          if (!ad) {
            out.set_undefined();
            return;
          }
          eval_in_ad(ctx, ad, a, out);
          return;
        }
      }
    }
    Value base;
    eval(ctx, a->base, base);
    select(ctx, base, a, out);
    return;
  }
  const ClassAd* scope = ctx.scope_;
  if (a->is_absolute()) {
    const ClassAd* root = root_of(scope);
    const Expr* e = root ? root->lookup_id(a->name_id) : nullptr;
    if (!e) {
      out = Value::undefined();
      return;
    }
    eval_bound(ctx, root, e, out);
    return;
  }
  const ClassAd* where = scope;
  const Expr* e;
  if (scope && a->cache_ad == scope && a->cache_gen == scope->generation()) {
    e = a->cache_expr;
  } else if (a->name_id <= kIdLastReserved && a->name_id != kIdTarget) {
    // HTCONDOR: classad.cpp LookupInScope: a special name the current ad
    // does not define resolves at once, without searching enclosing ads.
    e = scope ? scope->lookup_id(a->name_id) : nullptr;
    if (!e) {
      special_name(ctx, scope, a->name_id, out);
      return;
    }
  } else {
    e = lookup_in_scope(scope, a->name_id, &where);
    if (e && where == scope) {
      a->cache_ad = scope;
      a->cache_gen = scope->generation();
      a->cache_expr = e;
    }
  }
  if (!e) {
    if (names_partner(a->name_id)) {
      partner_value(scope, out);
      return;
    }
    // Old-ClassAd semantics: an unqualified name missing from MY falls back to TARGET.
    if (scope && scope->partner()) e = lookup_in_scope(scope->partner(), a->name_id, &where);
    if (!e) {
      out = Value::undefined();
      return;
    }
  }
  eval_bound(ctx, where, e, out);
}

// `&&` (decisive = false) and `||` (decisive = true), lazily: the left side
// decides alone when it is the decisive value or ERROR; an UNDEFINED left
// side yields to a decisive value or ERROR on the right.
void Evaluator::logic(EvalContext& ctx, const OpExpr* o, Truth decisive, Value& out) {
  Value lt;
  Truth tl = truth(eval_ref(ctx, o->a, lt));
  if (tl == decisive || tl == Truth::kError) {
    set_truth(tl, out);
    return;
  }
  Value rt;
  Truth tr = truth(eval_ref(ctx, o->b, rt));
  if (tl != Truth::kUndefined || tr == decisive || tr == Truth::kError) {
    set_truth(tr, out);
  } else {
    out.set_undefined();
  }
}

void Evaluator::eval_op(EvalContext& ctx, const OpExpr* o, Value& out) {
  switch (o->op) {
    case Op::kParens: eval(ctx, o->a, out); return;
    case Op::kAnd: logic(ctx, o, Truth::kFalse, out); return;
    case Op::kOr: logic(ctx, o, Truth::kTrue, out); return;
    case Op::kTernary: {
      Value c;
      eval(ctx, o->a, c);
      switch (truth(c)) {
        case Truth::kTrue: eval(ctx, o->b, out); return;
        case Truth::kFalse: eval(ctx, o->c, out); return;
        case Truth::kUndefined: out = Value::undefined(); return;
        case Truth::kError: out = Value::error(); return;
      }
      return;
    }
    case Op::kElvis: {
      eval(ctx, o->a, out);
      if (out.is_undefined()) eval(ctx, o->b, out);
      return;
    }
    case Op::kSubscript: {
      Value base, index;
      ctx.list_obj_ = nullptr;
      eval(ctx, o->a, base);
      const ClassAd* item_scope =
          base.is_list() && base.as_list() == ctx.list_obj_ ? ctx.list_scope_ : ctx.scope_;
      eval(ctx, o->b, index);
      if (base.is_error() || index.is_error()) {
        out = Value::error();
        return;
      }
      if (base.is_undefined() || index.is_undefined()) {
        out = Value::undefined();
        return;
      }
      if (base.is_list()) {
        if (!index.is_integer()) {
          out = Value::error();
          return;
        }
        const auto& items = base.as_list()->items;
        // HTCondor reads the index as a C int (the low 32 bits).
        int32_t i = static_cast<int32_t>(index.as_integer());
        if (i < 0 || static_cast<size_t>(i) >= items.size()) {
          out = Value::error();
          return;
        }
        if (ctx.stack_exhausted()) {  // an element that subscripts its own list
          out = Value::error();
          return;
        }
        Value keep = base;
        const ClassAd* saved = ctx.scope_;
        ctx.scope_ = item_scope;
        eval(ctx, items[static_cast<size_t>(i)], out);
        ctx.scope_ = saved;
        note_list_scope(ctx, item_scope, out);  // a list inside the list
        return;
      }
      if (base.is_classad() && index.is_string()) {
        // HTCondor looks the name up in that ad alone, not in the ads
        // enclosing it.
        const ClassAd* ad = base.as_classad();
        uint32_t id = intern_find(index.as_string());
        const Expr* e = id ? ad->lookup_id(id) : nullptr;
        if (!e) {
          out = Value::undefined();
          return;
        }
        Value keep = base;
        eval_bound(ctx, ad, e, out);
        return;
      }
      out = Value::error();
      return;
    }
    case Op::kUnaryPlus:
    case Op::kUnaryMinus:
    case Op::kLogicalNot:
    case Op::kBitwiseNot: {
      Value a;
      eval(ctx, o->a, a);
      op_unary(o->op, a, out);
      return;
    }
    default: {
      Value ta, tb;
      const Value& a = eval_ref(ctx, o->a, ta);
      const Value& b = eval_ref(ctx, o->b, tb);
      if (!fast_binary(o->op, a, b, out)) op_binary(o->op, a, b, out);
      return;
    }
  }
}

void Evaluator::eval_call(EvalContext& ctx, const CallExpr* c, Value& out) {
  if (ctx.stack_exhausted()) {
    out.set_error();
    return;
  }
  if (c->fn) {
    c->fn->fn(*c, ctx, out);
  } else {
    out.set_error();  // unknown function
  }
}

void EvalContext::eval(const Expr* e, Value& out) {
  Evaluator::eval(*this, e, out);
}

void EvalContext::eval_in(const ClassAd* scope, const Expr* e, Value& out) {
  const ClassAd* saved = scope_;
  scope_ = scope;
  Evaluator::eval(*this, e, out);
  scope_ = saved;
}

const Expr* EvalContext::resolve(const AttrExpr* ref, const ClassAd** where) {
  *where = nullptr;
  if (ref->base) return nullptr;
  if (ref->is_absolute()) {
    const ClassAd* root = root_of(scope_);
    *where = root;
    return root ? root->lookup_id(ref->name_id) : nullptr;
  }
  const Expr* e = lookup_in_scope(scope_, ref->name_id, where);
  if (!e && scope_ && scope_->partner())
    e = lookup_in_scope(scope_->partner(), ref->name_id, where);
  return e;
}

Value evaluate(const Expr* e, const EvalEnv* env) {
  EvalContext ctx(nullptr, env);
  return ctx.eval(e);
}

bool value_is_true(const Value& v) {
  switch (v.type()) {
    case ValueType::kBoolean: return v.as_boolean();
    case ValueType::kInteger: return v.as_integer() != 0;
    case ValueType::kReal: return v.as_real() != 0.0;
    default: return false;
  }
}

}  // namespace kite::classad
