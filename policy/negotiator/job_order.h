// The order a submitter's idle jobs are offered in, as the schedd returns them: PreJobPrio1,
// PreJobPrio2, JobPrio, PostJobPrio1, PostJobPrio2 (higher first, unset counts 0), then QDate
// (older first), ClusterId, ProcId. HTCONDOR: job-classad-attributes PreJobPrio1..PostJobPrio2;
// central-manager "Negotiation" ("jobs are returned in the order of job priority ... older jobs
// go first").
#pragma once

#include <cstdint>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/negotiator/negotiator.h"

namespace kite::negotiator {

class JobMemo;  // job_memo.h

struct JobKey {
  int64_t prio[5] = {};  // PreJobPrio1, PreJobPrio2, JobPrio, PostJobPrio1, PostJobPrio2
  int64_t qdate = 0;
  int32_t cluster = 0;
  int32_t proc = 0;
};

/// `ad`'s integer attribute `id` (evaluated if it is an expression), or `dflt` when it is missing
/// or not a number (a real is truncated).
int64_t int_attr(const classad::ClassAd& ad, uint32_t id, int64_t dflt);

JobKey job_key(const IdleJob& job);
/// True when `a` is offered before `b`.
bool job_before(const JobKey& a, const JobKey& b);
/// Indices into `jobs` in the order they are offered. `memo` (optional) keeps the keys of
/// unchanged job ads from cycle to cycle.
std::vector<uint32_t> job_order(const std::vector<IdleJob>& jobs, JobMemo* memo = nullptr);

}  // namespace kite::negotiator
