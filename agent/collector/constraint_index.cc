// Finds an indexable equality in a parsed constraint (see constraint_index.h).
#include "agent/collector/constraint_index.h"

#include <strings.h>

#include "policy/classad/intern.h"

namespace kite::collector {
namespace {

int attr_slot(const classad::Expr* e, const char* const* attrs, int nattrs) {
  if (e->kind != classad::ExprKind::kAttr) return -1;
  const classad::AttrExpr* a = classad::as_attr(e);
  if (a->base || a->is_absolute()) return -1;
  std::string_view n = a->name->view();
  for (int i = 0; i < nattrs; ++i) {
    if (n.size() == std::char_traits<char>::length(attrs[i]) &&
        strncasecmp(n.data(), attrs[i], n.size()) == 0) {
      return i;
    }
  }
  return -1;
}

bool string_literal(const classad::Expr* e, std::string* out) {
  if (e->kind != classad::ExprKind::kLiteral) return false;
  const classad::Value& v = classad::as_literal(e)->value;
  if (!v.is_string()) return false;
  *out = std::string(v.as_string());
  return true;
}

}  // namespace

bool find_indexed_equality(const classad::Expr* e, const char* const* attrs, int nattrs,
                           std::vector<IndexedEquality>* out) {
  if (!e || e->kind != classad::ExprKind::kOp) return false;
  const classad::OpExpr* op = classad::as_op(e);
  if (op->op == classad::Op::kParens) return find_indexed_equality(op->a, attrs, nattrs, out);
  size_t before = out->size();
  if (op->op == classad::Op::kAnd) {
    if (find_indexed_equality(op->a, attrs, nattrs, out)) return true;
    out->resize(before);
    if (find_indexed_equality(op->b, attrs, nattrs, out)) return true;
    out->resize(before);
    return false;
  }
  if (op->op == classad::Op::kOr) {
    if (find_indexed_equality(op->a, attrs, nattrs, out) &&
        find_indexed_equality(op->b, attrs, nattrs, out))
      return true;
    out->resize(before);
    return false;
  }
  // `==` on strings is case-insensitive and `=?=` case-sensitive; the index is lower-cased,
  // so both find a superset that the constraint then filters exactly.
  if (op->op != classad::Op::kEqual && op->op != classad::Op::kMetaEqual) return false;
  for (int side = 0; side < 2; ++side) {
    const classad::Expr* attr = side ? op->b : op->a;
    const classad::Expr* lit = side ? op->a : op->b;
    int slot = attr_slot(attr, attrs, nattrs);
    IndexedEquality eq;
    if (slot >= 0 && string_literal(lit, &eq.value)) {
      eq.attr = slot;
      out->push_back(std::move(eq));
      return true;
    }
  }
  return false;
}

}  // namespace kite::collector
