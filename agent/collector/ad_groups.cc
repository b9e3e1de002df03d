// Counted query replies (see ad_groups.h).
#include "agent/collector/ad_groups.h"

#include <algorithm>

#include "agent/collector/ad_store.h"
#include "agent/core/ad_rows.h"
#include "policy/classad/json.h"

namespace kite::collector {

AdGroups::AdGroups(std::vector<std::string> attrs) : attrs_(std::move(attrs)) {}

void AdGroups::add(const classad::ClassAd& ad) {
  // The key is the projected values as a row (agent/core/ad_rows.h): ads with equal rows have
  // equal projections. An expression among them makes the projection the whole ad (project()),
  // so the whole ad is the key.
  key_.clear();
  if (ids_.size() != attrs_.size() || std::find(ids_.begin(), ids_.end(), 0u) != ids_.end())
    core::refresh_row_ids(attrs_, &ids_);
  if (!core::append_ad_row(&key_, ad, ids_)) {
    key_ = "ad:";
    classad::classad_append_json(key_, ad, false);
  }
  auto found = index_.try_emplace(key_, texts_.size());
  if (!found.second) {
    ++counts_[found.first->second];
    return;
  }
  texts_.push_back(classad::classad_to_json(*project(ad, attrs_), false));
  counts_.push_back(1);
  bytes_ += texts_.back().size() + key_.size();
}

void AdGroups::clear() {
  index_.clear();
  texts_.clear();
  counts_.clear();
  bytes_ = 0;
}

}  // namespace kite::collector
