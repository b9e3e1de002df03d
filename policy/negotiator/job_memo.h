// What the negotiator works out from a job ad alone, kept across cycles while the ad does not
// change (ClassAd::generation names one state of one ad): its place in the schedd's order and
// its autocluster key. A simulated pool or a CM offers the same idle jobs cycle after cycle.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/negotiator/job_order.h"

namespace kite::negotiator {

class JobMemo {
 public:
  /// An autocluster key: the job's significant attributes (id, its tree), sorted by id.
  using Key = std::vector<std::pair<uint32_t, const classad::Expr*>>;
  static constexpr uint32_t kNoKey = UINT32_MAX;
  struct Entry {
    bool used = false;
    bool has_order = false;
    uint32_t key = kNoKey;    // key_id() of its autocluster key, for begin_cycle()'s slot side
    uint64_t generation = 0;  // of the ad it is for
    JobKey order;  // job_key() (its cluster and proc are the IdleJob's, set by the caller)
  };

  JobMemo() = default;
  ~JobMemo();
  JobMemo(const JobMemo&) = delete;
  JobMemo& operator=(const JobMemo&) = delete;

  /// Starts a cycle whose autoclusters follow `slot_side`: keys made for another list go (and
  /// all of them when many were kept).
  void begin_cycle(const std::vector<uint32_t>& slot_side);
  /// The entry of the ad's current state (empty when new), valid until the next call: a
  /// fixed table (memory stays bounded), where ads whose generations meet take turns.
  Entry& at(const classad::ClassAd& job);
  /// The same number for keys that are equal (same ids, trees equal), until begin_cycle()
  /// forgets them. The trees are held meanwhile.
  uint32_t key_id(const Key& key);

 private:
  void forget_keys();
  std::vector<Entry> entries_;  // by a hash of the generation
  std::vector<uint32_t> side_;
  std::vector<Key> keys_;                                        // by key_id()
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_hash_;  // key hash -> key ids
};

}  // namespace kite::negotiator
