// What the negotiator works out from a job ad alone, kept across cycles while the ad does not
// change (ClassAd::generation names one state of one ad): its place in the schedd's order and
// its autocluster key. A simulated pool or a CM offers the same idle jobs cycle after cycle.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/negotiator/job_order.h"

namespace kite::negotiator {

class JobMemo {
 public:
  /// An autocluster key: the job's significant attributes (id, its tree), sorted by id.
  using Key = std::vector<std::pair<uint32_t, const classad::Expr*>>;
  struct Entry {
    bool has_order = false;
    JobKey order;  // job_key() (its cluster and proc are the IdleJob's, set by the caller)
    bool has_key = false;
    Key key;  // for the slot-side attributes of begin_cycle()
    bool used = false;
    uint64_t generation = 0;  // of the ad it is for
  };

  /// Starts a cycle whose autoclusters follow `slot_side`; keys made for another list go.
  void begin_cycle(const std::vector<uint32_t>& slot_side);
  /// The entry of the ad's current state (empty when new), valid until the next call: a
  /// fixed table (memory stays bounded), where ads whose generations meet take turns.
  Entry& at(const classad::ClassAd& job);

 private:
  std::vector<Entry> entries_;  // by a hash of the generation
  std::vector<uint32_t> side_;
};

}  // namespace kite::negotiator
