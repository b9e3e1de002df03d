// condor_q -better-analyze's text for jobs against slot ads: the job's Requirements (wrapped),
// its numbered steps, the attributes it uses on both sides, the conditions it reduces to with
// how many slots each matches, and the run analysis summary. HTCONDOR: as the observed
// condor_q.better-analyze.txt prints it.
#pragma once

#include <string>
#include <vector>

#include "policy/classad/classad.h"

namespace kite::queue {

/// The analysis of one job (`job`) against `slots`, as condor_q prints it after its title line.
std::string format_better_analyze(classad::ClassAd& job, const std::vector<classad::AdPtr>& slots);

}  // namespace kite::queue
