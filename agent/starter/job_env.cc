// The job ad's arguments and environment (parsed by policy/classad/args_env), and the
// environment the starter builds around them.
#include "agent/starter/job_env.h"

#include <cmath>

namespace kite::starter {
namespace {

// HTCONDOR: starter.rst STARTER_NUM_THREADS_ENV_VARS (its default list).
const char* const kThreadVars[] = {"CUBACORES",
                                   "GOMAXPROCS",
                                   "JULIA_NUM_THREADS",
                                   "MKL_NUM_THREADS",
                                   "NUMEXPR_NUM_THREADS",
                                   "OMP_NUM_THREADS",
                                   "OMP_THREAD_LIMIT",
                                   "OPENBLAS_NUM_THREADS",
                                   "PYTHON_CPU_COUNT",
                                   "ROOT_MAX_THREADS",
                                   "TF_LOOP_PARALLEL_ITERATIONS",
                                   "TF_NUM_THREADS"};

}  // namespace

bool job_args(const classad::ClassAd& ad, std::vector<std::string>* out, std::string* err) {
  std::string s;
  out->clear();
  if (ad.lookup("Arguments")) {
    if (!ad.evaluate_string("Arguments", s)) {
      if (err) *err = "Arguments is not a string";
      return false;
    }
    if (!classad::args_split_v2(s, out, err)) {
      if (err) *err = "Arguments: " + *err;
      return false;
    }
    return true;
  }
  if (ad.lookup("Args")) {
    if (!ad.evaluate_string("Args", s)) {
      if (err) *err = "Args is not a string";
      return false;
    }
    *out = classad::args_split_v1(s);
  }
  return true;
}

bool job_env(const classad::ClassAd& ad, EnvList* out, std::string* err) {
  std::string s;
  bool is_new = ad.lookup("Environment") != nullptr;
  const char* attr = is_new ? "Environment" : "Env";
  if (!is_new && !ad.lookup("Env")) return true;
  if (!ad.evaluate_string(attr, s)) {
    if (err) *err = std::string(attr) + " is not a string";
    return false;
  }
  bool ok = is_new ? out->merge_v2(s, err) : out->merge_v1(s, err);
  if (!ok && err) *err = std::string(attr) + ": " + *err;
  return ok;
}

void env_add_starter(const StarterEnv& s, EnvList* env) {
  env->set("_CONDOR_SCRATCH_DIR", s.sandbox);
  env->set("_CONDOR_SLOT", s.slot);
  env->set("_CONDOR_JOB_AD", s.job_ad_path);
  env->set("_CONDOR_MACHINE_AD", s.machine_ad_path);
  env->set("_CONDOR_JOB_IWD", s.iwd);
  env->set_default("BATCH_SYSTEM", "HTCondor");
  for (const char* v : {"TMPDIR", "TMP", "TEMP"}) env->set_default(v, s.sandbox);
  // The slot's Cpus, rounded, at least one.
  long n = std::lround(s.cpus);
  std::string threads = std::to_string(n < 1 ? 1 : n);
  for (const char* v : kThreadVars) env->set_default(v, threads);
  for (const auto& [n2, v] : s.gpu_env) env->set(n2, v);
}

}  // namespace kite::starter
