// Idle-slot match results remembered across negotiation cycles. Many cycles on one pool (the
// simulator, a CM whose free slots stay free because of quotas and limits) ask the same job
// groups about the same unchanged slots again and again; the answer (both Requirements, the rank
// chain) depends only on the slot ad's state (ClassAd::generation), on the job attributes the
// expressions reach (compared by value), and on the knobs. An answer is remembered only when
// evaluating it reads nothing else: no clock or random number (time(), CurrentTime, random()),
// no whole ad, no eval() of a string, no nested ad, no enclosing scope; so a remembered answer
// is exactly what evaluating again would give. The caller owns the cache and passes it to each
// cycle through CycleInput::match_cache; a cycle without one evaluates everything.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/negotiator/autocluster.h"
#include "policy/negotiator/job_memo.h"

namespace kite::negotiator {

struct CycleSettings;  // cycle_settings.h

/// One remembered answer: whether the pair matches and its rank keys.
struct CachedMatch {
  bool matches = false;
  double pre = 0, job_rank = 0, post = 0;
};

class MatchCache {
 public:
  MatchCache() = default;
  ~MatchCache();
  MatchCache(const MatchCache&) = delete;
  MatchCache& operator=(const MatchCache&) = delete;

  /// Starts a cycle on `settings` (another settings object forgets everything) with `slots`
  /// slot ads offered (bounds what is kept).
  void begin_cycle(const std::shared_ptr<const CycleSettings>& settings, size_t slots);
  /// Starts the answers for one job (the cycle's copy of an autocluster's first job).
  void begin_job(const classad::ClassAd& job);
  /// The remembered answer for `slot` and the job of begin_job(); null when there is none.
  const CachedMatch* find(const classad::ClassAd& slot);
  /// The job attributes `slot` makes significant (slot_attrs() with `extra`), kept while the
  /// slot ad does not change; `memo` is used when they are read again.
  const std::vector<uint32_t>& slot_attrs(const classad::ClassAd& slot,
                                          const std::vector<const classad::Expr*>& extra,
                                          RefMemo& memo);
  /// Remembers `answer` for `slot` and the job of begin_job() when the pair's evaluation reads
  /// only the two ads (see above). `roots` are the knob expressions evaluated with the slot as
  /// MY (NEGOTIATOR_PRE_JOB_RANK, NEGOTIATOR_POST_JOB_RANK).
  void remember(const classad::ClassAd& job, const classad::ClassAd& slot,
                const std::vector<const classad::Expr*>& roots, const CachedMatch& answer);
  /// The job ads' order keys and autocluster keys, kept alongside.
  JobMemo& jobs() { return jobs_; }

 private:
  // The job attributes (id, expression; null: absent) one kind of evaluation read.
  struct JobSide {
    std::vector<std::pair<uint32_t, classad::Expr*>> attrs;  // holds a reference to each
  };
  struct SlotAnswers {
    uint64_t generation = 0;
    std::vector<std::pair<uint32_t, CachedMatch>> by_side;  // (index into sides_, answer)
    bool has_attrs = false;
    std::vector<uint32_t> attrs;  // slot_attrs()
  };
  void clear();
  SlotAnswers& entry(const classad::ClassAd& slot);
  uint32_t side_index(const std::vector<std::pair<uint32_t, const classad::Expr*>>& attrs);
  bool side_fits(uint32_t side);
  void hold(const classad::Expr* tree);

  std::shared_ptr<const CycleSettings> settings_;
  std::vector<JobSide> sides_;
  std::vector<uint8_t> fits_;  // per side: 1 the job of begin_job() has those values, 0 not, 2 ?
  const classad::ClassAd* job_ = nullptr;
  std::unordered_map<const classad::ClassAd*, SlotAnswers> slots_;
  RefMemo refs_;  // keyed by trees the cache holds a reference to (held_): none is freed
  std::unordered_set<const classad::Expr*> held_;
  size_t max_slots_ = 0;
  JobMemo jobs_;
};

}  // namespace kite::negotiator
