// Partitionable-slot preemption (ALLOW_PSLOT_PREEMPTION): a partitionable slot that cannot take
// a job as it is, looked at together with its dynamic slots; the dynamic slots the job may
// preempt are added to it one at a time, lowest CurrentRank first, until the job matches.
// HTCONDOR: ep-configuration "Preemption of Partionable Slots".
#pragma once

#include <cstdint>
#include <vector>

#include "policy/classad/eval_env.h"
#include "policy/negotiator/candidates.h"
#include "policy/negotiator/knobs.h"
#include "policy/negotiator/slots.h"

namespace kite::negotiator {

struct PslotPreemption {
  std::vector<uint32_t> victims;  // the dynamic slots to preempt (indexes), in the order added
  Take take;                      // what the job takes of the partitionable slot after that
};

/// For partitionable slot `slots[index]` (its `children` filled): the dynamic slots whose
/// resources, added to what the slot has left, let the job match it. A dynamic slot is eligible
/// when it runs a job that the asker may preempt by the usual rules (machine RANK, or
/// PREEMPTION_REQUIREMENTS and a better priority) and has no retirement time left (whatever
/// NEGOTIATOR_CONSIDER_EARLY_PREEMPTION says); only Cpus, Memory and Disk are added. The
/// candidate's ranks are evaluated in the partitionable slot's ad; its reason is kPriority when
/// any victim is preempted by priority, else kRank. False when no such set exists.
bool pslot_preemption(const Knobs& knobs, const classad::EvalEnv* env, const Asker& asker,
                      const std::vector<SlotView>& slots, uint32_t index, PslotPreemption* out,
                      Candidate* cand);

}  // namespace kite::negotiator
