// Remembers what one job's Requirements said about slots: the answer depends only on the slot
// attributes the expression names (TARGET.x and names the job does not define), so slots holding
// the same literal values for all of them (the same shared trees) get the same answer, and a
// cycle evaluates the job's Requirements once per distinct set of values instead of once per
// slot. Expressions that may read the slot in other ways (the whole TARGET, eval(), random())
// and slots whose named attributes are not literals are always evaluated.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/negotiator/autocluster.h"

namespace kite::negotiator {

class RequirementsMemo {
 public:
  /// Starts over for `job`.
  void reset(const classad::ClassAd& job, RefMemo& memo);
  /// The remembered answer for `slot`: 1 accepts, 0 refuses, -1 unknown (then put() the answer).
  int get(const classad::ClassAd& slot);
  /// The answer for the slot of the last get() that returned -1.
  void put(bool accepts);

 private:
  bool usable_ = false;
  bool key_ok_ = false;
  uint64_t key_hash_ = 0;
  std::vector<uint32_t> ids_;
  std::vector<const classad::Expr*> key_;
  std::vector<std::vector<const classad::Expr*>> keys_;
  std::vector<uint8_t> answers_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> buckets_;
};

}  // namespace kite::negotiator
