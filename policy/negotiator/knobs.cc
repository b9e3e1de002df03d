// Reading the negotiator's knobs from the configuration (see knobs.h).
#include "policy/negotiator/knobs.h"

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/config/typed.h"
#include "policy/startd/text_util.h"

namespace kite::negotiator {
namespace {

classad::ExprPtr read_expr(const config::Config& cfg, const char* name, std::string* warning) {
  std::string text;
  if (!cfg.get(name, &text)) return {};
  text = startd::trim(text);
  if (text.empty()) return {};
  classad::ParseError err;
  classad::ExprPtr e = classad::parse_expr(text, &err);
  if (!e && warning) {
    if (!warning->empty()) *warning += "; ";
    *warning += std::string(name) + ": " + err.to_string();
  }
  return e;
}

void read_flag(const config::Config& cfg, const char* name, bool* out, std::string* warning) {
  config::Status st = config::read_bool(cfg, name, out);
  if (!st.ok && warning) {
    if (!warning->empty()) *warning += "; ";
    *warning += st.message;
  }
}

}  // namespace

Knobs knobs_read(const config::Config* cfg, std::string* warning) {
  static const config::Config* defaults = new config::Config("NEGOTIATOR");
  const config::Config& c = cfg ? *cfg : *defaults;
  Knobs k;
  k.pre_job_rank = read_expr(c, "NEGOTIATOR_PRE_JOB_RANK", warning);
  k.post_job_rank = read_expr(c, "NEGOTIATOR_POST_JOB_RANK", warning);
  k.preemption_requirements = read_expr(c, "PREEMPTION_REQUIREMENTS", warning);
  k.preemption_rank = read_expr(c, "PREEMPTION_RANK", warning);
  k.slot_constraint = read_expr(c, "NEGOTIATOR_SLOT_CONSTRAINT", warning);
  k.job_constraint = read_expr(c, "NEGOTIATOR_JOB_CONSTRAINT", warning);
  read_flag(c, "NEGOTIATOR_CONSIDER_PREEMPTION", &k.consider_preemption, warning);
  read_flag(c, "NEGOTIATE_ALL_JOBS_IN_CLUSTER", &k.all_jobs_in_cluster, warning);
  read_flag(c, "NEGOTIATOR_CONSIDER_EARLY_PREEMPTION", &k.consider_early_preemption, warning);
  read_flag(c, "ALLOW_PSLOT_PREEMPTION", &k.allow_pslot_preemption, warning);
  bool req_stable = true, rank_stable = true;
  read_flag(c, "PREEMPTION_REQUIREMENTS_STABLE", &req_stable, warning);
  read_flag(c, "PREEMPTION_RANK_STABLE", &rank_stable, warning);
  k.preemption_stable = req_stable && rank_stable;
  for (size_t i = 0; i < startd::kStdResourceCount; ++i) {
    const startd::StdResource& r = startd::kStdResources[i];
    k.modify_request[i] = read_expr(c, r.modify_macro, warning);
    if (!k.modify_request[i]) k.modify_request[i] = classad::parse_expr(r.modify_default);
  }
  return k;
}

bool passes(const classad::ClassAd& ad, const classad::ExprPtr& constraint) {
  return !constraint || classad::value_is_true(ad.evaluate_expr(constraint.get()));
}

}  // namespace kite::negotiator
