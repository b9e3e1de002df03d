// A job's ad cut down to the attributes an output needs (condor_q's projection), so `kite q`
// moves only those over the wire and the client merges no cluster ad into every job.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/negotiator/autocluster.h"

namespace kite::queue {

/// The interned ids of the attributes `exprs` refer to (attribute names, or -af expressions),
/// sorted. False with `err` for an expression that does not parse; *opaque when one reads
/// attributes in ways that cannot be listed (eval() of a string): then only whole ads do.
bool projection_ids(const std::vector<std::string>& exprs, std::vector<uint32_t>* ids, bool* opaque,
                    std::string* err);

/// The job `proc` (its own attributes; `cluster` holds the shared ones) with only the
/// attributes of `ids` and those their expressions refer to, followed through the job's own
/// attributes, so every projected expression evaluates as it does in the whole ad. A job
/// whose projected expressions read attributes in ways that cannot be listed (eval() of a
/// string) comes whole. `memo` must not outlive the trees it has seen.
classad::AdPtr project_job(const classad::ClassAd& proc, const classad::ClassAd& cluster,
                           const std::vector<uint32_t>& ids, negotiator::RefMemo& memo);

}  // namespace kite::queue
