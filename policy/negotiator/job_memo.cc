// Job answers kept across negotiation cycles (see job_memo.h).
#include "policy/negotiator/job_memo.h"

namespace kite::negotiator {

void JobMemo::begin_cycle(const std::vector<uint32_t>& slot_side) {
  if (slot_side != side_) {
    side_ = slot_side;
    for (auto* m : {&now_, &last_})
      for (auto& [gen, e] : *m) {
        e.has_key = false;
        e.key.clear();
      }
  }
  last_.swap(now_);
  now_.clear();
}

JobMemo::Entry& JobMemo::at(const classad::ClassAd& job) {
  const uint64_t gen = job.generation();
  auto it = now_.find(gen);
  if (it != now_.end()) return it->second;
  auto old = last_.find(gen);
  if (old == last_.end()) return now_[gen];
  Entry& e = now_.emplace(gen, std::move(old->second)).first->second;
  last_.erase(old);
  return e;
}

}  // namespace kite::negotiator
