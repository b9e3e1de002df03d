// The analysis of a job's Requirements against slots (see analyze.h).
#include "policy/negotiator/analyze.h"

#include <strings.h>

#include <algorithm>
#include <set>

#include "policy/classad/eval.h"
#include "policy/classad/match.h"
#include "policy/classad/unparse.h"
#include "policy/negotiator/autocluster.h"

namespace kite::negotiator {
namespace {

using classad::ClassAd;
using classad::Expr;

bool is_logical(const Expr* e) {
  return e && e->kind == classad::ExprKind::kOp &&
         (e->op == classad::Op::kAnd || e->op == classad::Op::kOr);
}

// The expression's text without the parentheses around the whole of it.
std::string bare_text(const Expr* e) {
  std::string s = classad::to_string(e);
  for (int n = classad::paren_count(e);
       n > 0 && s.size() >= 2 && s.front() == '(' && s.back() == ')'; --n) {
    s = s.substr(1, s.size() - 2);
  }
  return s;
}

int number_steps(const Expr* e, std::vector<AnalyzeStep>& steps) {
  AnalyzeStep s;
  s.expr = e;
  if (is_logical(e)) {
    const classad::OpExpr* o = classad::as_op(e);
    s.logical = true;
    s.left = number_steps(o->a, steps);
    s.right = number_steps(o->b, steps);
    s.text = "[" + std::to_string(s.left) + "] " + (e->op == classad::Op::kAnd ? "&&" : "||") +
             " [" + std::to_string(s.right) + "]";
  } else {
    s.text = bare_text(e);
  }
  steps.push_back(std::move(s));
  return static_cast<int>(steps.size()) - 1;
}

// The operands of the && chain at the top of the expression, in order.
void and_chain(const std::vector<AnalyzeStep>& steps, int step, std::vector<int>& out) {
  const AnalyzeStep& s = steps[step];
  if (s.logical && s.expr->op == classad::Op::kAnd && classad::paren_count(s.expr) == 0) {
    and_chain(steps, s.left, out);
    and_chain(steps, s.right, out);
  } else {
    out.push_back(step);
  }
}

int64_t count_matching(ClassAd& job, const std::vector<classad::AdPtr>& slots, const Expr* e) {
  int64_t n = 0;
  for (const classad::AdPtr& slot : slots) {
    classad::MatchPair pair(job, *slot);
    if (classad::requirements_accept(pair.evaluate_left(e))) ++n;
  }
  return n;
}

std::vector<std::string> names_of(const ClassAd& ad, const std::vector<uint32_t>& ids) {
  std::vector<std::string> out;
  for (uint32_t id : ids) {
    const ClassAd::Entry e = ad.find_entry(id);
    if (e.expr) out.emplace_back(e.name->view());
  }
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return strcasecmp(a.c_str(), b.c_str()) < 0;
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

JobAnalysis analyze_job(ClassAd& job, const std::vector<classad::AdPtr>& slots) {
  JobAnalysis a;
  static const uint32_t kRequirements = classad::intern_name("Requirements").id;
  const Expr* req = job.lookup_id(kRequirements);
  a.slots = static_cast<int64_t>(slots.size());
  std::set<std::string> machines;
  for (const classad::AdPtr& slot : slots) {
    std::string m;
    if (!slot->evaluate_string("Machine", m)) slot->evaluate_string("Name", m);
    machines.insert(m);
    classad::MatchPair pair(job, *slot);
    if (!pair.left_accepts()) {
      ++a.rejected_by_job;
    } else if (!pair.right_accepts()) {
      ++a.rejected_by_slot;
    } else {
      ++a.matched;
    }
  }
  a.machines = static_cast<int64_t>(machines.size());
  if (!req) return a;
  a.has_requirements = true;
  a.root = number_steps(req, a.steps);

  // The attributes named: the job's own (followed through its own expressions) and the slot's.
  RefMemo memo;
  std::vector<uint32_t> target;
  bool opaque = false;
  partner_refs(job, req, memo, target, &opaque);
  std::vector<uint32_t> own;
  std::vector<const Expr*> todo = {req};
  std::set<const Expr*> seen;
  while (!todo.empty()) {
    const Expr* e = todo.back();
    todo.pop_back();
    if (!seen.insert(e).second) continue;
    const TreeRefs& r = memo.refs(e);
    for (const std::vector<uint32_t>* ids : {&r.own, &r.plain}) {
      for (uint32_t id : *ids) {
        if (const Expr* x = job.lookup_id(id)) {
          own.push_back(id);
          todo.push_back(x);
        }
      }
    }
  }
  a.job_attrs = names_of(job, own);
  if (slots.size() == 1) a.slot_attrs = names_of(*slots[0], target);

  // The conditions the && chain reduces to: an || whose one operand matches every slot the
  // whole matches stands for that operand; after a condition no slot matches, the rest cannot
  // change the answer.
  std::vector<int> chain;
  and_chain(a.steps, a.root, chain);
  for (int step : chain) {
    int64_t n = count_matching(job, slots, a.steps[step].expr);
    int shown = step;
    const AnalyzeStep& s = a.steps[step];
    if (s.logical && s.expr->op == classad::Op::kOr) {
      for (int side : {s.left, s.right}) {
        if (count_matching(job, slots, a.steps[side].expr) == n) {
          shown = side;
          break;
        }
      }
    }
    a.conditions.push_back({shown, n});
    if (n == 0) break;
  }
  return a;
}

}  // namespace kite::negotiator
