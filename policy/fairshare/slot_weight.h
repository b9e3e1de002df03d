// A slot's weight in fair-share arithmetic: its SlotWeight (the startd's SLOT_WEIGHT, Cpus by
// default) when NEGOTIATOR_USE_SLOT_WEIGHTS is true (the default), else 1 per slot.
#pragma once

#include "policy/classad/classad.h"

namespace kite::fairshare {

/// SlotWeight evaluated in the slot ad; when it is missing or not a number >= 0, Cpus; else 1.
/// A partitionable slot with nothing left weighs 0. With `use_slot_weights` false, always 1.
double slot_weight(const classad::ClassAd& slot, bool use_slot_weights = true);

}  // namespace kite::fairshare
