// /etc/passwd and /etc/group parsing (colon-separated lines; '#' comments and blanks skipped).
#include "agent/core/accounts.h"

#include <string_view>

#include "agent/core/files.h"

namespace kite::core {
namespace {

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i == line.size() || line[i] == ':') {
      out.push_back(line.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

bool to_id(std::string_view s, unsigned long* out) {
  if (s.empty() || s.size() > 10) return false;
  unsigned long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned long>(c - '0');
  }
  if (v > 0xfffffffeul) return false;  // (uid_t)-1 means "no change" to setuid
  *out = v;
  return true;
}

// Calls `fn` with the fields of each well-formed line until it returns true.
template <typename Fn>
bool scan(const char* file, size_t min_fields, Fn fn) {
  std::string text, err;
  if (!read_file(file, &text, &err)) return false;
  std::string_view all(text);
  while (!all.empty()) {
    size_t nl = all.find('\n');
    std::string_view line = all.substr(0, nl);
    all = nl == std::string_view::npos ? std::string_view() : all.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string_view> f = fields(line);
    if (f.size() < min_fields) continue;
    if (fn(f)) return true;
  }
  return false;
}

bool fill(const std::vector<std::string_view>& f, Account* out) {
  unsigned long uid, gid;
  if (!to_id(f[2], &uid) || !to_id(f[3], &gid)) return false;
  out->name = std::string(f[0]);
  out->uid = static_cast<uid_t>(uid);
  out->gid = static_cast<gid_t>(gid);
  out->home = std::string(f[5]);
  out->shell = std::string(f[6]);
  return true;
}

}  // namespace

bool account_by_name(const std::string& name, Account* out, const char* passwd_file) {
  return scan(passwd_file, 7,
              [&](const std::vector<std::string_view>& f) { return f[0] == name && fill(f, out); });
}

bool account_by_uid(uid_t uid, Account* out, const char* passwd_file) {
  return scan(passwd_file, 7, [&](const std::vector<std::string_view>& f) {
    unsigned long u;
    return to_id(f[2], &u) && u == uid && fill(f, out);
  });
}

bool group_gid(const std::string& name, gid_t* out, const char* group_file) {
  return scan(group_file, 3, [&](const std::vector<std::string_view>& f) {
    unsigned long g;
    if (f[0] != name || !to_id(f[2], &g)) return false;
    *out = static_cast<gid_t>(g);
    return true;
  });
}

std::vector<gid_t> account_groups(const std::string& user, gid_t primary, const char* group_file) {
  std::vector<gid_t> out{primary};
  scan(group_file, 4, [&](const std::vector<std::string_view>& f) {
    unsigned long g;
    if (!to_id(f[2], &g)) return false;
    std::string_view members = f[3];
    while (!members.empty()) {
      size_t c = members.find(',');
      if (members.substr(0, c) == user) {
        if (static_cast<gid_t>(g) != primary) out.push_back(static_cast<gid_t>(g));
        break;
      }
      members = c == std::string_view::npos ? std::string_view() : members.substr(c + 1);
    }
    return false;
  });
  return out;
}

}  // namespace kite::core
