// Counted query replies (see ad_groups.h).
#include "agent/collector/ad_groups.h"

#include "agent/collector/ad_store.h"
#include "policy/classad/json.h"
#include "policy/classad/unparse.h"

namespace kite::collector {

void AdGroups::add(const classad::ClassAd& ad) {
  // The key is the projected values, each as its length and text: ads with equal keys have
  // equal projections. An expression among them makes the projection the whole ad (project()),
  // so the whole ad is the key.
  key_.clear();
  for (const std::string& a : attrs_) {
    const classad::Expr* e = ad.lookup(a);
    if (!e) {
      key_ += "-;";
      continue;
    }
    if (e->kind != classad::ExprKind::kLiteral) {
      key_ = "ad:";
      classad::classad_append_json(key_, ad, false);
      break;
    }
    scratch_.clear();
    classad::unparse_expr(scratch_, e);
    key_ += std::to_string(scratch_.size());
    key_ += ':';
    key_ += scratch_;
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
