// Tests for shared attribute layouts: ads of one shape share one interned layout, and an ad
// that changes its names copies it first, so no other ad sees the change.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/expr_share.h"
#include "policy/classad/intern.h"
#include "policy/classad/parser.h"

namespace kite::classad {
namespace {

// An ad with attributes a0..a<n-1> holding `base + i` (more than 8: the hashed index is used).
AdPtr numbered_ad(int n, int64_t base) {
  AdPtr ad(ClassAd::make());
  for (int i = 0; i < n; ++i) ad->insert_value("a" + std::to_string(i), Value::integer(base + i));
  return ad;
}

// Two ads of one shape (a0..a<n-1> holding i), sharing their layout.
std::pair<AdPtr, AdPtr> shared_pair(int n) {
  AdPtr x = numbered_ad(n, 0), y = numbered_ad(n, 0);
  x->share_layout();
  y->share_layout();
  return {std::move(x), std::move(y)};
}

int64_t int_of(const ClassAd& ad, const std::string& name) {
  const Expr* e = ad.lookup(name);
  return e && e->kind == ExprKind::kLiteral && as_literal(e)->value.is_integer()
             ? as_literal(e)->value.as_integer()
             : -1;
}

std::vector<std::string> names_of(const ClassAd& ad) {
  std::vector<std::string> out;
  for (const ClassAd::Entry& en : ad.entries()) out.emplace_back(en.name->view());
  return out;
}

TEST(AdLayout, AdsOfOneShapeShareOneLayout) {
  const size_t before = AdLayout::interned_count();
  AdPtr x = numbered_ad(20, 100), y = numbered_ad(20, 200), z = numbered_ad(3, 0);
  x->share_layout();
  y->share_layout();
  z->share_layout();
  EXPECT_TRUE(x->layout_shared());
  EXPECT_TRUE(y->layout_shared());
  EXPECT_EQ(AdLayout::interned_count(), before + 2);  // one per shape
  EXPECT_EQ(int_of(*x, "a7"), 107);
  EXPECT_EQ(int_of(*y, "A19"), 219);  // any case
  EXPECT_EQ(y->lookup("a20"), nullptr);
  x = AdPtr();
  y = AdPtr();
  z = AdPtr();
  EXPECT_EQ(AdLayout::interned_count(), before);  // freed with the last ad of the shape
}

TEST(AdLayout, ReplacingAValueKeepsTheSharedLayout) {
  auto [x, y] = shared_pair(12);
  x->insert_value("a3", Value::integer(42));
  EXPECT_TRUE(x->layout_shared());
  EXPECT_EQ(int_of(*x, "a3"), 42);
  EXPECT_EQ(int_of(*y, "a3"), 3);
}

TEST(AdLayout, InsertingANewNameCopiesTheLayoutFirst) {
  auto [x, y] = shared_pair(12);
  x->insert_value("Extra", Value::integer(7));
  EXPECT_FALSE(x->layout_shared());
  EXPECT_EQ(x->size(), 13u);
  EXPECT_EQ(y->size(), 12u);
  EXPECT_EQ(int_of(*x, "extra"), 7);
  EXPECT_EQ(y->lookup("Extra"), nullptr);
  EXPECT_EQ(int_of(*x, "a11"), 11);  // the copy's index finds the old names too
  x->share_layout();                 // a new shape, shared again
  EXPECT_TRUE(x->layout_shared());
  EXPECT_EQ(int_of(*x, "extra"), 7);
}

TEST(AdLayout, RemovingANameCopiesTheLayoutFirst) {
  auto [x, y] = shared_pair(12);
  EXPECT_TRUE(x->remove("a5"));
  EXPECT_EQ(x->lookup("a5"), nullptr);
  EXPECT_EQ(int_of(*x, "a6"), 6);  // the values after it moved with the names
  EXPECT_EQ(int_of(*x, "a11"), 11);
  EXPECT_EQ(int_of(*y, "a5"), 5);
  EXPECT_EQ(y->size(), 12u);
}

TEST(AdLayout, ANewSpellingCopiesTheLayoutFirst) {
  auto [x, y] = shared_pair(4);
  x->insert_value("A2", Value::integer(9));
  EXPECT_EQ(names_of(*x), (std::vector<std::string>{"a0", "a1", "A2", "a3"}));
  EXPECT_EQ(names_of(*y), (std::vector<std::string>{"a0", "a1", "a2", "a3"}));
}

TEST(AdLayout, ACopySharesTheLayoutUntilEitherChangesItsNames) {
  AdPtr x = numbered_ad(10, 0);
  AdPtr c(x->copy());
  EXPECT_TRUE(c->layout_shared());
  EXPECT_TRUE(x->layout_shared());
  c->insert_value("b", Value::integer(1));
  x->insert_value("a0", Value::integer(50));
  EXPECT_EQ(x->lookup("b"), nullptr);
  EXPECT_EQ(int_of(*c, "b"), 1);
  EXPECT_EQ(int_of(*c, "a0"), 0);
  EXPECT_EQ(int_of(*x, "a0"), 50);
  EXPECT_TRUE(x->remove("a9"));
  EXPECT_EQ(int_of(*c, "a9"), 9);
}

TEST(AdLayout, ACopyOutlivingItsOriginalGrowsItsOwnValues) {
  AdPtr x(ClassAd::make());
  x->insert_value("a", Value::integer(1));  // a layout with room to spare
  AdPtr c(x->copy());
  x = AdPtr();  // the copy now holds the layout alone: writable, with spare room
  for (int i = 0; i < 40; ++i) c->insert_value("n" + std::to_string(i), Value::integer(i));
  EXPECT_EQ(c->size(), 41u);
  EXPECT_EQ(int_of(*c, "a"), 1);
  EXPECT_EQ(int_of(*c, "n39"), 39);
}

TEST(AdLayout, ClearingASharedAdLeavesTheOthers) {
  auto [x, y] = shared_pair(10);
  x->clear();
  EXPECT_EQ(x->size(), 0u);
  EXPECT_EQ(x->lookup("a1"), nullptr);
  x->insert_value("q", Value::integer(3));
  EXPECT_EQ(int_of(*x, "q"), 3);
  EXPECT_EQ(int_of(*y, "a1"), 1);
}

TEST(AdLayout, EntriesReadAsARange) {
  AdPtr x = numbered_ad(3, 10);
  x->share_layout();
  ClassAd::Entries es = x->entries();
  ASSERT_EQ(es.size(), 3u);
  EXPECT_FALSE(es.empty());
  EXPECT_EQ(es[1].name->view(), "a1");
  EXPECT_EQ(as_literal(es[2].expr)->value.as_integer(), 12);
  int n = 0;
  for (const ClassAd::Entry& en : es) n += en.expr != nullptr;
  EXPECT_EQ(n, 3);
  ClassAd::Entry missing = x->find_entry(intern_name("nope").id);
  EXPECT_EQ(missing.expr, nullptr);
  ClassAd::Entry found = x->find_entry(intern_name("A0").id);
  EXPECT_EQ(found.name->view(), "a0");
}

// `n` attributes a0..a<n-1>: where `own` holds i the ad gets its own literal 1000 + i, and
// elsewhere the literal of `common` (the same tree for every ad made so).
AdPtr ad_over(const std::vector<Expr*>& common, const std::vector<int>& own) {
  AdPtr ad(ClassAd::make());
  for (size_t i = 0; i < common.size(); ++i) {
    bool mine = false;
    for (int o : own) mine |= static_cast<size_t>(o) == i;
    Expr* e = mine ? new LiteralExpr(Value::integer(1000 + static_cast<int64_t>(i))) : common[i];
    if (!mine) expr_ref(e);
    ad->insert_plain(intern_name("a" + std::to_string(i)), e);
  }
  return ad;
}

std::vector<Expr*> common_values(int n) {
  std::vector<Expr*> out;
  for (int i = 0; i < n; ++i) out.push_back(new LiteralExpr(Value::integer(i)));
  return out;
}

TEST(AdBaseValues, AnAdKeepsOnlyTheValuesThatDifferFromTheFirstOfItsShape) {
  std::vector<Expr*> common = common_values(130);
  AdPtr first = ad_over(common, {});
  first->share_layout();
  // Own values on both sides of the bitmap's word boundaries.
  AdPtr y = ad_over(common, {0, 63, 64, 127, 129});
  y->share_layout();
  // Three bitmap words and five values of its own, nothing else.
  EXPECT_EQ(y->own_bytes(), sizeof(ClassAd) + 3 * 8 + 5 * 8);
  for (int i = 0; i < 130; ++i) {
    bool mine = i == 0 || i == 63 || i == 64 || i == 127 || i == 129;
    EXPECT_EQ(int_of(*y, "a" + std::to_string(i)), mine ? 1000 + i : i) << i;
    EXPECT_EQ(int_of(*first, "a" + std::to_string(i)), i) << i;
  }
  int64_t k = 0;
  for (const ClassAd::Entry& en : y->entries()) {  // in order, each with its value
    bool mine = k == 0 || k == 63 || k == 64 || k == 127 || k == 129;
    EXPECT_EQ(en.name->view(), "a" + std::to_string(k));
    EXPECT_EQ(as_literal(en.expr)->value.as_integer(), mine ? 1000 + k : k) << k;
    ++k;
  }
  EXPECT_EQ(k, 130);
  EXPECT_EQ(as_literal(y->entries()[64].expr)->value.as_integer(), 1064);
  for (Expr* e : common) expr_unref(e);
}

TEST(AdBaseValues, ChangesStayInTheirOwnAd) {
  std::vector<Expr*> common = common_values(20);
  AdPtr x = ad_over(common, {});
  AdPtr y = ad_over(common, {3});
  x->share_layout();
  y->share_layout();
  const size_t one_own = y->own_bytes();
  y->insert_value("a5", Value::integer(-5));  // a second value of its own
  EXPECT_EQ(y->own_bytes(), one_own + 8);
  EXPECT_EQ(int_of(*y, "a5"), -5);
  EXPECT_EQ(int_of(*x, "a5"), 5);
  expr_ref(common[5]);
  y->insert_plain(intern_name("a5"), common[5]);  // back to the shared value
  EXPECT_EQ(y->own_bytes(), one_own);
  EXPECT_EQ(int_of(*y, "a5"), 5);
  expr_ref(common[3]);
  y->insert_plain(intern_name("a3"), common[3]);
  EXPECT_EQ(y->own_bytes(), one_own - 8);
  // A copy keeps the values; a new name and a removal leave the others alone.
  y->insert_value("a7", Value::integer(77));
  AdPtr c(y->copy());
  y->insert_value("extra", Value::integer(1));
  EXPECT_TRUE(y->remove("a0"));
  EXPECT_EQ(int_of(*y, "a7"), 77);
  EXPECT_EQ(int_of(*y, "extra"), 1);
  EXPECT_EQ(y->lookup("a0"), nullptr);
  EXPECT_EQ(int_of(*c, "a7"), 77);
  EXPECT_EQ(int_of(*c, "a0"), 0);
  EXPECT_EQ(c->lookup("extra"), nullptr);
  EXPECT_EQ(int_of(*x, "a7"), 7);
  EXPECT_EQ(names_of(*x).size(), 20u);
  // Shared again, the changed ad keeps its values.
  y->share_layout();
  EXPECT_EQ(int_of(*y, "a7"), 77);
  EXPECT_EQ(int_of(*y, "a19"), 19);
  c->clear();
  EXPECT_EQ(c->size(), 0u);
  EXPECT_EQ(int_of(*x, "a19"), 19);
  for (Expr* e : common) expr_unref(e);
}

TEST(AdBaseValues, AnAdHoldingNestedAdsKeepsItsValuesWhole) {
  std::vector<Expr*> common = common_values(10);
  AdPtr x = ad_over(common, {});
  x->share_layout();
  AdPtr y = ad_over(common, {});
  ClassAd* inner = ClassAd::make();
  inner->insert_value("v", Value::integer(9));
  y->insert("a4", new LiteralExpr(Value::adopt_classad(inner)));
  y->share_layout();
  EXPECT_EQ(y->own_bytes(), sizeof(ClassAd) + 10 * sizeof(Expr*));
  const Expr* nested = y->lookup("a4");
  ASSERT_TRUE(nested);
  EXPECT_EQ(as_literal(nested)->value.as_classad()->parent(), y.get());
  for (Expr* e : common) expr_unref(e);
}

// An ad of the shape of ad_over() whose own values (at `own`) are the given trees (taken over).
AdPtr ad_with(const std::vector<Expr*>& common, const std::vector<std::pair<int, Expr*>>& own) {
  AdPtr ad(ClassAd::make());
  for (size_t i = 0; i < common.size(); ++i) {
    Expr* e = common[i];
    expr_ref(e);
    for (const auto& [at, tree] : own)
      if (static_cast<size_t>(at) == i) {
        expr_unref(e);
        e = tree;
      }
    ad->insert_plain(intern_name("a" + std::to_string(i)), e);
  }
  return ad;
}

Expr* integer(int64_t i) {
  return new LiteralExpr(Value::integer(i));
}

TEST(AdPackedNumbers, OwnIntegersArePackedAndReadAsTheirValues) {
  std::vector<Expr*> common = common_values(70);
  AdPtr first = ad_over(common, {});
  first->share_layout();
  AdPtr y = ad_with(common, {{1, integer(-5)},
                             {2, integer(1764000000)},
                             {64, integer(4611686018427387903)},   // 2^62 - 1: the largest packed
                             {65, integer(-4611686018427387904)},  // -2^62: the smallest
                             {66, integer(4611686018427387904)},   // 2^62: a node
                             {67, parse_expr("2.5").release()},    // a real: a node
                             {68, parse_expr("\"text\"").release()},  // a string: a node
                             {69, parse_expr("(7)").release()},       // parenthesized: a node
                             {4, parse_expr("a0 + 1").release()}});   // an operation: a node
  y->share_layout();
  const size_t bytes = y->own_bytes();
  const uint64_t gen = y->generation();
  y->pack_numbers();
  EXPECT_NE(y->generation(), gen);
  EXPECT_EQ(y->own_bytes(), bytes);  // the same slots, without their nodes
  for (int i : {1, 2, 64, 65}) EXPECT_TRUE(y->packed_at(i)) << i;
  for (int i : {0, 3, 4, 63, 66, 67, 68, 69}) EXPECT_FALSE(y->packed_at(i)) << i;
  EXPECT_EQ(int_of(*y, "a1"), -5);
  EXPECT_EQ(int_of(*y, "a2"), 1764000000);
  EXPECT_EQ(int_of(*y, "a64"), 4611686018427387903);
  EXPECT_EQ(int_of(*y, "a65"), -4611686018427387904);
  EXPECT_EQ(int_of(*y, "a66"), 4611686018427387904);
  EXPECT_EQ(as_literal(y->lookup("a67"))->value.as_real(), 2.5);
  EXPECT_EQ(as_literal(y->lookup("a68"))->value.as_string(), "text");
  EXPECT_EQ(paren_count(y->lookup("a69")), 1);
  EXPECT_EQ(y->lookup("a4")->kind, ExprKind::kOp);
  EXPECT_EQ(int_of(*y, "a3"), 3);  // the base's
  // Unpacked by the lookups above: an unpacked node is a literal like any other (its hash too).
  EXPECT_FALSE(y->packed_at(1));
  Expr* fresh = new LiteralExpr(Value::integer(-5));
  expr_rehash_tree(fresh);
  EXPECT_EQ(y->lookup("a1")->hash, fresh->hash);
  EXPECT_TRUE(expr_equal(y->lookup("a1"), fresh));
  expr_unref(fresh);
  int64_t v = 0;
  EXPECT_TRUE(y->evaluate_int("a2", v));
  EXPECT_EQ(v, 1764000000);
  for (Expr* e : common) expr_unref(e);
}

TEST(AdPackedNumbers, ALookupResultStaysValidUntilTheAdChanges) {
  std::vector<Expr*> common = common_values(20);
  AdPtr first = ad_over(common, {});
  first->share_layout();
  AdPtr y = ad_over(common, {4, 5});
  y->share_layout();
  y->pack_numbers();
  ASSERT_TRUE(y->packed_at(4));
  const uint64_t gen = y->generation();
  const Expr* a = y->lookup("a4");
  // Lookups do not change the ad: the same node again, the same generation.
  EXPECT_EQ(y->lookup("a4"), a);
  EXPECT_EQ(y->find_entry(intern_name("a4").id).expr, a);
  EXPECT_EQ(y->entries()[4].expr, a);
  EXPECT_EQ(y->generation(), gen);
  EXPECT_TRUE(y->packed_at(5));  // the others stay packed
  // Packing again (the store does after each update) makes the generation change.
  y->pack_numbers();
  EXPECT_TRUE(y->packed_at(4));
  EXPECT_NE(y->generation(), gen);
  const uint64_t gen2 = y->generation();
  y->pack_numbers();  // nothing to pack: nothing changes
  EXPECT_EQ(y->generation(), gen2);
  // A node someone else holds is not packed away under them.
  Expr* held = const_cast<Expr*>(y->lookup("a5"));
  expr_ref(held);
  y->pack_numbers();
  EXPECT_FALSE(y->packed_at(5));
  EXPECT_EQ(y->lookup("a5"), held);
  expr_unref(held);
  EXPECT_EQ(int_of(*y, "a5"), 1005);
  for (Expr* e : common) expr_unref(e);
}

TEST(AdPackedNumbers, ChangesCopiesAndRemovalsKeepTheValues) {
  std::vector<Expr*> common = common_values(20);
  AdPtr first = ad_over(common, {});
  first->share_layout();
  AdPtr y = ad_over(common, {2, 3, 7});
  y->share_layout();
  y->pack_numbers();
  AdPtr c(y->copy());  // holds the same packed values
  EXPECT_TRUE(c->packed_at(3));
  y->insert_value("a3", Value::integer(33));  // a packed value replaced
  expr_ref(common[7]);
  y->insert_plain(intern_name("a7"), common[7]);  // a packed value back to the base's
  EXPECT_EQ(int_of(*y, "a3"), 33);
  EXPECT_EQ(int_of(*y, "a7"), 7);
  EXPECT_EQ(int_of(*c, "a3"), 1003);
  EXPECT_EQ(int_of(*c, "a7"), 1007);
  EXPECT_EQ(int_of(*first, "a3"), 3);
  // A removal and a new name give the ad its full values back (packed ones made nodes).
  EXPECT_TRUE(c->remove("a0"));
  c->insert_value("extra", Value::integer(1));
  EXPECT_EQ(int_of(*c, "a2"), 1002);
  EXPECT_EQ(int_of(*c, "a3"), 1003);
  EXPECT_EQ(int_of(*c, "extra"), 1);
  EXPECT_EQ(c->lookup("a0"), nullptr);
  y->pack_numbers();
  EXPECT_TRUE(y->packed_at(2));
  EXPECT_EQ(int_of(*y, "a2"), 1002);
  c = AdPtr();  // freed with packed and unpacked values alike (ASan: no leak, no double free)
  y->clear();
  EXPECT_EQ(y->size(), 0u);
  EXPECT_EQ(int_of(*first, "a2"), 2);
  for (Expr* e : common) expr_unref(e);
}

TEST(AdPackedNumbers, AnAdOutsideAStoreIsNeverPacked) {
  AdPtr x = numbered_ad(20, 100);
  x->pack_numbers();  // not sharing its layout: nothing to pack
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(x->packed_at(i)) << i;
  EXPECT_EQ(int_of(*x, "a7"), 107);
}

TEST(ExprShare, TheTableStillFindsItsTreesAfterShrinking) {
  // Many unique shared literals, then nearly all freed: the table shrinks and must still find
  // the survivors.
  std::vector<Expr*> keep, drop;
  for (int i = 0; i < 20000; ++i) {
    Expr* e = expr_share(new LiteralExpr(Value::integer(7000000 + i)));
    (i % 1000 == 0 ? keep : drop).push_back(e);
  }
  const size_t peak = expr_shared_count();
  for (Expr* e : drop) expr_unref(e);
  EXPECT_EQ(expr_shared_count(), peak - drop.size());
  for (size_t k = 0; k < keep.size(); ++k) {
    Expr* again = expr_share(new LiteralExpr(Value::integer(7000000 + 1000 * int64_t(k))));
    EXPECT_EQ(again, keep[k]) << k;
    expr_unref(again);
  }
  for (Expr* e : keep) expr_unref(e);
}

}  // namespace
}  // namespace kite::classad
