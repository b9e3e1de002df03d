// /etc/passwd and /etc/group lookups without NSS: `name:x:uid:gid:gecos:home:shell` and
// `name:x:gid:member,member` lines.
#include "agent/starter/user.h"

#include <sys/fsuid.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "agent/core/files.h"

namespace kite::starter {
namespace {

std::vector<std::string_view> fields(std::string_view line, char sep) {
  std::vector<std::string_view> f;
  size_t b = 0;
  for (;;) {
    size_t e = line.find(sep, b);
    if (e == std::string_view::npos) {
      f.push_back(line.substr(b));
      return f;
    }
    f.push_back(line.substr(b, e - b));
    b = e + 1;
  }
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

template <typename F>
void each_line(const std::string& text, F f) {
  std::string_view t = text;
  while (!t.empty()) {
    size_t nl = t.find('\n');
    std::string_view line = t.substr(0, nl);
    t = nl == std::string_view::npos ? std::string_view() : t.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    if (!f(line)) return;
  }
}

}  // namespace

bool user_lookup(const std::string& etc, const std::string& name, UserInfo* out, std::string* err) {
  *out = UserInfo();
  if (name.empty()) {
    if (err) *err = "empty user name";
    return false;
  }
  unsigned long numeric = 0;
  bool by_id = to_id(name, &numeric);
  std::string passwd, rerr;
  if (!core::read_file(etc + "/passwd", &passwd, &rerr)) {
    if (err) *err = rerr;
    return false;
  }
  bool found = false;
  each_line(passwd, [&](std::string_view line) {
    std::vector<std::string_view> f = fields(line, ':');
    unsigned long uid, gid;
    if (f.size() < 7 || !to_id(f[2], &uid) || !to_id(f[3], &gid)) return true;
    if (by_id ? uid != numeric : f[0] != name) return true;
    out->name = std::string(f[0]);
    out->uid = static_cast<uid_t>(uid);
    out->gid = static_cast<gid_t>(gid);
    out->home = std::string(f[5]);
    found = true;
    return false;
  });
  if (!found) {
    if (!by_id) {
      if (err) *err = "no user '" + name + "' in " + etc + "/passwd";
      return false;
    }
    out->name = name;
    out->uid = static_cast<uid_t>(numeric);
    out->gid = static_cast<gid_t>(numeric);
    out->home = "/";
  }
  out->groups.push_back(out->gid);
  std::string group;
  if (core::read_file(etc + "/group", &group, nullptr)) {
    each_line(group, [&](std::string_view line) {
      std::vector<std::string_view> f = fields(line, ':');
      unsigned long gid;
      if (f.size() < 4 || !to_id(f[2], &gid)) return true;
      for (std::string_view m : fields(f[3], ',')) {
        if (!m.empty() && m == out->name &&
            std::find(out->groups.begin(), out->groups.end(), gid) == out->groups.end()) {
          out->groups.push_back(static_cast<gid_t>(gid));
        }
      }
      return true;
    });
  }
  return true;
}

AsUser::AsUser(bool on, uid_t uid, gid_t gid) : on_(on) {
  if (!on_) return;
  // Group first: after the uid changes, changing the group would no longer be allowed.
  old_gid_ = setfsgid(gid);
  old_uid_ = setfsuid(uid);
}

AsUser::~AsUser() {
  if (!on_) return;
  setfsuid(static_cast<uid_t>(old_uid_));
  setfsgid(static_cast<gid_t>(old_gid_));
}

}  // namespace kite::starter
