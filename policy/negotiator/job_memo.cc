// Job answers kept across negotiation cycles (see job_memo.h).
#include "policy/negotiator/job_memo.h"

#include "policy/classad/expr_share.h"
#include "policy/classad/hash.h"

namespace kite::negotiator {

// Slots of the table: a few times the jobs a busy cycle offers, in a few MiB.
constexpr size_t kSlotBits = 15;
// Distinct keys kept before starting over (a pool has few autoclusters).
constexpr size_t kMaxKeys = 4096;

JobMemo::~JobMemo() {
  forget_keys();
}

void JobMemo::forget_keys() {
  for (Key& k : keys_)
    for (auto& kv : k) classad::expr_unref(const_cast<classad::Expr*>(kv.second));
  keys_.clear();
  by_hash_.clear();
  for (Entry& e : entries_) e.key = kNoKey;
}

void JobMemo::begin_cycle(const std::vector<uint32_t>& slot_side) {
  if (slot_side == side_ && keys_.size() <= kMaxKeys) return;
  side_ = slot_side;
  forget_keys();
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
  e.key = kNoKey;
  return e;
}

uint32_t JobMemo::key_id(const Key& key) {
  uint64_t h = 0;
  for (const auto& kv : key)
    h = classad::hash::mix(classad::hash::mix(h, kv.first), kv.second->hash);
  std::vector<uint32_t>& bucket = by_hash_[h];
  for (uint32_t id : bucket) {
    const Key& have = keys_[id];
    if (have.size() != key.size()) continue;
    bool same = true;
    for (size_t i = 0; i < key.size() && same; ++i) {
      same = have[i].first == key[i].first && (have[i].second == key[i].second ||
                                               classad::expr_equal(have[i].second, key[i].second));
    }
    if (same) return id;
  }
  for (const auto& kv : key) classad::expr_ref(const_cast<classad::Expr*>(kv.second));
  keys_.push_back(key);
  bucket.push_back(static_cast<uint32_t>(keys_.size() - 1));
  return static_cast<uint32_t>(keys_.size() - 1);
}

}  // namespace kite::negotiator
