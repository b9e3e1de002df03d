// Scan-friendly copies of the literal values of the attributes query constraints compare: one
// column per attribute, one cell per stored ad, kept up to date on every change, so that a
// constraint of comparisons with literals rules most ads out without touching them.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"
#include "policy/classad/value.h"

namespace kite::collector {

struct StoredAd;

// The store registers each ad it holds under a slot and reports every change of its attributes;
// columns are built the first time a constraint names their attribute (at most kMaxColumns,
// the least recently used given up for a new one).
class AdColumns {
 public:
  static constexpr size_t kMaxColumns = 8;
  static constexpr uint32_t kNoSlot = UINT32_MAX;

  // Registers the ad `s` (of `type`, stored under `key`; both outlive the slot) and returns its
  // slot.
  uint32_t add(const std::string* key, const StoredAd* s, std::string_view type);
  void remove(uint32_t slot);
  // The ad of `slot` changed in any number of attributes (replaced whole, or merged).
  void refresh_all(uint32_t slot, const classad::ClassAd& ad);
  // Attribute `id` of the ad of `slot` was inserted, replaced or removed.
  void changed(uint32_t slot, const classad::ClassAd& ad, uint32_t id) {
    if (id < column_of_.size() && column_of_[id]) refresh(column_of_[id] - 1, slot, ad);
  }

  // The keys of the ads of `type` (lower case; empty: every type) for which `constraint` may
  // evaluate to true, in no particular order: every other ad is sure not to match. False (and
  // nothing appended) when no part of the constraint can be judged from columns.
  bool candidates(const classad::Expr* constraint, std::string_view type,
                  std::vector<const std::string*>* out);

  size_t columns() const { return cols_.size(); }
  // Heap bytes of the per-slot vectors and columns (capacities), for memory figures.
  size_t bytes() const;

 private:
  struct Column {
    uint32_t id = 0;                   // the attribute's interned id
    std::vector<classad::Value> vals;  // by slot: the literal value (undefined when missing)
    std::vector<uint8_t> exact;        // by slot: 1 when vals holds what the attribute evaluates to
    uint64_t used = 0;                 // the last query that used it (for eviction)
  };
  // A constraint compiled for columns: comparisons of one attribute with a constant, joined by
  // && and ||; kMaybe stands for any other part (it may be true for every ad).
  struct Node {
    enum Kind { kMaybe, kAnd, kOr, kCompare } kind = kMaybe;
    int a = -1, b = -1;  // children (kAnd, kOr)
    size_t column = 0;   // kCompare: the column, the operator and the constant
    classad::Op op = classad::Op::kNone;
    const classad::Value* constant = nullptr;  // in the constraint's tree
    bool attr_left = true;                     // `attr op constant` (else `constant op attr`)
  };
  int compile(const classad::Expr* e, std::vector<Node>* nodes);
  // Slots (bits) for which node `n` may be true.
  void judge(const std::vector<Node>& nodes, int n, std::vector<uint64_t>* bits) const;
  size_t column_for(uint32_t id);  // kMaxColumns when none can be given
  void refresh(size_t col, uint32_t slot, const classad::ClassAd& ad);

  std::vector<const std::string*> keys_;  // by slot; null: a free slot
  std::vector<const StoredAd*> ads_;      // by slot
  std::vector<uint16_t> types_;           // by slot: index into type_names_
  std::vector<std::string> type_names_;   // lower case
  std::vector<uint32_t> free_;
  std::vector<Column> cols_;
  std::vector<uint8_t> column_of_;  // by attribute id: column index + 1, 0: none
  uint64_t queries_ = 0;
};

}  // namespace kite::collector
