// Attribute columns over the stored ads and constraints judged on them (see ad_columns.h).
#include "agent/collector/ad_columns.h"

#include "agent/collector/ad_store.h"
#include "policy/classad/intern.h"
#include "policy/classad/operators.h"

namespace kite::collector {
namespace {

using classad::Expr;
using classad::ExprKind;
using classad::Op;
using classad::Value;
using classad::ValueType;

// The value `e` always evaluates to, when it is a constant (a literal or a folded operation).
const Value* constant_of(const Expr* e) {
  if (e->kind == ExprKind::kLiteral) return &classad::as_literal(e)->value;
  if (e->kind == ExprKind::kOp && (e->bits & classad::kBitFolded))
    return &classad::as_folded(e)->value;
  return nullptr;
}

// Values a cell may hold: lists and ads refer to trees and scopes the cell must not keep.
bool scalar(const Value& v) {
  return v.type() != ValueType::kList && v.type() != ValueType::kClassAd;
}

// An attribute the columns can stand for: a plain name, looked up in the ad alone (no scope
// prefix, not one of the names the evaluator treats specially when the ad lacks them).
bool plain_attr(const Expr* e, uint32_t* id) {
  if (e->kind != ExprKind::kAttr) return false;
  const classad::AttrExpr* a = classad::as_attr(e);
  if (a->base || a->is_absolute() || a->name_id <= classad::kIdOther) return false;
  *id = a->name_id;
  return true;
}

bool comparison(Op op) {
  switch (op) {
    case Op::kEqual:
    case Op::kNotEqual:
    case Op::kMetaEqual:
    case Op::kMetaNotEqual:
    case Op::kLess:
    case Op::kLessEq:
    case Op::kGreater:
    case Op::kGreaterEq: return true;
    default: return false;
  }
}

// `a op b` on integers, as the evaluator has it (identity of two integers is equality).
bool compare_ints(Op op, int64_t a, int64_t b) {
  switch (op) {
    case Op::kEqual:
    case Op::kMetaEqual: return a == b;
    case Op::kNotEqual:
    case Op::kMetaNotEqual: return a != b;
    case Op::kLess: return a < b;
    case Op::kLessEq: return a <= b;
    case Op::kGreater: return a > b;
    default: return a >= b;
  }
}

// What attribute `id` of `ad` evaluates to when that is known without evaluating: a missing
// attribute is undefined, a constant its value. False for anything else (an expression).
bool cell_of(const classad::ClassAd& ad, uint32_t id, Value* out) {
  const int at = ad.position_of_id(id);
  int64_t packed;
  if (at >= 0 && ad.packed_at(static_cast<size_t>(at), &packed)) {  // read, left packed
    *out = Value::integer(packed);
    return true;
  }
  const Expr* e = at < 0 ? nullptr : ad.entries()[static_cast<size_t>(at)].expr;
  if (!e) {
    *out = Value::undefined();
    return true;
  }
  const Value* c = constant_of(e);
  if (!c || !scalar(*c)) {
    *out = Value::undefined();
    return false;
  }
  *out = *c;
  return true;
}

void set_bit(std::vector<uint64_t>* bits, size_t i) {
  (*bits)[i >> 6] |= uint64_t{1} << (i & 63);
}

}  // namespace

uint32_t AdColumns::add(const std::string* key, const StoredAd* s, std::string_view type) {
  uint16_t t = 0;
  while (t < type_names_.size() && type_names_[t] != type) ++t;
  if (t == type_names_.size()) type_names_.emplace_back(type);
  uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
    keys_[slot] = key;
    ads_[slot] = s;
    types_[slot] = t;
  } else {
    slot = static_cast<uint32_t>(keys_.size());
    keys_.push_back(key);
    ads_.push_back(s);
    types_.push_back(t);
    for (Column& c : cols_) {
      c.vals.emplace_back();
      c.exact.push_back(0);
    }
  }
  refresh_all(slot, *s->ad);
  return slot;
}

void AdColumns::remove(uint32_t slot) {
  if (slot >= keys_.size() || !keys_[slot]) return;
  keys_[slot] = nullptr;
  ads_[slot] = nullptr;
  for (Column& c : cols_) {
    c.vals[slot] = Value::undefined();  // gives back a string it held
    c.exact[slot] = 0;
  }
  free_.push_back(slot);
}

void AdColumns::refresh_all(uint32_t slot, const classad::ClassAd& ad) {
  for (size_t c = 0; c < cols_.size(); ++c) refresh(c, slot, ad);
}

void AdColumns::refresh(size_t col, uint32_t slot, const classad::ClassAd& ad) {
  Column& c = cols_[col];
  c.exact[slot] = cell_of(ad, c.id, &c.vals[slot]) ? 1 : 0;
}

size_t AdColumns::column_for(uint32_t id) {
  if (id < column_of_.size() && column_of_[id]) {
    size_t col = column_of_[id] - 1u;
    cols_[col].used = queries_;
    return col;
  }
  size_t col = cols_.size();
  if (cols_.size() == kMaxColumns) {
    // The least recently used column that this query does not use makes room.
    col = kMaxColumns;
    for (size_t i = 0; i < cols_.size(); ++i) {
      if (cols_[i].used != queries_ && (col == kMaxColumns || cols_[i].used < cols_[col].used))
        col = i;
    }
    if (col == kMaxColumns) return kMaxColumns;
    column_of_[cols_[col].id] = 0;
  } else {
    cols_.emplace_back();
  }
  Column& c = cols_[col];
  c.id = id;
  c.used = queries_;
  c.vals.assign(keys_.size(), Value::undefined());
  c.exact.assign(keys_.size(), 0);
  if (id >= column_of_.size()) column_of_.resize(id + 1, 0);
  column_of_[id] = static_cast<uint8_t>(col + 1);
  for (uint32_t slot = 0; slot < keys_.size(); ++slot)
    if (keys_[slot]) refresh(col, slot, *ads_[slot]->ad);
  return col;
}

int AdColumns::compile(const Expr* e, std::vector<Node>* nodes) {
  Node n;
  if (e && e->kind == ExprKind::kOp && !(e->bits & classad::kBitFolded)) {
    const classad::OpExpr* o = classad::as_op(e);
    if (o->op == Op::kParens) return compile(o->a, nodes);
    if (o->op == Op::kAnd || o->op == Op::kOr) {
      // `a && b` is true only when both are true, `a || b` only when one of them is (the
      // evaluator's truth of each side; a comparison's value is never a number).
      int a = compile(o->a, nodes);
      int b = compile(o->b, nodes);
      bool maybe_a = (*nodes)[static_cast<size_t>(a)].kind == Node::kMaybe;
      bool maybe_b = (*nodes)[static_cast<size_t>(b)].kind == Node::kMaybe;
      if (o->op == Op::kAnd) {
        if (maybe_a) return b;
        if (maybe_b) return a;
        n.kind = Node::kAnd;
      } else if (!maybe_a && !maybe_b) {
        n.kind = Node::kOr;
      }
      if (n.kind != Node::kMaybe) {
        n.a = a;
        n.b = b;
      }
    } else if (comparison(o->op)) {
      for (int side = 0; side < 2 && n.kind == Node::kMaybe; ++side) {
        const Expr* attr = side ? o->b : o->a;
        const Expr* other = side ? o->a : o->b;
        uint32_t id = 0;
        const Value* c = constant_of(other);
        if (!plain_attr(attr, &id) || !c || !scalar(*c)) continue;
        size_t col = column_for(id);
        if (col == kMaxColumns) break;
        n.kind = Node::kCompare;
        n.column = col;
        n.op = o->op;
        n.constant = c;
        n.attr_left = side == 0;
      }
    }
  }
  nodes->push_back(n);
  return static_cast<int>(nodes->size() - 1);
}

void AdColumns::judge(const std::vector<Node>& nodes, int i, std::vector<uint64_t>* bits) const {
  const Node& n = nodes[static_cast<size_t>(i)];
  size_t slots = keys_.size();
  bits->assign((slots + 63) / 64, 0);
  if (n.kind == Node::kMaybe) {
    for (size_t s = 0; s < slots; ++s) set_bit(bits, s);
    return;
  }
  if (n.kind == Node::kAnd || n.kind == Node::kOr) {
    std::vector<uint64_t> other;
    judge(nodes, n.a, bits);
    judge(nodes, n.b, &other);
    for (size_t w = 0; w < bits->size(); ++w)
      (*bits)[w] = n.kind == Node::kAnd ? (*bits)[w] & other[w] : (*bits)[w] | other[w];
    return;
  }
  const Column& c = cols_[n.column];
  const Value& k = *n.constant;
  Value r;
  for (size_t s = 0; s < slots; ++s) {
    bool maybe = true;
    if (c.exact[s]) {
      const Value& v = c.vals[s];
      if (v.is_integer() && k.is_integer()) {
        maybe = n.attr_left ? compare_ints(n.op, v.as_integer(), k.as_integer())
                            : compare_ints(n.op, k.as_integer(), v.as_integer());
      } else {
        if (n.attr_left) {
          classad::op_binary(n.op, v, k, r);
        } else {
          classad::op_binary(n.op, k, v, r);
        }
        maybe = r.is_boolean() && r.as_boolean();
      }
    }
    if (maybe) set_bit(bits, s);
  }
}

bool AdColumns::candidates(const classad::Expr* constraint, std::string_view type,
                           std::vector<const std::string*>* out) {
  ++queries_;
  std::vector<Node> nodes;
  int root = compile(constraint, &nodes);
  if (nodes[static_cast<size_t>(root)].kind == Node::kMaybe) return false;
  size_t t = 0;
  if (!type.empty()) {
    while (t < type_names_.size() && type_names_[t] != type) ++t;
    if (t == type_names_.size()) return true;  // no ad of that type
  }
  std::vector<uint64_t> bits;
  judge(nodes, root, &bits);
  for (size_t w = 0; w < bits.size(); ++w) {
    for (uint64_t word = bits[w]; word; word &= word - 1) {
      size_t s = w * 64 + static_cast<size_t>(__builtin_ctzll(word));
      if (keys_[s] && (type.empty() || types_[s] == t)) out->push_back(keys_[s]);
    }
  }
  return true;
}

size_t AdColumns::bytes() const {
  size_t n = keys_.capacity() * sizeof(keys_[0]) + ads_.capacity() * sizeof(ads_[0]) +
             types_.capacity() * sizeof(types_[0]) + free_.capacity() * sizeof(free_[0]) +
             column_of_.capacity();
  for (const Column& c : cols_) n += c.vals.capacity() * sizeof(c.vals[0]) + c.exact.capacity();
  return n;
}

}  // namespace kite::collector
