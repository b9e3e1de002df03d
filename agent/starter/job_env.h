// The job's command line and environment from its ad: Arguments (new syntax) or Args (old),
// Environment (new) or Env (old), and the variables the starter adds (_CONDOR_SCRATCH_DIR,
// TMPDIR, OMP_NUM_THREADS and friends, GPU visibility). HTCONDOR: condor_submit "arguments"
// and "environment"; starter.rst STARTER_NUM_THREADS_ENV_VARS.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/classad/args_env.h"
#include "policy/classad/classad.h"

namespace kite::starter {

/// A job's environment: HTCondor's Environment class semantics (sorted, later wins).
using EnvList = classad::Environment;

/// The job's arguments: Arguments if the ad has it, else Args, else none.
bool job_args(const classad::ClassAd& ad, std::vector<std::string>* out, std::string* err);
/// The job's own environment: Environment (V2) if present, else Env (V1, its delimiter
/// auto-detected as HTCondor does).
bool job_env(const classad::ClassAd& ad, EnvList* out, std::string* err);

/// What the starter adds to every job's environment.
struct StarterEnv {
  std::string sandbox;
  std::string slot;
  std::string job_ad_path;
  std::string machine_ad_path;
  std::string iwd;
  double cpus = 1;
  std::vector<std::pair<std::string, std::string>> gpu_env;
};
/// The job's own variables plus the starter's: _CONDOR_* and the GPU variables always win;
/// TMPDIR/TMP/TEMP and the thread-count variables only fill in what the job left unset.
void env_add_starter(const StarterEnv& s, EnvList* env);

}  // namespace kite::starter
