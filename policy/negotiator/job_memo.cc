// Job answers kept across negotiation cycles (see job_memo.h).
#include "policy/negotiator/job_memo.h"

namespace kite::negotiator {

// Slots of the table: a few times the jobs a busy cycle offers, in a few MiB.
constexpr size_t kSlotBits = 15;

void JobMemo::begin_cycle(const std::vector<uint32_t>& slot_side) {
  if (slot_side == side_) return;
  side_ = slot_side;
  for (Entry& e : entries_) {
    e.has_key = false;
    e.key.clear();
  }
}

JobMemo::Entry& JobMemo::at(const classad::ClassAd& job) {
  if (entries_.empty()) entries_.resize(size_t{1} << kSlotBits);
  const uint64_t gen = job.generation();
  Entry& e = entries_[(gen * 0x9E3779B97F4A7C15ull) >> (64 - kSlotBits)];
  if (e.used && e.generation == gen) return e;
  // Empty, or another ad's: that one is worked out again when next asked about.
  e.used = true;
  e.generation = gen;
  e.has_order = false;
  e.has_key = false;
  e.key.clear();
  return e;
}

}  // namespace kite::negotiator
