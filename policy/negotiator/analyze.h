// Why a job does not match: its Requirements cut into numbered steps (each && / || with its
// operands, as condor_q -better-analyze numbers them), how many slots each condition of the
// top-level && chain matches, and how many slots the job refuses, refuse the job, or match.
// Pure: the job and the slot ads in, numbers out (agent/queue lays them out as condor_q does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/classad/classad.h"

namespace kite::negotiator {

struct AnalyzeStep {
  const classad::Expr* expr = nullptr;
  std::string text;  // a condition's text (outer parentheses dropped), or "[l] && [r]"
  bool logical = false;
  int left = -1, right = -1;  // operand steps of a logical step
};

struct AnalyzeCondition {
  int step = 0;
  int64_t slots_matched = 0;
};

struct JobAnalysis {
  bool has_requirements = false;
  std::vector<AnalyzeStep> steps;            // numbered in evaluation order
  int root = -1;                             // the step of the whole expression
  std::vector<AnalyzeCondition> conditions;  // the reduced top-level conditions, in order
  std::vector<std::string> job_attrs;        // job attributes the Requirements use, sorted
  std::vector<std::string> slot_attrs;       // slot attributes (TARGET.x) they use, sorted
  int64_t slots = 0, machines = 0;
  int64_t rejected_by_job = 0;   // the job's Requirements refuse the slot
  int64_t rejected_by_slot = 0;  // of the others, the slot's Requirements refuse the job
  int64_t matched = 0;           // both accept
};

/// Analyzes `job` against `slots` (the slots' Machine attribute counts the machines).
JobAnalysis analyze_job(classad::ClassAd& job, const std::vector<classad::AdPtr>& slots);

}  // namespace kite::negotiator
