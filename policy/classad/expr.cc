// Freeing and deep-copying expression trees.
#include "policy/classad/expr.h"

#include "policy/classad/classad.h"

namespace kite::classad {

void expr_delete(Expr* e) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::kLiteral: delete static_cast<LiteralExpr*>(e); return;
    case ExprKind::kAttr: {
      auto* a = static_cast<AttrExpr*>(e);
      if (a->base) expr_unref(a->base);
      delete a;
      return;
    }
    case ExprKind::kOp: {
      auto* o = static_cast<OpExpr*>(e);
      if (o->a) expr_unref(o->a);
      if (o->b) expr_unref(o->b);
      if (o->c) expr_unref(o->c);
      if (o->bits & kBitFolded) {
        delete static_cast<FoldedOpExpr*>(o);
      } else {
        delete o;
      }
      return;
    }
    case ExprKind::kCall: {
      auto* c = static_cast<CallExpr*>(e);
      for (uint32_t i = 0; i < c->nargs; ++i) expr_unref(c->args[i]);
      delete[] c->args;
      delete c;
      return;
    }
  }
}

static Expr* copy_node(const Expr* e);

static Value copy_literal_value(const Value& v) {
  if (v.is_list()) {
    ListObj* l = ListObj::make();
    l->items.reserve(v.as_list()->items.size());
    for (const Expr* item : v.as_list()->items) l->items.push_back(expr_copy(item));
    return Value::adopt_list(l);
  }
  if (v.is_classad()) return Value::adopt_classad(v.as_classad()->copy());
  return v;
}

// Copies keep the node's hash: the hash depends only on what is copied.
Expr* expr_copy(const Expr* e) {
  if (!e) return nullptr;
  Expr* n = copy_node(e);
  n->hash = e->hash;
  return n;
}

static Expr* copy_node(const Expr* e) {
  switch (e->kind) {
    case ExprKind::kLiteral: {
      auto* n = new LiteralExpr(copy_literal_value(as_literal(e)->value));
      n->flags = e->flags;
      return n;
    }
    case ExprKind::kAttr: {
      const AttrExpr* a = as_attr(e);
      auto* n = new AttrExpr(a->name_id, a->name);
      n->bits = a->bits & kBitAbsolute;
      n->flags = a->flags;
      n->base = expr_copy(a->base);
      return n;
    }
    case ExprKind::kOp: {
      const OpExpr* o = as_op(e);
      auto* n = new OpExpr(o->op);
      n->flags = o->flags;
      n->a = expr_copy(o->a);
      n->b = expr_copy(o->b);
      n->c = expr_copy(o->c);
      return n;
    }
    case ExprKind::kCall: {
      const CallExpr* c = as_call(e);
      auto* n = new CallExpr(c->fn, c->name);
      n->flags = c->flags;
      n->nargs = c->nargs;
      n->args = c->nargs ? new Expr*[c->nargs] : nullptr;
      for (uint32_t i = 0; i < c->nargs; ++i) n->args[i] = expr_copy(c->args[i]);
      return n;
    }
  }
  return nullptr;
}

}  // namespace kite::classad
