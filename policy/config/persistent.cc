// The persistent and runtime configuration of condor_config_val -set/-rset, and SETTABLE_ATTRS.
#include "policy/config/persistent.h"

#include <unistd.h>

#include <cctype>

#include "policy/config/typed.h"
#include "policy/security/authz.h"

namespace kite::config {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// The name a persistent-file line assigns ("" for blank and comment lines).
std::string_view assigned_name(std::string_view line) {
  std::string_view t = trim(line);
  if (t.empty() || t.front() == '#') return {};
  size_t eq = t.find('=');
  return eq == std::string_view::npos ? std::string_view() : trim(t.substr(0, eq));
}

}  // namespace

Status persistent_config_path(const Config& cfg, std::string* path) {
  path->clear();
  bool enabled = false;
  Status st = read_bool(cfg, "ENABLE_PERSISTENT_CONFIG", &enabled);
  if (!st.ok || !enabled) return st;
  std::string dir;
  if (!cfg.get("PERSISTENT_CONFIG_DIR", &dir) || trim(dir).empty())
    return Status::Error("ENABLE_PERSISTENT_CONFIG is true but PERSISTENT_CONFIG_DIR is not set");
  std::string sub = cfg.subsystem();
  for (char& c : sub) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  *path = std::string(trim(dir)) + "/.config." + sub;
  return Status::Ok();
}

Status load_persistent(Config* cfg) {
  std::string path;
  Status st = persistent_config_path(*cfg, &path);
  if (!st.ok || path.empty() || ::access(path.c_str(), F_OK) != 0) return st;
  st = cfg->load_file(path);
  return st.ok ? cfg->finish() : st;
}

Status load_runtime(Config* cfg, const std::map<std::string, std::string>& settings) {
  if (settings.empty()) return Status::Ok();
  std::string text;
  for (const auto& [name, value] : settings) text += name + " = " + value + "\n";
  Status st = cfg->load_string(text, "<runtime configuration>");
  return st.ok ? cfg->finish() : st;
}

bool valid_config_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return false;
  }
  return true;
}

bool parse_assignment(std::string_view text, std::string* name, std::string* value,
                      std::string* err) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    *err = "'" + std::string(text) + "' is not of the form NAME = value";
    return false;
  }
  std::string_view n = trim(text.substr(0, eq));
  if (!valid_config_name(n)) {
    *err = "'" + std::string(n) + "' is not a configuration name (letters, digits, '_', '.')";
    return false;
  }
  std::string_view v = trim(text.substr(eq + 1));
  if (v.find('\n') != std::string_view::npos || v.find('\r') != std::string_view::npos) {
    *err = "the value of " + std::string(n) + " must be one line";
    return false;
  }
  *name = std::string(n);
  *value = std::string(v);
  return true;
}

std::string edit_persistent(std::string_view text, const std::string& name,
                            const std::string* value) {
  std::string out;
  bool placed = false;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (same_name(assigned_name(line), name)) {
      if (value && !placed) out += name + " = " + *value + "\n";
      placed = true;
      continue;
    }
    out.append(line);
    out += '\n';
  }
  if (value && !placed) out += name + " = " + *value + "\n";
  return out;
}

bool settable(const Config& cfg, const std::vector<std::string>& levels, std::string_view name) {
  for (const std::string& level : levels) {
    std::string list;
    bool listed = cfg.get("SETTABLE_ATTRS_" + level, &list) && !trim(list).empty();
    if (!listed) {
      if (level == "ADMINISTRATOR") return true;
      continue;
    }
    for (const std::string& pattern : split_list(list))
      if (policy::authz_glob(pattern, name)) return true;
  }
  return false;
}

}  // namespace kite::config
