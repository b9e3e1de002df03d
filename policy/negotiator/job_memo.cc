// Job answers kept across negotiation cycles (see job_memo.h).
#include "policy/negotiator/job_memo.h"

namespace kite::negotiator {

// Entries kept before those not asked about lately go.
constexpr size_t kMaxEntries = size_t{1} << 17;
constexpr uint64_t kKeepCycles = 8;  // "lately"

void JobMemo::begin_cycle(const std::vector<uint32_t>& slot_side) {
  ++cycle_;
  if (slot_side != side_) {
    side_ = slot_side;
    for (auto& [gen, e] : entries_) {
      e.has_key = false;
      e.key.clear();
    }
  }
  if (entries_.size() <= kMaxEntries) return;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.seen + kKeepCycles < cycle_) {
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  if (entries_.size() > kMaxEntries / 2) entries_.clear();  // (all recent: start over)
}

JobMemo::Entry& JobMemo::at(const classad::ClassAd& job) {
  Entry& e = entries_[job.generation()];
  e.seen = cycle_;
  return e;
}

}  // namespace kite::negotiator
