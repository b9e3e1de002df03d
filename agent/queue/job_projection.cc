// Cutting a job's ad down to a projection's attributes (see job_projection.h).
#include "agent/queue/job_projection.h"

#include <algorithm>

#include "agent/queue/job_render.h"
#include "policy/classad/parser.h"

namespace kite::queue {
namespace {

using classad::ClassAd;

constexpr int kMaxDepth = 32;  // attributes followed through one another (cycles end here)

// The entry of `id` in the job: its own attribute, else its cluster's.
ClassAd::Entry job_entry(const ClassAd& proc, const ClassAd& cluster, uint32_t id) {
  const ClassAd::Entry e = proc.find_entry(id);
  return e.expr ? e : cluster.find_entry(id);
}

// Adds `id` and what its expression refers to; false when that cannot be listed.
bool add(const ClassAd& proc, const ClassAd& cluster, uint32_t id, negotiator::RefMemo& memo,
         ClassAd& out, int depth) {
  if (depth > kMaxDepth || out.lookup_id(id)) return true;
  const ClassAd::Entry e = job_entry(proc, cluster, id);
  if (!e.expr) return true;
  classad::expr_ref(e.expr);
  out.insert(classad::InternedName{id, e.name}, e.expr);
  if (e.expr->kind == classad::ExprKind::kLiteral && !classad::as_literal(e.expr)->value.is_list())
    return true;
  const negotiator::TreeRefs& r = memo.refs(e.expr);
  if (r.opaque) return false;
  for (const std::vector<uint32_t>* ids : {&r.own, &r.plain})
    for (uint32_t ref : *ids)
      if (!add(proc, cluster, ref, memo, out, depth + 1)) return false;
  return true;
}

}  // namespace

bool projection_ids(const std::vector<std::string>& exprs, std::vector<uint32_t>* ids, bool* opaque,
                    std::string* err) {
  for (const std::string& text : exprs) {
    classad::ParseError pe;
    classad::ExprPtr e = classad::parse_expr(text, &pe);
    if (!e) {
      *err = "projection: '" + text + "': " + pe.to_string();
      return false;
    }
    negotiator::RefMemo memo;  // one per tree: a freed tree's address may come back
    const negotiator::TreeRefs& r = memo.refs(e.get());
    *opaque = *opaque || r.opaque;
    ids->insert(ids->end(), r.own.begin(), r.own.end());
    ids->insert(ids->end(), r.plain.begin(), r.plain.end());
  }
  std::sort(ids->begin(), ids->end());
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  return true;
}

classad::AdPtr project_job(const ClassAd& proc, const ClassAd& cluster,
                           const std::vector<uint32_t>& ids, negotiator::RefMemo& memo) {
  classad::AdPtr out(ClassAd::make());
  out->reserve(ids.size());
  for (uint32_t id : ids) {
    if (!add(proc, cluster, id, memo, *out, 0)) return merge(cluster, proc);
  }
  return out;
}

}  // namespace kite::queue
