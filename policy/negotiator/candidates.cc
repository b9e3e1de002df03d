// Evaluating and ordering the potential matches of a job (see candidates.h).
#include "policy/negotiator/candidates.h"

#include <cfloat>

#include "policy/classad/eval.h"
#include "policy/negotiator/ephemeral.h"

namespace kite::negotiator {
namespace {

// A rank expression's value; an expression that is missing ranks 0 and one that does not give a
// number ranks below every number (HTCondor uses -FLT_MAX).
double rank_value(const classad::ClassAd& my, const classad::Expr* e, const classad::EvalEnv* env) {
  if (!e) return 0;
  classad::EvalContext ctx(&my, env);
  classad::Value v;
  ctx.eval(e, v);
  double d = 0;
  if ((v.is_number() || v.is_boolean()) && v.to_number(d)) return d;
  return -FLT_MAX;
}

}  // namespace

const char* reason_name(Reason r) {
  switch (r) {
    case Reason::kIdle: return "idle";
    case Reason::kRank: return "rank";
    case Reason::kPriority: return "priority";
  }
  return "idle";
}

bool candidate_before(const Candidate& a, const Candidate& b) {
  if (a.pre != b.pre) return a.pre > b.pre;
  if (a.job_rank != b.job_rank) return a.job_rank > b.job_rank;
  if (a.post != b.post) return a.post > b.post;
  if (a.reason != b.reason) return a.reason < b.reason;
  if (a.preempt_rank != b.preempt_rank) return a.preempt_rank > b.preempt_rank;
  return a.slot < b.slot;
}

bool preemption_reason(const Knobs& knobs, const classad::EvalEnv* env, const Asker& asker,
                       const SlotView& slot, double machine_rank, double remote_prio, Reason* out) {
  if (machine_rank > slot.current_rank) {
    *out = Reason::kRank;
    return true;
  }
  if (knobs.preemption_requirements && slot.remote_user != *asker.submitter &&
      asker.priority < remote_prio && machine_rank >= slot.current_rank &&
      classad::value_is_true(slot.ad->evaluate_expr(knobs.preemption_requirements.get(), env))) {
    *out = Reason::kPriority;
    return true;
  }
  return false;
}

double preemption_rank(const Knobs& knobs, const classad::EvalEnv* env,
                       const classad::ClassAd& slot) {
  return rank_value(slot, knobs.preemption_rank.get(), env);
}

double job_side_ranks(const Knobs& knobs, const classad::EvalEnv* env, const classad::ClassAd& slot,
                      const classad::MatchPair& pair, Candidate* c) {
  c->pre = rank_value(slot, knobs.pre_job_rank.get(), env);
  c->job_rank = pair.left_rank();
  c->post = rank_value(slot, knobs.post_job_rank.get(), env);
  return c->job_rank;
}

bool evaluate_candidate(const Knobs& knobs, const classad::EvalEnv* env, const Asker& asker,
                        const SlotView& slot, uint32_t index, double remote_prio,
                        RequirementsMemo* job_memo, Candidate* out) {
  if (slot.taken || slot.use == SlotUse::kSkip) return false;
  if (slot.use == SlotUse::kRunning) {
    if (!knobs.consider_preemption) return false;
    // HTCONDOR: ep-configuration "When pslot preemption is enabled, the negotiator will not
    // preempt dynamic slots directly"; ep-policy "By default the condor_negotiator will not
    // match jobs to a slot with retirement time remaining".
    if (slot.dynamic && knobs.allow_pslot_preemption) return false;
    if (slot.retirement_left > 0 && !knobs.consider_early_preemption) return false;
  }
  int job_accepts = job_memo ? job_memo->get(*slot.ad) : -1;
  if (job_accepts == 0) return false;
  Pairing pairing(*asker.job, *slot.ad, env);
  const classad::MatchPair& pair = pairing.match();
  if (job_accepts < 0) {
    bool accepts = pair.left_accepts();
    if (job_memo) job_memo->put(accepts);
    if (!accepts) return false;
  }
  if (!pair.right_accepts()) return false;
  Candidate c;
  c.slot = index;
  c.version = slot.version;
  if (slot.partitionable) {
    Take take;
    if (!take_fits(knobs, *asker.job, slot, &take)) return false;
  }
  if (slot.use == SlotUse::kRunning) {
    // The machine's RANK of this job against the one running.
    if (!preemption_reason(knobs, env, asker, slot, pair.right_rank(), remote_prio, &c.reason))
      return false;
    c.preempt_rank = preemption_rank(knobs, env, *slot.ad);
  }
  job_side_ranks(knobs, env, *slot.ad, pair, &c);
  *out = c;
  return true;
}

}  // namespace kite::negotiator
