// condor_status -compact's folding of static slots: consecutive static slots of one machine and
// slot type become one row (Slots counted, free cores and memory of idle slots summed, the
// largest slot's memory, job starts summed, differing state letters shown as '*'), for each
// column the compact table has.
#pragma once
#include <vector>

#include "agent/cli/status_columns.h"
#include "policy/classad/classad.h"

namespace kite::cli {

// Where a compact table (-compact, and with -server, -state or -claimed) has the columns the
// folding touches; -1: the table has no such column. Machine is column 0, Platform column 1.
struct CompactLayout {
  int slots = 2;
  int free_cpus = -1;
  int free_mem = -1;
  int activity = -1;
  int job_starts = -1;
  int max_slot = -1;
};

// `table` holds one row per ad of `ads` (same order, sorted by machine and slot type); rows of
// static slots are cooked and folded in place, folded rows removed.
void fold_compact_rows(const std::vector<const classad::ClassAd*>& ads, const CompactLayout& at,
                       Table* table);

}  // namespace kite::cli
