// Copying a parsed expression with new numbers in its holes (see expr_template.h).
#include "policy/startd/expr_template.h"

#include <cstdio>

#include "policy/classad/expr_share.h"
#include "policy/classad/parser.h"

namespace kite::startd {
namespace {

// Hole i holds kMark + i in the template tree: a number no hole is ever given (make() parses
// for values this large), so a literal carrying it can only be a hole.
constexpr int64_t kMark = int64_t{7} << 58;

classad::ExprPtr parse_with(const char* format, int holes, const int64_t* v) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, format, static_cast<long long>(v[0]),
                              static_cast<long long>(holes > 1 ? v[1] : 0),
                              static_cast<long long>(holes > 2 ? v[2] : 0),
                              static_cast<long long>(holes > 3 ? v[3] : 0));
  if (n < 0 || static_cast<size_t>(n) >= sizeof buf) return classad::ExprPtr();
  return classad::parse_expr(buf);
}

// Puts values[i] in each literal holding kMark + i; counts the holes filled.
int fill(classad::Expr* e, const int64_t* values, int holes) {
  using classad::ExprKind;
  if (!e) return 0;
  switch (e->kind) {
    case ExprKind::kLiteral: {
      auto* lit = static_cast<classad::LiteralExpr*>(e);
      if (!lit->value.is_integer()) return 0;
      const int64_t i = lit->value.as_integer() - kMark;
      if (i < 0 || i >= holes) return 0;
      lit->value = classad::Value::integer(values[i]);
      return 1;
    }
    case ExprKind::kAttr: return fill(static_cast<classad::AttrExpr*>(e)->base, values, holes);
    case ExprKind::kOp: {
      auto* o = static_cast<classad::OpExpr*>(e);
      if (e->bits & classad::kBitFolded) return 0;  // (a constant: holds no hole)
      return fill(o->a, values, holes) + fill(o->b, values, holes) + fill(o->c, values, holes);
    }
    case ExprKind::kCall: {
      auto* c = static_cast<classad::CallExpr*>(e);
      int n = 0;
      for (uint32_t k = 0; k < c->nargs; ++k) n += fill(c->args[k], values, holes);
      return n;
    }
  }
  return 0;
}

}  // namespace

ExprTemplate::ExprTemplate(const char* format, int holes) : format_(format), holes_(holes) {
  if (holes < 1 || holes > kMaxHoles) return;
  int64_t marks[kMaxHoles];
  for (int i = 0; i < kMaxHoles; ++i) marks[i] = kMark + i;
  tree_ = parse_with(format, holes, marks);
  if (!tree_) return;
  // Every hole must be a literal of its own (not folded into a constant, not negated).
  int64_t probe[kMaxHoles] = {};
  classad::ExprPtr copy(classad::expr_copy(tree_.get()));
  for (int i = 0; i < holes; ++i) probe[i] = kMark + i;
  if (fill(copy.get(), probe, holes) != holes) tree_ = classad::ExprPtr();
}

classad::ExprPtr ExprTemplate::make(const int64_t* values) const {
  bool plain = static_cast<bool>(tree_);
  for (int i = 0; i < holes_ && plain; ++i) plain = values[i] >= 0 && values[i] < kMark;
  if (!plain) return parse_with(format_, holes_, values);  // e.g. "-5" parses as a negation
  classad::ExprPtr e(classad::expr_copy(tree_.get()));
  fill(e.get(), values, holes_);
  classad::expr_rehash_tree(e.get());
  return e;
}

}  // namespace kite::startd
