// Autoclusters: a submitter's jobs that agree on every significant attribute are matched as one
// group (one candidate list per group per cycle). The significant attributes are
//  - the job attributes the slots' Requirements and Rank, and the negotiator's rank chain and
//    preemption expressions (evaluated with the slot as MY), refer to: TARGET.x, and unqualified
//    names the slot ad does not define, following the slot's own attributes they use (START);
//  - the job's Requirements and Rank and the job attributes they refer to (MY.x, own names);
//  - RequestCpus, RequestMemory, RequestDisk and Request<name> for every custom resource a slot
//    lists in MachineResources (what a partitionable slot subtracts);
//  - ConcurrencyLimits (the limits issue counts matches by it).
// That is what can change whether or where a job matches, so two jobs that agree on all of it
// match the same slots in the same order. HTCONDOR: central-manager "Negotiation"
// (SIGNIFICANT_ATTRIBUTES, autoclusters).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"

namespace kite::negotiator {

class JobMemo;  // job_memo.h

/// Attribute names an expression tree refers to, by how it names them.
struct TreeRefs {
  std::vector<uint32_t> target;  // TARGET.x
  std::vector<uint32_t> own;     // MY.x
  std::vector<uint32_t> plain;   // x (own ad first, then the match partner)
  // Reads its partner in ways a list of names cannot tell: the whole TARGET ad, eval() of a
  // string, random().
  bool opaque = false;
  // Its value may change while neither ad does: it reads the clock or chance (time(),
  // CurrentTime, random(), ...), a special name (MY, PARENT, ...) or holds a nested ad.
  bool unstable = false;
};

/// TreeRefs per distinct tree (trees are shared between ads, so each is walked once).
class RefMemo {
 public:
  const TreeRefs& refs(const classad::Expr* root);

 private:
  std::unordered_map<const classad::Expr*, TreeRefs> memo_;
};

/// The ids of `partner` attributes that `root`, evaluated with `my` as MY, refers to: TARGET.x,
/// and unqualified names `my` does not define, following `my`'s own attributes it uses. Sets
/// *opaque when the expression may read the partner in other ways.
void partner_refs(const classad::ClassAd& my, const classad::Expr* root, RefMemo& memo,
                  std::vector<uint32_t>& out, bool* opaque);

/// The job-side significant attribute ids one slot imposes (unsorted, may repeat): the
/// references of its Requirements and Rank and of `extra` (slot as MY), and the Request*
/// attributes of its MachineResources (skipped when that list's tree is in *seen_resources,
/// which gets it; null: always).
void slot_attrs(const classad::ClassAd& slot, const std::vector<const classad::Expr*>& extra,
                RefMemo& memo, std::vector<uint32_t>& out,
                std::vector<const classad::Expr*>* seen_resources = nullptr);

/// The job-side significant attribute ids the slots impose (sorted, unique): references of the
/// slots' `roots` (Requirements, Rank, ...) and of `extra` (config expressions, slot as MY), plus
/// the Request* attributes of the slots' resources.
std::vector<uint32_t> slot_side_attrs(const std::vector<const classad::ClassAd*>& slots,
                                      const std::vector<const classad::Expr*>& extra,
                                      RefMemo& memo);

/// Groups jobs by their significant attributes.
class AutoclusterBuilder {
 public:
  /// `jobs` (optional) keeps the keys of unchanged job ads from cycle to cycle; its
  /// begin_cycle() was given `slot_side`.
  AutoclusterBuilder(std::vector<uint32_t> slot_side, RefMemo& memo, JobMemo* jobs = nullptr)
      : slot_side_(std::move(slot_side)), memo_(memo), jobs_(jobs) {}
  /// The autocluster of `job` (dense ids from 0, in order of first appearance). Jobs are only
  /// grouped within one `group` (the submitter).
  uint32_t cluster_of(uint32_t group, const classad::ClassAd& job);
  uint32_t count() const { return static_cast<uint32_t>(groups_.size()); }

 private:
  using Key = std::vector<std::pair<uint32_t, const classad::Expr*>>;
  void make_key(const classad::ClassAd& job, Key& key);
  void job_refs(const classad::ClassAd& job, const classad::Expr* root, Key& key, int depth);
  bool same(const Key& a, const Key& b) const;
  std::vector<uint32_t> slot_side_;
  RefMemo& memo_;
  JobMemo* jobs_;
  std::vector<Key> keys_;
  std::vector<uint32_t> groups_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_hash_;
  std::unordered_map<uint64_t, uint32_t> by_key_id_;  // (group, JobMemo key id) -> cluster
  Key scratch_;
};

}  // namespace kite::negotiator
