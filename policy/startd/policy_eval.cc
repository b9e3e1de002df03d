// Evaluating a slot's policy expressions: locally (job attributes UNDEFINED) or against the
// claim's or job's ad as TARGET; START (or the draining START) and RANK for a request.
#include "policy/startd/engine.h"

#include "policy/classad/match.h"

namespace kite::startd {

ClassAd* Engine::target(SlotImpl& s) {
  if (s.has_job && s.job.ad) return s.job.ad.get();
  if (s.has_claim && s.claim.ad) return s.claim.ad.get();
  return nullptr;
}

Value Engine::eval_with(SlotImpl& s, const Expr* e, ClassAd* t) {
  if (!e) return Value::undefined();
  if (!t) return s.ad->evaluate_expr(e, &sd.eval_env_);
  classad::MatchPair mp(*s.ad, *t, &sd.eval_env_);
  return mp.evaluate_left(e);
}

const Expr* Engine::start_expr(SlotImpl& s) {
  if (sd.draining_)
    return sd.drain_start_expr_ ? sd.drain_start_expr_.get() : s.pol.draining_start.get();
  return s.pol.start.get();
}

bool Engine::start_for(SlotImpl& s, ClassAd* req) {
  return truthy(eval_with(s, start_expr(s), req));
}

double Engine::rank_for(SlotImpl& s, ClassAd* req) {
  double r = 0;
  if (!number(eval_with(s, s.pol.rank.get(), req), &r)) r = 0;
  return r;
}

}  // namespace kite::startd
