// Symmetric matching of two ads (Requirements both ways, then both Ranks).
#include "policy/classad/match.h"

#include "policy/classad/eval.h"

namespace kite::classad {
namespace {

const uint32_t& requirements_id() {
  static const uint32_t id = intern_name("Requirements").id;
  return id;
}
const uint32_t& rank_id() {
  static const uint32_t id = intern_name("Rank").id;
  return id;
}

Value eval_attr_id(const ClassAd& ad, uint32_t id, const EvalEnv* env) {
  const Expr* e = ad.lookup_id(id);
  if (!e) return Value::undefined();
  EvalContext ctx(&ad, env);
  return ctx.eval(e);
}

double as_rank(const Value& v) {
  double d = 0;
  if (v.is_integer() || v.is_real() || v.is_boolean()) v.to_number(d);
  return d;
}

}  // namespace

bool requirements_accept(const Value& v) {
  return (v.is_boolean() && v.as_boolean()) || (v.is_integer() && v.as_integer() != 0);
}

MatchPair::MatchPair(ClassAd& left, ClassAd& right, const EvalEnv* env)
    : left_(left),
      right_(right),
      env_(env),
      saved_left_partner_(left.partner()),
      saved_right_partner_(right.partner()) {
  left.set_partner(&right);
  right.set_partner(&left);
}

MatchPair::~MatchPair() {
  left_.set_partner(saved_left_partner_);
  right_.set_partner(saved_right_partner_);
}

Value MatchPair::evaluate_left(const Expr* e) const {
  EvalContext ctx(&left_, env_);
  return ctx.eval(e);
}

bool MatchPair::left_accepts() const {
  return requirements_accept(eval_attr_id(left_, requirements_id(), env_));
}
bool MatchPair::right_accepts() const {
  return requirements_accept(eval_attr_id(right_, requirements_id(), env_));
}
double MatchPair::left_rank() const {
  return as_rank(eval_attr_id(left_, rank_id(), env_));
}
double MatchPair::right_rank() const {
  return as_rank(eval_attr_id(right_, rank_id(), env_));
}

}  // namespace kite::classad
