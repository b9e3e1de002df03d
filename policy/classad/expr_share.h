// Sharing of equal expression trees between ads: thousands of machine ads
// carry the same START, Rank and literal values, so each distinct tree is
// kept once. Trees holding ad literals are never shared (their parent scope
// is the ad they sit in).
#pragma once

#include "policy/classad/expr.h"

namespace kite::classad {

// Takes over the caller's reference to `e` and returns a reference to a tree
// equal to it: an existing shared tree (then `e` is freed) or `e` itself,
// now registered for sharing.
Expr* expr_share(Expr* e);
// Structural equality (same spelling, same literal values bit for bit).
bool expr_equal(const Expr* a, const Expr* b);
// Number of distinct shared trees alive (for tests and memory accounting).
size_t expr_shared_count();

}  // namespace kite::classad
