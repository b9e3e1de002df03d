// The per-job memo of Requirements answers by slot values (see requirements_memo.h).
#include "policy/negotiator/requirements_memo.h"

#include "policy/classad/hash.h"

namespace kite::negotiator {

void RequirementsMemo::reset(const classad::ClassAd& job, RefMemo& memo) {
  static const uint32_t kRequirements = classad::intern_name("Requirements").id;
  ids_.clear();
  keys_.clear();
  answers_.clear();
  buckets_.clear();
  bool opaque = false;
  partner_refs(job, job.lookup_id(kRequirements), memo, ids_, &opaque);
  usable_ = !opaque;
  key_ok_ = false;
}

int RequirementsMemo::get(const classad::ClassAd& slot) {
  key_ok_ = false;
  // A slot with an enclosing scope (the Remote* attributes of a running slot) has values this
  // key does not see.
  if (!usable_ || slot.parent()) return -1;
  key_.clear();
  uint64_t h = 0;
  for (uint32_t id : ids_) {
    const classad::Expr* e = slot.lookup_id(id);
    if (e && e->kind != classad::ExprKind::kLiteral) return -1;  // its value may vary
    key_.push_back(e);
    h = classad::hash::mix(h, reinterpret_cast<uintptr_t>(e));
  }
  auto it = buckets_.find(h);
  if (it != buckets_.end()) {
    for (uint32_t k : it->second) {
      if (keys_[k] == key_) return answers_[k];
    }
  }
  key_ok_ = true;
  key_hash_ = h;
  return -1;
}

void RequirementsMemo::put(bool accepts) {
  if (!key_ok_) return;
  key_ok_ = false;
  buckets_[key_hash_].push_back(static_cast<uint32_t>(keys_.size()));
  keys_.push_back(key_);
  answers_.push_back(accepts ? 1 : 0);
}

}  // namespace kite::negotiator
