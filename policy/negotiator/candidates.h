// One job against one slot: both Requirements, then why the slot could take it (idle, machine
// RANK prefers it, or user priority) and the keys the potential match list is sorted by:
// NEGOTIATOR_PRE_JOB_RANK, the job's Rank, NEGOTIATOR_POST_JOB_RANK (higher first), the reason
// (no preemption, then rank, then priority), PREEMPTION_RANK (higher first); ties go to the slot
// listed first, so a cycle is deterministic. HTCONDOR: central-manager "Negotiation", step 4.
#pragma once

#include <cstdint>
#include <string>

#include "policy/classad/classad.h"
#include "policy/classad/eval_env.h"
#include "policy/classad/match.h"
#include "policy/negotiator/knobs.h"
#include "policy/negotiator/requirements_memo.h"
#include "policy/negotiator/slots.h"

namespace kite::negotiator {

enum class Reason : uint8_t { kIdle = 0, kRank = 1, kPriority = 2 };
const char* reason_name(Reason r);

struct Candidate {
  double pre = 0, job_rank = 0, post = 0, preempt_rank = 0;
  uint32_t slot = 0;     // index into the cycle's slots
  uint32_t version = 0;  // the slot's version it was evaluated at
  Reason reason = Reason::kIdle;
};

/// True when `a` sorts before (is better than) `b`.
bool candidate_before(const Candidate& a, const Candidate& b);

/// Who asks: the job (the cycle's copy of its autocluster's first job) and its submitter.
struct Asker {
  classad::ClassAd* job;
  const std::string* submitter;
  double priority;  // effective user priority
};

/// Why the asker may preempt the job running on `slot`, whose machine RANK for the asker's job
/// is `machine_rank`: kRank (RANK prefers it) or kPriority (PREEMPTION_REQUIREMENTS, a better
/// effective priority than `remote_prio`, RANK not worse); false when it may not.
bool preemption_reason(const Knobs& knobs, const classad::EvalEnv* env, const Asker& asker,
                       const SlotView& slot, double machine_rank, double remote_prio, Reason* out);

/// PREEMPTION_RANK in `slot` (0 when unset).
double preemption_rank(const Knobs& knobs, const classad::EvalEnv* env,
                       const classad::ClassAd& slot);

/// Fills the candidate's NEGOTIATOR_PRE_JOB_RANK, job Rank and NEGOTIATOR_POST_JOB_RANK keys
/// (`pair`: the job left, `slot` right); returns the job Rank.
double job_side_ranks(const Knobs& knobs, const classad::EvalEnv* env, const classad::ClassAd& slot,
                      const classad::MatchPair& pair, Candidate* c);

/// Evaluates `slot` (index `index`) for the asker; false when it is not a potential match.
/// `remote_prio`: the effective priority of the slot's RemoteUser (running slots). `job_memo`
/// (may be null): the job's Requirements answers remembered by slot values.
bool evaluate_candidate(const Knobs& knobs, const classad::EvalEnv* env, const Asker& asker,
                        const SlotView& slot, uint32_t index, double remote_prio,
                        RequirementsMemo* job_memo, Candidate* out);

}  // namespace kite::negotiator
