// Partitionable-slot preemption in the negotiator (see pslot_preemption.h).
#include "policy/negotiator/pslot_preemption.h"

#include <algorithm>

#include "policy/negotiator/ephemeral.h"

namespace kite::negotiator {

bool pslot_preemption(const Knobs& knobs, const classad::EvalEnv* env, const Asker& asker,
                      const std::vector<SlotView>& slots, uint32_t index, PslotPreemption* out,
                      Candidate* cand) {
  const SlotView& p = slots[index];
  if (!p.partitionable || p.taken || p.children.empty()) return false;
  struct Eligible {
    uint32_t slot;
    double rank;
    Reason reason;
  };
  std::vector<Eligible> eligible;
  for (uint32_t c : p.children) {
    const SlotView& d = slots[c];
    if (d.taken || d.use != SlotUse::kRunning) continue;
    // "Dynamic slots that have retirement time remaining are not considered eligible for
    // preemption, regardless of how NEGOTIATOR_CONSIDER_EARLY_PREEMPTION is set."
    if (d.retirement_left > 0) continue;
    Pairing pairing(*asker.job, *d.ad, env);
    Reason why;
    if (!preemption_reason(knobs, env, asker, d, pairing.match().right_rank(), d.remote_prio, &why))
      continue;
    eligible.push_back({c, d.current_rank, why});
  }
  if (eligible.empty()) return false;
  // "it sorts the slots by their CurrentRank attribute, such that slots with lower values are
  // considered first" (ties: in the order the startd lists them).
  std::stable_sort(eligible.begin(), eligible.end(),
                   [](const Eligible& a, const Eligible& b) { return a.rank < b.rank; });
  // The partitionable slot with the victims' resources added, in a private copy of its ad.
  SlotView sum;
  sum.use = p.use;
  sum.partitionable = true;
  for (size_t i = 0; i < startd::kStdResourceCount; ++i) sum.have[i] = p.have[i];
  sum.custom_ids = p.custom_ids;
  sum.custom_req = p.custom_req;
  sum.consumption = p.consumption;
  sum.custom_consumption = p.custom_consumption;
  sum.custom_have = p.custom_have;
  sum.copy = classad::AdPtr(p.ad->copy());
  sum.ad = sum.copy.get();
  out->victims.clear();
  Reason reason = Reason::kRank;
  for (const Eligible& e : eligible) {
    Take back;
    for (size_t i = 0; i < startd::kStdResourceCount; ++i) back.std[i] = -slots[e.slot].have[i];
    take_from(sum, back);
    out->victims.push_back(e.slot);
    if (e.reason == Reason::kPriority) reason = Reason::kPriority;
    Pairing pairing(*asker.job, *sum.ad, env);
    const classad::MatchPair& pair = pairing.match();
    if (!pair.left_accepts() || !pair.right_accepts()) continue;
    if (!take_fits(knobs, *asker.job, sum, &out->take)) continue;
    // "the ClassAd of the partitionable slot is used for evaluation" of the rank expressions.
    Pairing own(*asker.job, *p.ad, env);
    Candidate c;
    c.slot = index;
    c.version = p.version;
    c.reason = reason;
    job_side_ranks(knobs, env, *p.ad, own.match(), &c);
    c.preempt_rank = preemption_rank(knobs, env, *p.ad);
    *cand = c;
    return true;
  }
  return false;
}

}  // namespace kite::negotiator
