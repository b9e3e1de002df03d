// Job retries as condor_submit writes them (see retries.h).
// HTCONDOR: submit_utils.cpp SetJobRetries, compat_classad_util.cpp WrapExprTreeInParensForOp.
#include "policy/submit/retries.h"

#include "policy/classad/eval.h"
#include "policy/classad/expr.h"
#include "policy/classad/parser.h"
#include "policy/config/internal.h"
#include "policy/submit/job_ad.h"

namespace kite::submit {
namespace {

using config::internal::trim;

// An expression or'ed into OnExitRemove: parenthesised when its top operation binds more
// loosely than || (?: and the elvis operator).
bool or_operand(const std::string& text, std::string* out) {
  classad::ExprPtr e = classad::parse_expr(text);
  if (!e) return false;
  const classad::Expr* root = e.get();
  bool loose = root->kind == classad::ExprKind::kOp && classad::paren_count(root) == 0 &&
               (root->op == classad::Op::kTernary || root->op == classad::Op::kElvis);
  *out = loose ? "(" + std::string(trim(text)) + ")" : std::string(trim(text));
  return true;
}

// A whole number as condor_submit reads one (an expression that evaluates to an integer).
bool whole_number(const std::string& text, long long* out) {
  classad::ExprPtr e = classad::parse_expr(text);
  if (!e) return false;
  classad::Value v = classad::evaluate(e.get());
  if (!v.is_integer()) return false;
  *out = v.as_integer();
  return true;
}

}  // namespace

bool retries_wanted(const RetryCommands& in) {
  return in.max_retries || in.success_exit_code || in.retry_until;
}

Status plan_retries(const RetryCommands& in,
                    std::vector<std::pair<std::string, std::string>>* out) {
  out->clear();
  long long max_retries = 2;  // DEFAULT_JOB_MAX_RETRIES
  if (in.max_retries && !whole_number(*in.max_retries, &max_retries)) {
    return Status::Error("max_retries=" + *in.max_retries + " is invalid, it must be an integer");
  }
  long long success = 0;
  if (in.success_exit_code && !whole_number(*in.success_exit_code, &success)) {
    return Status::Error("success_exit_code=" + *in.success_exit_code +
                         " is invalid, it must be an integer");
  }
  std::string until;
  if (in.retry_until) {
    // A number without attribute references is the exit code that ends the retries.
    std::vector<std::string> refs;
    machine_refs(*in.retry_until, &refs);
    long long code = 0;
    if (refs.empty() && whole_number(*in.retry_until, &code) && code >= INT32_MIN &&
        code <= INT32_MAX) {
      until = "ExitCode =?= " + std::to_string(code);
    } else if (!or_operand(*in.retry_until, &until)) {
      return Status::Error("retry_until=" + *in.retry_until +
                           " is invalid, it must be an integer or boolean expression.");
    }
  }
  out->emplace_back("JobMaxRetries", std::to_string(max_retries));
  out->emplace_back("OnExitHold", in.on_exit_hold ? *in.on_exit_hold : "false");
  std::string remove = "NumJobCompletions > JobMaxRetries || ExitCode =?= ";
  if (in.success_exit_code) {
    out->emplace_back("JobSuccessExitCode", std::to_string(success));
    remove += "JobSuccessExitCode";
  } else {
    remove += std::to_string(success);
  }
  if (!until.empty()) remove += " || " + until;
  if (in.on_exit_remove) {
    std::string user;
    if (!or_operand(*in.on_exit_remove, &user)) {
      return Status::Error("on_exit_remove=" + *in.on_exit_remove +
                           " is invalid, it must be a boolean expression.");
    }
    remove += " || " + user;
  }
  out->emplace_back("OnExitRemove", remove);
  return Status::Ok();
}

}  // namespace kite::submit
