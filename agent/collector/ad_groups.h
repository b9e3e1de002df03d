// Counted query replies: equal projections of matching ads are sent once with how many ads they
// stand for (`kite status -total` needs counts, not 10,000 copies of a few attribute values).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "policy/classad/classad.h"

namespace kite::collector {

class AdGroups {
 public:
  explicit AdGroups(std::vector<std::string> attrs);
  // Counts `ad` under its projection on the attributes (a new group: its JSON text is kept).
  void add(const classad::ClassAd& ad);
  // The groups so far: each projection's JSON text and its count, parallel.
  const std::vector<std::string>& texts() const { return texts_; }
  const std::vector<uint64_t>& counts() const { return counts_; }
  size_t bytes() const { return bytes_; }
  // Forgets the groups (after they were sent; later ads start new ones, which the counts add to).
  void clear();

 private:
  std::vector<std::string> attrs_;
  std::vector<uint32_t> ids_;                      // their interned ids (0: a name no ad had yet)
  std::unordered_map<std::string, size_t> index_;  // key -> position in texts_
  std::vector<std::string> texts_;
  std::vector<uint64_t> counts_;
  size_t bytes_ = 0;
  std::string key_;  // reused per ad
};

}  // namespace kite::collector
