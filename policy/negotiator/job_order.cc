// A submitter's jobs in the schedd's order (see job_order.h).
#include "policy/negotiator/job_order.h"

#include <algorithm>

#include "policy/classad/eval.h"
#include "policy/negotiator/job_memo.h"

namespace kite::negotiator {
namespace {

struct PrioIds {
  uint32_t prio[5];
  uint32_t qdate;
  PrioIds() {
    const char* names[5] = {"PreJobPrio1", "PreJobPrio2", "JobPrio", "PostJobPrio1",
                            "PostJobPrio2"};
    for (int i = 0; i < 5; ++i) prio[i] = classad::intern_name(names[i]).id;
    qdate = classad::intern_name("QDate").id;
  }
};
const PrioIds& prio_ids() {
  static const PrioIds ids;
  return ids;
}

}  // namespace

int64_t int_attr(const classad::ClassAd& ad, uint32_t id, int64_t dflt) {
  const classad::Expr* e = ad.lookup_id(id);
  if (!e) return dflt;
  classad::Value v;
  if (e->kind == classad::ExprKind::kLiteral) {
    v = classad::as_literal(e)->value;
  } else {
    classad::EvalContext ctx(&ad);
    ctx.eval(e, v);
  }
  if (v.is_integer()) return v.as_integer();
  if (v.is_real() && v.as_real() > -9.2e18 && v.as_real() < 9.2e18)
    return static_cast<int64_t>(v.as_real());
  return dflt;
}

JobKey job_key(const IdleJob& job) {
  JobKey k;
  k.cluster = job.cluster;
  k.proc = job.proc;
  if (!job.ad) return k;
  const PrioIds& ids = prio_ids();
  for (int i = 0; i < 5; ++i) k.prio[i] = int_attr(*job.ad, ids.prio[i], 0);
  k.qdate = int_attr(*job.ad, ids.qdate, 0);
  return k;
}

bool job_before(const JobKey& a, const JobKey& b) {
  for (int i = 0; i < 5; ++i) {
    if (a.prio[i] != b.prio[i]) return a.prio[i] > b.prio[i];
  }
  if (a.qdate != b.qdate) return a.qdate < b.qdate;
  if (a.cluster != b.cluster) return a.cluster < b.cluster;
  return a.proc < b.proc;
}

std::vector<uint32_t> job_order(const std::vector<IdleJob>& jobs, JobMemo* memo) {
  std::vector<JobKey> keys;
  keys.reserve(jobs.size());
  for (const IdleJob& j : jobs) {
    if (!memo || !j.ad) {
      keys.push_back(job_key(j));
      continue;
    }
    JobMemo::Entry& e = memo->at(*j.ad);
    if (!e.has_order) {
      e.order = job_key(j);
      e.has_order = true;
    }
    keys.push_back(e.order);
    keys.back().cluster = j.cluster;
    keys.back().proc = j.proc;
  }
  std::vector<uint32_t> order(jobs.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  // Callers mostly pass the jobs in this order already (the simulator, a schedd's queue).
  bool sorted = true;
  for (size_t i = 1; i < keys.size() && sorted; ++i) sorted = !job_before(keys[i], keys[i - 1]);
  if (sorted) return order;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return job_before(keys[a], keys[b]); });
  return order;
}

}  // namespace kite::negotiator
