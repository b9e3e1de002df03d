// Reads STARTD_CRON_JOBLIST and the STARTD_CRON_<name>_* knobs into CronJob descriptions.
#include "policy/startd/cron_config.h"

#include <strings.h>

#include <cerrno>
#include <cstdlib>

#include "policy/classad/args_env.h"
#include "policy/classad/parser.h"
#include "policy/startd/text_util.h"

namespace kite::startd {

namespace {

// A knob's value, with "" when unset.
bool knob(const config::Config& cfg, const std::string& name, std::string* v) {
  v->clear();
  if (!cfg.get(name, v)) return false;
  *v = trim(*v);
  return !v->empty();
}

bool bad(std::string* err, const std::string& name, const std::string& value, const char* why) {
  *err = name + " = " + value + ": " + why;
  return false;
}

bool read_bool(const config::Config& cfg, const std::string& name, bool* out, std::string* err) {
  std::string v;
  if (!knob(cfg, name, &v)) return true;
  return cfg_bool(cfg, name.c_str(), out) || bad(err, name, v, "not a boolean");
}

bool read_real(const config::Config& cfg, const std::string& name, double* out, std::string* err) {
  std::string v;
  if (!knob(cfg, name, &v)) return true;
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(v.c_str(), &end);
  if (errno != 0 || *end != '\0' || !(d >= 0)) return bad(err, name, v, "not a number >= 0");
  *out = d;
  return true;
}

// Double-quoted values use the V2 syntax, others V1 (as HTCondor reads _ARGS and _ENV).
bool quoted(const std::string& v) {
  return v.size() >= 2 && v.front() == '"' && v.back() == '"';
}

bool read_args(const std::string& name, const std::string& v, std::vector<std::string>* out,
               std::string* err) {
  if (!quoted(v)) {
    for (std::string& a : classad::args_split_v1(v)) out->push_back(std::move(a));
    return true;
  }
  std::vector<std::string> words;
  std::string why;
  if (!classad::args_split_v2(std::string_view(v).substr(1, v.size() - 2), &words, &why))
    return bad(err, name, v, why.c_str());
  for (std::string& a : words) out->push_back(std::move(a));
  return true;
}

bool read_env(const std::string& name, const std::string& v, std::vector<std::string>* out,
              std::string* err) {
  classad::Environment env;
  std::string why;
  bool ok = quoted(v) ? env.merge_v2(std::string_view(v).substr(1, v.size() - 2), &why)
                      : env.merge_v1(v, &why);
  if (!ok) return bad(err, name, v, why.c_str());
  *out = env.entries();
  return true;
}

bool read_mode(const std::string& name, const std::string& v, CronMode* out, std::string* err) {
  for (CronMode m :
       {CronMode::kPeriodic, CronMode::kWaitForExit, CronMode::kOneShot, CronMode::kOnDemand}) {
    if (strcasecmp(v.c_str(), cron_mode_name(m)) == 0) {
      *out = m;
      return true;
    }
  }
  return bad(err, name, v, "not one of Periodic, WaitForExit, OneShot, OnDemand");
}

bool read_slots(const std::string& name, const std::string& v, std::vector<int>* out,
                std::string* err) {
  for (const std::string& item : split_list(v)) {
    char* end = nullptr;
    long id = std::strtol(item.c_str(), &end, 10);
    if (*end != '\0' || id < 1 || id > 100000)
      return bad(err, name, v, ("'" + item + "' is not a slot id").c_str());
    out->push_back(static_cast<int>(id));
  }
  return true;
}

bool valid_prefix(const std::string& p) {
  for (char c : p) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

bool read_job(const config::Config& cfg, const std::string& job, CronJob* j, std::string* err) {
  const std::string base = "STARTD_CRON_" + job + "_";
  std::string v;
  j->name = job;
  if (knob(cfg, base + "MODE", &v) && !read_mode(base + "MODE", v, &j->mode, err)) return false;
  if (!knob(cfg, base + "EXECUTABLE", &j->executable)) {
    *err = base + "EXECUTABLE is not set (job " + job + " of STARTD_CRON_JOBLIST)";
    return false;
  }
  j->args.push_back(job);
  if (knob(cfg, base + "ARGS", &v) && !read_args(base + "ARGS", v, &j->args, err)) return false;
  if (knob(cfg, base + "ENV", &v) && !read_env(base + "ENV", v, &j->env, err)) return false;
  knob(cfg, base + "CWD", &j->cwd);
  if (knob(cfg, base + "PERIOD", &v)) {
    if (!cron_period_parse(v, &j->period) || j->period < 1)
      return bad(err, base + "PERIOD", v, "not a duration of at least 1s (N, Ns, Nm or Nh)");
  } else if (j->mode == CronMode::kPeriodic || j->mode == CronMode::kWaitForExit) {
    *err = base + "PERIOD is not set (needed in " + cron_mode_name(j->mode) + " mode)";
    return false;
  }
  if (!read_bool(cfg, base + "RECONFIG", &j->reconfig, err) ||
      !read_bool(cfg, base + "RECONFIG_RERUN", &j->reconfig_rerun, err) ||
      !read_bool(cfg, base + "KILL", &j->kill, err)) {
    return false;
  }
  if (knob(cfg, base + "PREFIX", &j->prefix) && !valid_prefix(j->prefix))
    return bad(err, base + "PREFIX", j->prefix, "only letters, digits and _ are allowed");
  if (knob(cfg, base + "SLOTS", &v) && !read_slots(base + "SLOTS", v, &j->slots, err)) return false;
  if (!read_real(cfg, base + "JOB_LOAD", &j->job_load, err)) return false;
  std::string why;
  if (knob(cfg, base + "METRICS", &v) && !trim(v).empty() &&
      !cron_metrics_parse(v, &j->metrics, &why)) {
    return bad(err, base + "METRICS", v, why.c_str());
  }
  if (knob(cfg, base + "CONDITION", &j->condition)) {
    classad::ParseError pe;
    if (!classad::parse_expr(j->condition, &pe))
      return bad(err, base + "CONDITION", j->condition, pe.to_string().c_str());
  }
  return true;
}

}  // namespace

const char* cron_mode_name(CronMode m) {
  switch (m) {
    case CronMode::kPeriodic: return "Periodic";
    case CronMode::kWaitForExit: return "WaitForExit";
    case CronMode::kOneShot: return "OneShot";
    case CronMode::kOnDemand: return "OnDemand";
  }
  return "?";
}

bool cron_period_parse(const std::string& text, int64_t* out) {
  std::string t = trim(text);
  if (t.empty()) return false;
  int64_t unit = 1;
  char last = t.back();
  if (last == 's' || last == 'S')
    t.pop_back();
  else if (last == 'm' || last == 'M')
    unit = 60, t.pop_back();
  else if (last == 'h' || last == 'H')
    unit = 3600, t.pop_back();
  t = trim(t);
  if (t.empty() || t.size() > 9) return false;
  int64_t n = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  *out = n * unit;
  return true;
}

bool cron_config_read(const config::Config& cfg, CronConfig* out, std::string* err) {
  *out = CronConfig();
  std::string v;
  if (!read_real(cfg, "STARTD_CRON_MAX_JOB_LOAD", &out->max_job_load, err) ||
      !read_bool(cfg, "STARTD_CRON_LOG_NON_ZERO_EXIT", &out->log_non_zero_exit, err)) {
    return false;
  }
  if (knob(cfg, "STARTD_CRON_MAX_OUTPUT_BYTES", &v)) {
    char* end = nullptr;
    long long n = std::strtoll(v.c_str(), &end, 10);
    if (*end != '\0' || n < 1024 || n > (16 << 20))
      return bad(err, "STARTD_CRON_MAX_OUTPUT_BYTES", v, "not a byte count from 1024 to 16 MiB");
    out->max_output = n;
  }
  if (!knob(cfg, "STARTD_CRON_JOBLIST", &v)) return true;
  for (const std::string& name : split_list(v)) {
    for (const CronJob& j : out->jobs) {
      if (strcasecmp(j.name.c_str(), name.c_str()) == 0) {
        *err = "STARTD_CRON_JOBLIST = " + v + ": job " + name + " is listed twice";
        return false;
      }
    }
    CronJob j;
    if (!read_job(cfg, name, &j, err)) return false;
    out->jobs.push_back(std::move(j));
  }
  return true;
}

}  // namespace kite::startd
