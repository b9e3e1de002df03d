// Everything a negotiation cycle reads from the configuration (the knobs with their expressions
// parsed, NEGOTIATOR_USE_SLOT_WEIGHTS, groups, concurrency limits), read once so that many
// cycles on one configuration (`kite pool simulate`, a CM between reconfigs) do not parse the
// same settings again every cycle.
#pragma once

#include <string>
#include <vector>

#include "policy/fairshare/concurrency_limits.h"
#include "policy/fairshare/group_quotas.h"
#include "policy/negotiator/knobs.h"

namespace kite::negotiator {

struct CycleSettings {
  Knobs knobs;
  bool use_slot_weights = true;  // NEGOTIATOR_USE_SLOT_WEIGHTS
  fairshare::GroupSettings groups;
  fairshare::LimitTable limits;
  // Settings that did not read, in the order a cycle reports them (each part that does not read
  // keeps its defaults).
  std::vector<std::string> warnings;
};

}  // namespace kite::negotiator
