// The equal share per round (see share.h).
#include "policy/negotiator/share.h"

namespace kite::negotiator {

std::vector<int64_t> round_shares(int64_t pie, size_t active) {
  if (active == 0) return {};
  int64_t each = pie / static_cast<int64_t>(active);
  return std::vector<int64_t>(active, each > 0 ? each : 1);
}

}  // namespace kite::negotiator
