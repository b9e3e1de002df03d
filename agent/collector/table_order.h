// The store's ads in the order `kite status` tables list them (Machine, then Name, numbers by
// value), kept in step with adds, removals and Machine changes so a table query walks them in
// that order without sorting 10,000 ads per query or after each change.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace kite::collector {

struct StoredAd;

class TableOrder {
 public:
  using Entry = std::pair<const std::string, StoredAd>;
  // Lower-case Machine as indexed (none first), then the key (lower-case "type\nName"), digit runs
  // compared by value, ties by plain bytes: a strict total order.
  static bool less(const Entry* a, const Entry* b);
  // The same order for an ad known by its Machine (null: none) and key, against `b`.
  static int compare(const std::string* machine, const std::string& key, const Entry* b);
  // `e` was just stored, or its Machine changed (after remove(e)).
  void add(const Entry* e);
  // `e` is about to be erased, or its Machine changed: only its address is used.
  void remove(const Entry* e);
  // The ads in order (changes since the last call merged in: the removed dropped by address, the
  // added sorted and merged, O(n + k log k)); built from `all` on first use, and kept up to date
  // only from then on (a CM no table was asked of keeps no order).
  const std::vector<const Entry*>& list(const std::map<std::string, StoredAd>& all);
  // Changes whenever list() changed the order.
  uint64_t epoch() const { return epoch_; }
  size_t bytes() const;

 private:
  void settle();
  bool active_ = false;
  std::vector<const Entry*> order_;
  // Changes not yet merged. Removed entries are only compared by address (their memory may be
  // gone; an address may come back as a new ad, which is then in pending_).
  std::unordered_set<const Entry*> pending_, removed_;
  uint64_t epoch_ = 1;
};

}  // namespace kite::collector
