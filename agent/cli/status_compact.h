// condor_status -compact's folding of static slots: consecutive static slots of one machine and
// slot type become one row (Slots counted, free cores and memory of idle slots summed, the
// largest slot's memory, job starts summed, differing state letters shown as '*').
#pragma once
#include <vector>

#include "agent/cli/status_columns.h"
#include "policy/classad/classad.h"

namespace kite::cli {

// Column positions of the -compact table.
enum CompactColumn {
  kCompactMachine = 0,
  kCompactSlots = 2,
  kCompactFreeCpus = 7,
  kCompactFreeMem = 8,
  kCompactActivity = 10,
  kCompactJobStarts = 11,
  kCompactMaxSlot = 12,
};

// `table` holds one row per ad of `ads` (same order, sorted by machine and slot type); rows of
// static slots are cooked and folded in place, folded rows removed.
void fold_compact_rows(const std::vector<const classad::ClassAd*>& ads, Table* table);

}  // namespace kite::cli
