// The job's command line and environment from its ad: Arguments (new syntax) or Args (old),
// Environment (new) or Env (old), and the variables the starter adds (_CONDOR_SCRATCH_DIR,
// TMPDIR, OMP_NUM_THREADS and friends, GPU visibility). HTCONDOR: condor_submit "arguments"
// and "environment"; starter.rst STARTER_NUM_THREADS_ENV_VARS.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/classad/classad.h"

namespace kite::starter {

/// New-syntax arguments as they sit in the job ad (the submit file's outer double quotes
/// already gone): blanks separate arguments, '...' keeps blanks inside one, '' inside quotes
/// is one literal '. False with a message on an unterminated quote.
bool args_parse_new(std::string_view s, std::vector<std::string>* out, std::string* err);
/// Old-syntax arguments: split on blanks, no quoting.
std::vector<std::string> args_parse_old(std::string_view s);

/// An ordered environment: later set() replaces an earlier value of the same name.
class EnvList {
 public:
  void set(std::string_view name, std::string_view value);
  /// Sets only if `name` is not there yet.
  void set_default(std::string_view name, std::string_view value);
  const std::string* get(std::string_view name) const;
  const std::vector<std::pair<std::string, std::string>>& vars() const { return vars_; }
  /// "NAME=value" strings, in order.
  std::vector<std::string> entries() const;

 private:
  std::vector<std::pair<std::string, std::string>> vars_;
};

/// New-syntax environment: NAME=value entries separated by blanks, values quoted as
/// arguments are. False with a message naming the bad entry.
bool env_parse_new(std::string_view s, EnvList* out, std::string* err);
/// Old-syntax environment: NAME=value entries separated by ';'.
bool env_parse_old(std::string_view s, EnvList* out, std::string* err);

/// The job's arguments: Arguments if the ad has it, else Args, else none.
bool job_args(const classad::ClassAd& ad, std::vector<std::string>* out, std::string* err);
/// The job's own environment: Environment if present, else Env.
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
