// The fair-share plan of one cycle: each submitter's view for the pie spin (EUP, usage,
// demand, floor, ceiling, nice-user), the group quotas and the group rounds in negotiation
// order, and the concurrency limits in force. HTCONDOR: cm-configuration "User Priorities and
// Negotiation", "Hierarchical Group Quotas", "Concurrency Limits".
#pragma once

#include <string>
#include <vector>

#include "policy/fairshare/concurrency_limits.h"
#include "policy/fairshare/group_quotas.h"
#include "policy/fairshare/group_rounds.h"
#include "policy/fairshare/pie_spin.h"
#include "policy/negotiator/cycle_settings.h"
#include "policy/negotiator/negotiator.h"

namespace kite::negotiator {

struct FairPlan {
  bool use_slot_weights = true;  // NEGOTIATOR_USE_SLOT_WEIGHTS
  fairshare::GroupSettings groups;
  std::vector<fairshare::PieSubmitter> pies;  // parallel to CycleInput::submitters
  std::vector<std::string> group_of;          // each submitter's configured group or "<none>"
  std::vector<fairshare::GroupQuota> quotas;
  std::vector<fairshare::GroupRound> rounds;  // members index CycleInput::submitters
  fairshare::LimitTracker limits;             // with the units running jobs hold
};

/// Takes the settings (read once, cycle_settings.h) and plans the rounds. `demand[i]` is the slot
/// weight submitter i's idle jobs request; `pool_weight` the slot weight of every slot the cycle
/// may match or preempt.
void fair_plan(const CycleInput& in, const CycleSettings& settings,
               const std::vector<double>& demand, double pool_weight, FairPlan* out,
               std::vector<std::string>* warnings);

}  // namespace kite::negotiator
