// The schedd's submit-time policy: job transforms (JOB_TRANSFORM_NAMES) that change a job ad
// as it enters the queue, and submit requirements (SUBMIT_REQUIREMENT_NAMES) that refuse it.
// HTCONDOR: htcondor-ep-policy.txt "condor_schedd Policy Configuration".
#pragma once

#include <string>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"
#include "policy/config/config.h"

namespace kite::queue_policy {

// One statement of a transform: REQUIREMENTS, SET, EVALSET, DEFAULT, DELETE, RENAME, COPY.
struct TransformRule {
  enum Kind { kRequirements, kSet, kEvalSet, kDefault, kDelete, kRename, kCopy };
  Kind kind = kSet;
  std::string attr;       // the attribute set, deleted or renamed/copied from
  std::string target;     // RENAME / COPY: the new name
  std::string text;       // the expression's text when it holds $(MY.attr) (expanded per job)
  classad::ExprPtr expr;  // the expression, parsed once when it needs no per-job expansion
  int line = 0;           // in the transform's text, for messages
};

struct JobTransform {
  std::string name;
  std::vector<TransformRule> rules;
};

struct SubmitRequirement {
  std::string name;
  classad::ExprPtr expr;
  classad::ExprPtr reason;  // null: the default reason naming the requirement
  bool is_warning = false;
};

struct SubmitPolicy {
  std::vector<JobTransform> transforms;
  std::vector<SubmitRequirement> requirements;
  bool empty() const { return transforms.empty() && requirements.empty(); }
};

// Reads JOB_TRANSFORM_NAMES / JOB_TRANSFORM_<name> and SUBMIT_REQUIREMENT_NAMES /
// SUBMIT_REQUIREMENT_<name>[_REASON|_IS_WARNING]. Errors name the variable and line.
config::Status load_submit_policy(const config::Config& cfg, SubmitPolicy* out);

// Parses one transform's text (the value of JOB_TRANSFORM_<name>). Lines `name = value`
// define macros used as $(name) by later lines; $(MY.attr) is the job's attribute as text.
config::Status parse_transform(const std::string& name, const std::string& text, JobTransform* out);

// Applies every transform whose REQUIREMENTS hold (all of them, in order) to `job`.
// False with `err` when an expression made from $(MY.attr) does not parse.
bool apply_transforms(const SubmitPolicy& p, classad::ClassAd* job, std::string* err);

struct RequirementOutcome {
  bool refused = false;
  std::string error;    // the reason of the first failed requirement (when refused)
  std::string warning;  // the reason of the last failed warning (when not refused)
};

// Evaluates the submit requirements in order with `schedd` as MY and `job` as TARGET.
RequirementOutcome check_submit_requirements(const SubmitPolicy& p, classad::ClassAd& schedd,
                                             classad::ClassAd& job);

}  // namespace kite::queue_policy
