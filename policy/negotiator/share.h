// How many matches each submitter may make in one round of the cycle. For now an equal share of
// what is left (the fair-share issue replaces this step with the pie spin over effective user
// priorities); what a round leaves over is offered again in the next round.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kite::negotiator {

/// Shares for `active` submitters (in negotiation order) of `pie` slot units: pie / active each,
/// at least 1, so every round can make progress.
std::vector<int64_t> round_shares(int64_t pie, size_t active);

}  // namespace kite::negotiator
