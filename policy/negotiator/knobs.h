// The negotiator's settings for one cycle, read once from the configuration: the rank chain
// expressions (parsed), the preemption switches and cluster skipping.
// HTCONDOR: central-manager "Negotiation"; defaults from HTCondor 25's param table.
#pragma once

#include <string>

#include "policy/classad/expr.h"
#include "policy/config/config.h"
#include "policy/startd/requests.h"

namespace kite::negotiator {

struct Knobs {
  classad::ExprPtr pre_job_rank;             // NEGOTIATOR_PRE_JOB_RANK (slot is MY); null: unset
  classad::ExprPtr post_job_rank;            // NEGOTIATOR_POST_JOB_RANK (slot is MY)
  classad::ExprPtr preemption_requirements;  // PREEMPTION_REQUIREMENTS (slot is MY)
  classad::ExprPtr preemption_rank;          // PREEMPTION_RANK (slot is MY)
  // NEGOTIATOR_SLOT_CONSTRAINT: the only slot ads the negotiator fetches (the pool it divides
  // is theirs); NEGOTIATOR_JOB_CONSTRAINT: the only jobs it considers. Null: unset.
  classad::ExprPtr slot_constraint;
  classad::ExprPtr job_constraint;
  bool consider_preemption = true;   // NEGOTIATOR_CONSIDER_PREEMPTION
  bool all_jobs_in_cluster = false;  // NEGOTIATE_ALL_JOBS_IN_CLUSTER: no cluster skipping
  // NEGOTIATOR_CONSIDER_EARLY_PREEMPTION: a running slot with retirement time remaining may be
  // matched (default False: "will not match jobs to a slot with retirement time remaining").
  bool consider_early_preemption = false;
  // ALLOW_PSLOT_PREEMPTION: a partitionable slot and its dynamic slots are one candidate; the
  // dynamic slots are preempted only as part of a match to the partitionable slot.
  bool allow_pslot_preemption = false;
  // PREEMPTION_REQUIREMENTS_STABLE and PREEMPTION_RANK_STABLE (both default True): false when
  // either says the *ResourcesInUse values may change within the cycle, so a job's potential
  // matches are evaluated afresh before each match. A cache of match results must respect it.
  bool preemption_stable = true;
  // MODIFY_REQUEST_EXPR_REQUEST{CPUS,MEMORY,DISK}: how a partitionable slot rounds what a job
  // takes (the job is MY, the slot TARGET), as the startd carves it.
  classad::ExprPtr modify_request[startd::kStdResourceCount];
};

/// Reads the knobs from `cfg` (null: HTCondor 25's defaults). An expression that does not parse
/// counts as unset and is named in *warning ("NEGOTIATOR_PRE_JOB_RANK: line 1, column 3: ..."),
/// as is a switch that is not a boolean (which keeps its default).
Knobs knobs_read(const config::Config* cfg, std::string* warning);

/// True when `ad` passes `constraint` evaluated in it alone (null: every ad passes), as the
/// collector applies a query's constraint.
bool passes(const classad::ClassAd& ad, const classad::ExprPtr& constraint);

}  // namespace kite::negotiator
