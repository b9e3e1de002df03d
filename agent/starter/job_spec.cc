// job.json -> JobSpec: type checks, defaults and limits for every field of protocol.h.
#include "agent/starter/job_spec.h"

#include <cjson/cJSON.h>

#include <cmath>

#include "agent/core/frame.h"
#include "policy/classad/json.h"

namespace kite::starter {
namespace {

// Reads fields of the top-level object, remembering the first error.
class Fields {
 public:
  explicit Fields(const cJSON* obj) : obj_(obj) {}
  bool ok() const { return err_.empty(); }
  const std::string& error() const { return err_; }

  const cJSON* get(const char* key) const { return cJSON_GetObjectItemCaseSensitive(obj_, key); }

  void str(const char* key, std::string* out, bool required = false) {
    const cJSON* c = get(key);
    if (!c || cJSON_IsNull(c)) {
      if (required) fail(key, "missing (a string is required)");
      return;
    }
    if (!cJSON_IsString(c)) return fail(key, "must be a string");
    *out = c->valuestring;
  }
  void number(const char* key, double* out, double lo, double hi) {
    const cJSON* c = get(key);
    if (!c || cJSON_IsNull(c)) return;
    if (!cJSON_IsNumber(c) || !std::isfinite(c->valuedouble)) return fail(key, "must be a number");
    if (c->valuedouble < lo || c->valuedouble > hi) {
      return fail(key, "out of range (" + std::to_string(c->valuedouble) + ")");
    }
    *out = c->valuedouble;
  }
  void integer(const char* key, int64_t* out, int64_t lo, int64_t hi) {
    const cJSON* c = get(key);
    if (!c || cJSON_IsNull(c)) return;
    if (!cJSON_IsNumber(c) || c->valuedouble != std::floor(c->valuedouble)) {
      return fail(key, "must be an integer");
    }
    if (c->valuedouble < static_cast<double>(lo) || c->valuedouble > static_cast<double>(hi)) {
      return fail(key, "out of range (" + std::to_string(c->valuedouble) + ", allowed " +
                           std::to_string(lo) + ".." + std::to_string(hi) + ")");
    }
    *out = static_cast<int64_t>(c->valuedouble);
  }
  void flag(const char* key, bool* out) {
    const cJSON* c = get(key);
    if (!c || cJSON_IsNull(c)) return;
    if (!cJSON_IsBool(c)) return fail(key, "must be true or false");
    *out = cJSON_IsTrue(c);
  }
  void fail(const std::string& key, const std::string& why) {
    if (err_.empty()) err_ = "job.json: field '" + key + "': " + why;
  }

 private:
  const cJSON* obj_;
  std::string err_;
};

bool safe_name(const std::string& s) {
  if (s.empty() || s == "." || s == ".." || s.size() > 200) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c == '@';
    if (!ok) return false;
  }
  return true;
}

// Skips one JSON value starting at text[i] (already known to be valid JSON); returns the
// index after it.
size_t skip_value(std::string_view t, size_t i) {
  int depth = 0;
  bool in_str = false;
  for (; i < t.size(); ++i) {
    char c = t[i];
    if (in_str) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_str = false;
        if (depth == 0) return i + 1;
      }
      continue;
    }
    if (c == '"') {
      in_str = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth <= 0) return i + 1;
    } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      return i;
    }
  }
  return i;
}

// The raw text of member `key` of the top-level object. The ClassAd JSON reader needs it as
// written: "\/Expr(...)\/" (escaped slashes) marks an expression, "/Expr(...)/" does not,
// and cJSON's own tree no longer tells the two apart.
std::string_view raw_member(std::string_view t, std::string_view key) {
  auto blank = [&](size_t i) {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
    return i;
  };
  size_t i = blank(0);
  if (i >= t.size() || t[i] != '{') return {};
  i = blank(i + 1);
  while (i < t.size() && t[i] == '"') {
    size_t kend = skip_value(t, i);
    std::string_view k = t.substr(i + 1, kend - i - 2);
    i = blank(kend);
    if (i >= t.size() || t[i] != ':') return {};
    size_t v = blank(i + 1);
    size_t vend = skip_value(t, v);
    if (k == key) return t.substr(v, vend - v);
    i = blank(vend);
    if (i < t.size() && t[i] == ',') i = blank(i + 1);
  }
  return {};
}

classad::AdPtr ad_from(std::string_view text, const cJSON* c, const char* key, Fields* f,
                       bool required) {
  if (!c || cJSON_IsNull(c)) {
    if (required) f->fail(key, "missing (an object, the ad in HTCondor's JSON form)");
    return classad::AdPtr(classad::ClassAd::make());
  }
  if (!cJSON_IsObject(c)) {
    f->fail(key, "must be an object (an ad in HTCondor's JSON form)");
    return classad::AdPtr();
  }
  classad::ParseError perr;
  classad::AdPtr ad = classad::classad_from_json(raw_member(text, key), &perr);
  if (!ad) f->fail(key, "not a valid ad: " + perr.to_string());
  return ad;
}

}  // namespace

bool job_spec_parse(std::string_view text, JobSpec* out, std::string* err) {
  *out = JobSpec();
  std::string perr;
  core::Json root = core::json_parse(text, &perr);
  if (!root) {
    if (err) *err = "job.json: " + perr;
    return false;
  }
  Fields f(root.get());
  f.str("slot", &out->slot, true);
  if (f.ok() && !safe_name(out->slot)) {
    f.fail("slot", "'" + out->slot + "' is not a plain name (letters, digits, _ - . @)");
  }
  f.str("claim_id", &out->claim_id);
  out->job = ad_from(text, f.get("job"), "job", &f, true);
  out->machine = ad_from(text, f.get("machine"), "machine", &f, false);
  f.number("cpus", &out->cpus, 0, 1e6);
  f.integer("memory_mb", &out->memory_mb, 0, int64_t(1) << 40);
  f.integer("total_memory_mb", &out->total_memory_mb, 0, int64_t(1) << 40);
  f.integer("virtual_memory_kb", &out->virtual_memory_kb, 0, int64_t(1) << 50);
  if (const cJSON* l = f.get("cpu_list"); l && !cJSON_IsNull(l)) {
    if (!cJSON_IsArray(l)) f.fail("cpu_list", "must be an array of CPU numbers");
    const cJSON* e;
    cJSON_ArrayForEach(e, l) {
      if (!cJSON_IsNumber(e) || e->valuedouble < 0 || e->valuedouble > 65535 ||
          e->valuedouble != std::floor(e->valuedouble)) {
        f.fail("cpu_list", "must hold CPU numbers 0..65535");
        break;
      }
      out->cpu_list.push_back(static_cast<int>(e->valuedouble));
    }
  }
  for (auto [key, list] : {std::pair<const char*, std::vector<std::string>*>{"gpus", &out->gpus},
                           {"deny_devices", &out->deny_devices}}) {
    const cJSON* l = f.get(key);
    if (!l || cJSON_IsNull(l)) continue;
    if (!cJSON_IsArray(l)) f.fail(key, "must be an array of strings");
    const cJSON* e;
    cJSON_ArrayForEach(e, l) {
      if (!cJSON_IsString(e)) {
        f.fail(key, "must be an array of strings");
        break;
      }
      list->emplace_back(e->valuestring);
    }
  }
  if (const cJSON* o = f.get("gpu_env"); o && !cJSON_IsNull(o)) {
    if (!cJSON_IsObject(o)) f.fail("gpu_env", "must be an object of NAME: \"value\"");
    const cJSON* e;
    cJSON_ArrayForEach(e, o) {
      if (!cJSON_IsString(e) || !e->string || !*e->string) {
        f.fail("gpu_env", "must be an object of NAME: \"value\"");
        break;
      }
      out->gpu_env.emplace_back(e->string, e->valuestring);
    }
  }
  f.str("execute", &out->execute, true);
  if (f.ok() && (out->execute.empty() || out->execute.front() != '/'))
    f.fail("execute", "must be an absolute path");
  f.str("cgroup_base", &out->cgroup_base);
  f.str("cgroup_root", &out->cgroup_root);
  if (f.ok() && (out->cgroup_root.empty() || out->cgroup_root.front() != '/')) {
    f.fail("cgroup_root", "must be an absolute path");
  }
  if (f.ok() && out->cgroup_base.find("..") != std::string::npos) {
    f.fail("cgroup_base", "must not contain '..'");
  }
  std::string policy;
  f.str("memory_policy", &policy);
  if (f.ok() && !hal::memory_policy_parse(policy, &out->memory_policy)) {
    f.fail("memory_policy", "'" + policy + "' is not one of none, soft, hard");
  }
  f.flag("disable_swap", &out->disable_swap);
  f.integer("pids_max", &out->pids_max, INT32_MIN, INT32_MAX);
  f.str("slot_user", &out->slot_user);
  if (f.ok() && out->slot_user.empty()) f.fail("slot_user", "must not be empty");
  f.flag("allow_root_jobs", &out->allow_root_jobs);
  f.flag("use_pid_namespace", &out->use_pid_namespace);
  f.flag("allow_unconfined", &out->allow_unconfined);
  const int64_t year = 366 * 86400;
  f.integer("lease", &out->lease, 1, year);
  f.integer("update_interval", &out->update_interval, 1, year);
  f.integer("initial_update_interval", &out->initial_update_interval, 0, year);
  if (const cJSON* h = f.get("hooks"); h && !cJSON_IsNull(h)) {
    if (!cJSON_IsObject(h)) {
      f.fail("hooks", "must be an object of hook name: path");
    } else {
      struct {
        const char* key;
        std::string* path;
      } known[] = {{"prepare_job_before_transfer", &out->hooks.prepare_job_before_transfer},
                   {"prepare_job", &out->hooks.prepare_job},
                   {"update_job_info", &out->hooks.update_job_info},
                   {"job_exit", &out->hooks.job_exit}};
      const cJSON* e;
      cJSON_ArrayForEach(e, h) {
        std::string* dst = nullptr;
        for (auto& k : known) {
          if (e->string && std::string_view(e->string) == k.key) dst = k.path;
        }
        std::string key = std::string("hooks.") + (e->string ? e->string : "?");
        if (!dst) {
          f.fail(key,
                 "unknown hook (known: prepare_job_before_transfer, prepare_job, "
                 "update_job_info, job_exit)");
        } else if (cJSON_IsNull(e)) {
          continue;
        } else if (!cJSON_IsString(e) || e->valuestring[0] != '/') {
          f.fail(key, "must be an absolute path");
        } else {
          *dst = e->valuestring;
        }
      }
    }
  }
  f.integer("hook_timeout", &out->hook_timeout, 1, year);
  f.integer("return_output", &out->return_output, 0, int64_t(1) << 30);
  if (!f.ok()) {
    if (err) *err = f.error();
    return false;
  }
  return true;
}

}  // namespace kite::starter
