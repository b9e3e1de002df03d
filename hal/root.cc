// Root helpers: resolve node paths under a configurable root and read/write small kernel files.
#include "hal/root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace kite::hal {

Status Status::Errno(const char* what, const std::string& where, int e) {
  // Built by appends: GCC 12 -O2 warns falsely (-Wrestrict) on chained operator+ here.
  std::string m(what);
  m.append(" ").append(where).append(": ").append(std::strerror(e));
  return Error(std::move(m), e);
}

Root::Root(std::string dir) : dir_(std::move(dir)) {
  if (dir_.empty()) dir_.push_back('/');  // (not = "/": GCC 12 -Wrestrict false positive)
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
}

std::string Root::path(std::string_view abs) const {
  if (live()) return std::string(abs);
  std::string p = dir_;
  if (abs.empty() || abs[0] != '/') p += '/';
  p.append(abs);
  return p;
}

bool Root::exists(std::string_view abs) const {
  struct stat st;
  return ::stat(path(abs).c_str(), &st) == 0;
}

bool Root::is_dir(std::string_view abs) const {
  struct stat st;
  return ::stat(path(abs).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Status Root::read(std::string_view abs, std::string* out) const {
  out->clear();
  std::string p = path(abs);
  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Errno("open", p, errno);
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      return Status::Errno("read", p, e);
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
    if (out->size() > (64u << 20)) break;  // no kernel file we read is this large
  }
  ::close(fd);
  return Status::Ok();
}

std::string Root::read_line(std::string_view abs) const {
  std::string s;
  if (!read(abs, &s).ok) return {};
  size_t nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  return std::string(trim(s));
}

bool Root::read_int(std::string_view abs, int64_t* out) const {
  std::string s = read_line(abs);
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str() || errno != 0) return false;
  *out = v;
  return true;
}

Status Root::write(std::string_view abs, std::string_view value) const {
  std::string p = path(abs);
  // O_CREAT only under a fake root: kernel files always exist, fixtures may not.
  int flags = O_WRONLY | O_CLOEXEC | (live() ? 0 : O_CREAT | O_TRUNC);
  int fd = ::open(p.c_str(), flags, 0644);
  if (fd < 0) return Status::Errno("open", p, errno);
  ssize_t n;
  do {
    n = ::write(fd, value.data(), value.size());
  } while (n < 0 && errno == EINTR);
  int e = errno;
  ::close(fd);
  if (n < 0) {
    std::string what("write '");
    what.append(trim(value)).append("' to");
    return Status::Errno(what.c_str(), p, e);
  }
  return Status::Ok();
}

std::vector<std::string> Root::list(std::string_view abs) const {
  std::vector<std::string> names;
  DIR* d = ::opendir(path(abs).c_str());
  if (!d) return names;
  while (struct dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    names.emplace_back(e->d_name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' ||
                        s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, std::string_view seps) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find_first_of(seps, i);
    if (j == std::string_view::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

bool find_key(std::string_view text, std::string_view key, std::string* value) {
  for (std::string_view line : split(text, "\n")) {
    if (line.size() <= key.size() || line.substr(0, key.size()) != key) continue;
    char c = line[key.size()];
    if (c != ':' && c != ' ' && c != '\t' && c != '=') continue;
    std::string_view v = line.substr(key.size() + 1);
    *value = std::string(trim(v));
    return true;
  }
  return false;
}

bool find_key_int(std::string_view text, std::string_view key, int64_t* value) {
  std::string v;
  if (!find_key(text, key, &v) || v.empty()) return false;
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (end == v.c_str()) return false;
  *value = n;
  return true;
}

}  // namespace kite::hal
