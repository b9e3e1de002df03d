// Parsing of the job ad's argument and environment strings, and the environment the starter
// builds around them.
#include "agent/starter/job_env.h"

#include <cmath>

namespace kite::starter {
namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Splits new-syntax text into words: blanks separate, '...' groups (with '' for a literal ').
bool split_words(std::string_view s, std::vector<std::string>* out, std::string* err) {
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && blank(s[i])) ++i;
    if (i >= s.size()) break;
    std::string word;
    while (i < s.size() && !blank(s[i])) {
      if (s[i] != '\'') {
        word += s[i++];
        continue;
      }
      size_t open = i++;
      for (;;) {
        if (i >= s.size()) {
          if (err) {
            *err = "unterminated single quote at offset " + std::to_string(open) + " in '" +
                   std::string(s) + "'";
          }
          return false;
        }
        if (s[i] == '\'') {
          if (i + 1 < s.size() && s[i + 1] == '\'') {
            word += '\'';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        word += s[i++];
      }
    }
    out->push_back(std::move(word));
  }
  return true;
}

bool valid_name(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n) {
    if (c == '=' || c == '\0') return false;
  }
  return true;
}

bool add_entry(std::string_view entry, const char* syntax, EnvList* out, std::string* err) {
  size_t eq = entry.find('=');
  if (eq == std::string_view::npos || !valid_name(entry.substr(0, eq))) {
    if (err) {
      *err =
          std::string(syntax) + " environment entry '" + std::string(entry) + "' is not NAME=value";
    }
    return false;
  }
  out->set(entry.substr(0, eq), entry.substr(eq + 1));
  return true;
}

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

bool args_parse_new(std::string_view s, std::vector<std::string>* out, std::string* err) {
  out->clear();
  return split_words(s, out, err);
}

std::vector<std::string> args_parse_old(std::string_view s) {
  std::vector<std::string> v;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && blank(s[i])) ++i;
    size_t b = i;
    while (i < s.size() && !blank(s[i])) ++i;
    if (i > b) v.emplace_back(s.substr(b, i - b));
  }
  return v;
}

void EnvList::set(std::string_view name, std::string_view value) {
  for (auto& [n, v] : vars_) {
    if (n == name) {
      v = std::string(value);
      return;
    }
  }
  vars_.emplace_back(std::string(name), std::string(value));
}

void EnvList::set_default(std::string_view name, std::string_view value) {
  if (!get(name)) vars_.emplace_back(std::string(name), std::string(value));
}

const std::string* EnvList::get(std::string_view name) const {
  for (const auto& [n, v] : vars_) {
    if (n == name) return &v;
  }
  return nullptr;
}

std::vector<std::string> EnvList::entries() const {
  std::vector<std::string> e;
  e.reserve(vars_.size());
  for (const auto& [n, v] : vars_) e.push_back(n + "=" + v);
  return e;
}

bool env_parse_new(std::string_view s, EnvList* out, std::string* err) {
  std::vector<std::string> words;
  if (!split_words(s, &words, err)) return false;
  for (const std::string& w : words) {
    if (!add_entry(w, "new-syntax", out, err)) return false;
  }
  return true;
}

bool env_parse_old(std::string_view s, EnvList* out, std::string* err) {
  size_t i = 0;
  while (i <= s.size()) {
    size_t semi = s.find(';', i);
    if (semi == std::string_view::npos) semi = s.size();
    std::string_view e = s.substr(i, semi - i);
    while (!e.empty() && blank(e.front())) e.remove_prefix(1);
    while (!e.empty() && blank(e.back())) e.remove_suffix(1);
    if (!e.empty() && !add_entry(e, "old-syntax", out, err)) return false;
    i = semi + 1;
  }
  return true;
}

bool job_args(const classad::ClassAd& ad, std::vector<std::string>* out, std::string* err) {
  std::string s;
  out->clear();
  if (ad.lookup("Arguments")) {
    if (!ad.evaluate_string("Arguments", s)) {
      if (err) *err = "Arguments is not a string";
      return false;
    }
    if (!args_parse_new(s, out, err)) {
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
    *out = args_parse_old(s);
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
  bool ok = is_new ? env_parse_new(s, out, err) : env_parse_old(s, out, err);
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
