// Partitionable slot preemption: a claim the negotiator sends for a partitionable slot by user
// priority when the slot lacks the resources; its dynamic slots are preempted until the
// resources suffice, and the new claim's dynamic slot is carved once they are gone.
// HTCONDOR: ep-configuration "Preemption of Partionable Slots".
#include "policy/startd/engine.h"
#include "policy/startd/requests.h"

#include <algorithm>
#include <cstdio>

namespace kite::startd {

// "The resources of each dynamic slot are added to those of the partitionable slot, one dynamic
// slot at a time. Once this partial sum of resources is sufficient ..."; "it sorts the slots by
// their CurrentRank attribute, such that slots with lower values are considered first. The
// negotiator only examines the cpu, memory and disk resources"; "Dynamic slots that have
// retirement time remaining are not considered eligible for preemption"; and by priority the
// slot's RANK for the new job may not be worse than for the one it replaces. True when the
// preemption is under way (victims chosen and being evicted).
bool Engine::pslot_preempt(SlotImpl& p, ClassAd* req, std::string* why) {
  if (p.pslot_pending) {
    *why = "another preempting claim is pending";
    return false;
  }
  double rank = rank_for(p, req);
  std::vector<SlotImpl*> cand;
  for (auto& d : sd.slots_) {
    SlotImpl& x = *d;
    if (x.dead || x.parent != &p || x.state != State::kClaimed || !x.has_claim) continue;
    if (x.has_preempting || x.pslot_victim || x.claim.rank > rank) continue;
    if (x.has_job && x.retire == Retire::kNone) {
      int64_t left = retirement_remaining(x);
      if (left == kNever || left > 0) continue;
    }
    cand.push_back(&x);
  }
  std::stable_sort(cand.begin(), cand.end(), [](const SlotImpl* a, const SlotImpl* b) {
    return a->claim.rank < b->claim.rank;
  });
  // The raw requests (at least 1 of each), checked as every request is.
  RequestAmounts want;
  if (!requests_read(*req, nullptr, sd.layout_, &want, why)) return false;
  int64_t need[kStdResourceCount], have[kStdResourceCount];
  for (size_t i = 0; i < kStdResourceCount; ++i) {
    need[i] = want.std[i] < 1 ? 1 : want.std[i];
    have[i] = kStdResources[i].amount(p.res);
  }
  std::vector<SlotImpl*> victims;
  auto enough = [&] {
    for (size_t i = 0; i < kStdResourceCount; ++i) {
      if (have[i] < need[i]) return false;
    }
    return true;
  };
  for (SlotImpl* x : cand) {
    if (enough()) break;
    victims.push_back(x);
    for (size_t i = 0; i < kStdResourceCount; ++i) have[i] += kStdResources[i].amount(x->res);
  }
  if (!enough()) {
    *why = "not enough resources even preempting every eligible dynamic slot";
    return false;
  }
  p.pslot_pending = true;
  p.pslot_claim_ad = AdPtr(req->copy());
  std::string names;
  for (SlotImpl* x : victims) names += (names.empty() ? "" : " ") + x->name;
  act(p, ActionKind::kNotifyClaimant,
      "preempting dynamic slots for a claim of better user priority: " + names);
  for (SlotImpl* x : victims) {
    x->pslot_victim = true;
    if (x->activity == Activity::kIdle) {
      x->end_requested = true;
      x->end_cause = retire_text(Retire::kPriority);
    } else if (x->retire == Retire::kNone) {
      x->retire = Retire::kPriority;
    }
  }
  for (SlotImpl* x : victims) settle(*x);
  return true;
}

// Once every dynamic slot preempted for it is gone, the waiting claim gets its dynamic slot.
void Engine::pslot_claims() {
  for (size_t i = 0; i < sd.slots_.size(); ++i) {
    SlotImpl& p = *sd.slots_[i];
    if (p.dead || !p.pslot_pending) continue;
    bool waiting = false;
    for (auto& d : sd.slots_) waiting |= !d->dead && d->parent == &p && d->pslot_victim;
    if (waiting) continue;
    p.pslot_pending = false;
    AdPtr ad = std::move(p.pslot_claim_ad);
    if (sd.draining_ || sd.shutting_down_) {
      refuse(p, sd.draining_ ? "preempting claim dropped: draining"
                             : "preempting claim dropped: shutting down");
      continue;
    }
    std::string why;
    SlotImpl* d = carve(p, ad.get(), &why);
    if (!d) {
      refuse(p, "preempting claim dropped: " + why);
      continue;
    }
    d->pending_claim = new_claim(*d, ad.get());
    d->pending_claim.by_priority = true;
    d->claim_pending = true;
    settle(*d);
  }
}

}  // namespace kite::startd
