// The configuration's public face (config.h): lookups with SUBSYS./SLOT<N>_ overrides and
// built-in defaults, expansion on lookup, and loading files, strings and directories. The
// statements are read by loader.cc and directives.cc, macros expanded by expand.cc.
// HTCONDOR: admin-manual/introduction-to-configuration (25.x).
#include "policy/config/config.h"

#include <dirent.h>
#include <errno.h>
#include <pcre2.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "policy/config/expand.h"
#include "policy/config/internal.h"
#include "policy/config/loader.h"
#include "policy/config/text.h"

namespace kite::config {

using internal::dir_of;
using internal::Expander;
using internal::kMaxFinishWork;
using internal::trim;
using internal::upper;

Config::Config(std::string subsystem) : subsystem_(upper(subsystem)) {
  set_detected("SUBSYSTEM", subsystem_);
  set_detected("LOCALNAME", subsystem_);  // HTCondor's LOCALNAME without a local name
  // HTCondor's CondorIsAdmin: whether this process may switch user ids (runs as root).
  set_detected("CondorIsAdmin", geteuid() == 0 ? "true" : "false");
}

void Config::set_detected(const std::string& name, const std::string& value) {
  Entry& e = table_[upper(name)];
  if (e.name.empty()) e.name = name;
  e.value = value;
  e.source = "<Detected>";
  e.is_default = false;
}

bool Config::lookup(std::string_view name, Entry* out) const {
  std::string key = upper(name);
  if (key.find('.') == std::string::npos) {
    auto it = table_.find(subsystem_ + "." + key);
    if (it != table_.end()) {
      *out = it->second;
      return true;
    }
  }
  auto it = table_.find(key);
  if (it != table_.end()) {
    *out = it->second;
    return true;
  }
  if (const internal::Default* d = internal::default_find(name)) {
    *out = Entry{d->name, d->value, "<Default>", true};
    return true;
  }
  return false;
}

Status Config::expand(std::string_view text, std::string* out) const {
  Expander ex{*this, {}, Status::Ok()};
  out->clear();
  if (!ex.expand(text, *out, 0)) {
    out->clear();
    return ex.err;
  }
  return Status::Ok();
}

bool Config::get(std::string_view name, std::string* value, Status* err) const {
  Entry e;
  if (!lookup(name, &e)) return false;
  Expander ex{*this, {upper(e.name)}, Status::Ok()};
  value->clear();
  if (!ex.expand(e.value, *value, 0)) {
    value->clear();
    if (err) *err = Status::Error(e.source + ": " + ex.err.message);
  }
  return true;
}

bool Config::lookup_slot(std::string_view name, int slot, int slot_type, Entry* out) const {
  std::string n(name);
  if (slot > 0 && lookup("SLOT" + std::to_string(slot) + "_" + n, out)) return true;
  if (slot_type > 0 && lookup("SLOT_TYPE_" + std::to_string(slot_type) + "_" + n, out)) {
    return true;
  }
  return lookup(n, out);
}

bool Config::lookup_vanilla(std::string_view name, bool vanilla, int slot, int slot_type,
                            Entry* out) const {
  if (vanilla && lookup_slot(std::string(name) + "_VANILLA", slot, slot_type, out)) return true;
  return lookup_slot(name, slot, slot_type, out);
}

std::vector<Entry> Config::entries() const {
  std::vector<Entry> all;
  for (const auto& kv : table_) all.push_back(kv.second);
  int n = 0;
  const internal::Default* d = internal::defaults_all(&n);
  for (int i = 0; i < n; ++i) {
    if (table_.find(upper(d[i].name)) == table_.end()) {
      all.push_back(Entry{d[i].name, d[i].value, "<Default>", true});
    }
  }
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) {
    return strcasecmp(a.name.c_str(), b.name.c_str()) < 0;
  });
  return all;
}

Status Config::finish() const {
  Expander ex{*this, {}, Status::Ok()};
  ex.work_limit = kMaxFinishWork;
  for (const auto& kv : table_) {
    std::string v;
    ex.stack.assign(1, kv.first);
    if (!ex.expand(kv.second.value, v, 0)) {
      if (ex.work > ex.work_limit) {
        return Status::Error(kv.second.source + ": configuration too costly to expand");
      }
      return Status::Error(kv.second.source + ": " + ex.err.message);
    }
  }
  return Status::Ok();
}

Status Config::load_string(std::string_view text, const std::string& name) {
  Loader l(*this);
  Origin o;
  o.file = name;
  o.text = text;
  return l.parse(o);
}

Status Config::load_file(const std::string& path) {
  Loader l(*this);
  return l.load_path(path, false);
}

Status Config::load_dir(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) {
    if (errno == ENOENT || errno == ENOTDIR) return Status::Ok();
    return Status::Error("cannot read directory " + dir + ": " + std::strerror(errno));
  }
  std::vector<std::string> names;
  while (struct dirent* de = readdir(d)) {
    std::string n = de->d_name;
    if (n == "." || n == "..") continue;
    names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());

  std::string pattern;
  Status st = expand("$(LOCAL_CONFIG_DIR_EXCLUDE_REGEXP)", &pattern);
  if (!st.ok) return st;
  pcre2_code* re = nullptr;
  if (!pattern.empty()) {
    int errcode = 0;
    PCRE2_SIZE erroff = 0;
    re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.c_str()), pattern.size(), 0, &errcode,
                       &erroff, nullptr);
    if (!re) return Status::Error("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP is not a valid regex");
  }
  pcre2_match_data* md = re ? pcre2_match_data_create_from_pattern(re, nullptr) : nullptr;
  Status result = Status::Ok();
  for (const std::string& n : names) {
    if (re && pcre2_match(re, reinterpret_cast<PCRE2_SPTR>(n.c_str()), n.size(), 0, 0, md,
                          nullptr) >= 0) {
      continue;
    }
    std::string path = dir + (dir.empty() || dir.back() == '/' ? "" : "/") + n;
    struct stat sb;
    if (stat(path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) continue;
    result = load_file(path);
    if (!result.ok) break;
  }
  if (md) pcre2_match_data_free(md);
  if (re) pcre2_code_free(re);
  return result;
}

Status Config::load_main(const std::string& path, bool must_exist) {
  set_detected("CONFIG_ROOT", dir_of(path));
  Loader l(*this);
  Status st = l.load_path(path, !must_exist);
  if (!st.ok) return st;
  std::string dir;
  st = expand("$(LOCAL_CONFIG_DIR)", &dir);
  if (!st.ok) return st;
  dir = std::string(trim(dir));
  if (!dir.empty()) {
    st = load_dir(dir);
    if (!st.ok) return st;
  }
  return finish();
}

}  // namespace kite::config
