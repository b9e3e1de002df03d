// The evaluator: evaluates an expression tree in a scope with HTCondor's
// three-valued semantics. Built-in functions receive the EvalContext so they
// can evaluate their own arguments (lazily where the language requires).
// HTCONDOR: classad-mechanism "Evaluation Semantics", "Attribute references".
#pragma once

#include <cstdint>

#include "policy/classad/classad.h"
#include "policy/classad/eval_env.h"
#include "policy/classad/expr.h"
#include "policy/classad/value.h"

namespace kite::classad {

class EvalContext {
 public:
  // `scope` is MY (may be null); in a match its partner is TARGET. `env`
  // gives the time and randomness (null: the real clock and the process's
  // random stream); it must outlive the context.
  explicit EvalContext(const ClassAd* scope, const EvalEnv* env = nullptr)
      : scope_(scope), env_(env) {
    char probe;
    stack_base_ = reinterpret_cast<uintptr_t>(&probe);
  }

  // Evaluates `e` in the current scope into `out`.
  void eval(const Expr* e, Value& out);
  Value eval(const Expr* e) {
    Value v;
    eval(e, v);
    return v;
  }

  // The ad unqualified names resolve in first (HTCondor's curAd).
  const ClassAd* scope() const { return scope_; }
  // Evaluates `e` with `scope` as the current ad (evalInEachContext).
  void eval_in(const ClassAd* scope, const Expr* e, Value& out);

  // Seconds since the epoch for time() and CurrentTime, from the environment.
  int64_t now() const {
    return env_ && env_->now_fn ? env_->now_fn(env_->clock) : real_clock_now();
  }
  // Random bits for random(), from the environment's stream.
  uint64_t random_bits() const {
    return env_ && env_->random ? env_->random->next() : process_random().next();
  }
  const EvalEnv* env() const { return env_; }

  // Resolves an attribute reference without evaluating it: the bound
  // expression and the ad it lives in (for unparse() and friends).
  const Expr* resolve(const AttrExpr* ref, const ClassAd** where);

 private:
  friend struct Evaluator;
  const ClassAd* scope_;
  const EvalEnv* env_;
  // Where this evaluation's stack starts: attribute references and function
  // calls give up with ERROR past a fixed budget instead of overflowing.
  uintptr_t stack_base_;
  bool stack_exhausted() const {
    char probe;
    return stack_base_ - reinterpret_cast<uintptr_t>(&probe) > kStackBudget;
  }
  static constexpr uintptr_t kStackBudget = 2u << 20;
  // Attributes being evaluated right now: a reference back to one of them is
  // a cycle and yields UNDEFINED, as HTCondor does.
  struct Frame {
    const ClassAd* ad;
    const Expr* expr;
  };
  // The last list an attribute evaluated to and the ad that attribute is
  // in: a subscript evaluates the chosen element there, as HTCondor
  // evaluates a list element in the scope of the ad holding the list.
  const ListObj* list_obj_ = nullptr;
  const ClassAd* list_scope_ = nullptr;
  static constexpr int kMaxFrames = 200;
  Frame stack_[kMaxFrames];
  int stack_size_ = 0;
};

// Evaluates a standalone expression with no ad in scope.
Value evaluate(const Expr* e, const EvalEnv* env = nullptr);

// Truth value the way a policy reads an expression: boolean true, or a
// non-zero number (integer or real). Anything else (undefined, error,
// strings, ...) is not true.
bool value_is_true(const Value& v);

}  // namespace kite::classad
