// `queue matching` path expansion (see path_match.h).
#include "policy/submit/path_match.h"

#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

namespace kite::submit {
namespace {

bool has_wildcard(const std::string& s) {
  return s.find_first_of("*?[") != std::string::npos;
}

bool is_dir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// Extends `base` (a directory path ending in '/') by the components from `i` on.
void walk(const std::string& base, const std::vector<std::string>& parts, size_t i, size_t limit,
          std::vector<std::string>* out) {
  if (out->size() >= limit) return;
  bool last = i + 1 == parts.size();
  const std::string& part = parts[i];
  std::vector<std::string> names;
  if (!has_wildcard(part)) {
    if (exists(base + part)) names.push_back(part);
  } else if (DIR* d = ::opendir(base.empty() ? "/" : base.c_str())) {
    while (dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      if (::fnmatch(part.c_str(), e->d_name, FNM_PERIOD) == 0) names.emplace_back(e->d_name);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
  }
  for (const std::string& n : names) {
    if (out->size() >= limit) return;
    std::string path = base + n;
    if (last) {
      out->push_back(is_dir(path) ? path + "/" : path);
    } else if (is_dir(path)) {
      walk(path + "/", parts, i + 1, limit, out);
    }
  }
}

}  // namespace

std::vector<std::string> match_paths(const std::string& pattern, size_t limit) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (size_t i = 0; i <= pattern.size(); ++i) {
    if (i < pattern.size() && pattern[i] != '/') continue;
    if (i > begin) parts.push_back(pattern.substr(begin, i - begin));
    begin = i + 1;
  }
  std::vector<std::string> out;
  if (parts.empty() || pattern[0] != '/') return out;
  walk("/", parts, 0, limit, &out);
  return out;
}

}  // namespace kite::submit
