// Atomic state-file writes, whole-file reads, mkdir -p and rm -rf without following symlinks.
#include "agent/core/files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace kite::core {
namespace {

std::string errno_text(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (w == 0) {  // no progress: an error, not a reason to spin
      errno = EIO;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool remove_at(int dirfd, const char* name, std::string* err, const std::string& shown) {
  if (::unlinkat(dirfd, name, 0) == 0 || errno == ENOENT) return true;
  if (errno != EISDIR && errno != EPERM) {
    if (err) *err = errno_text("cannot remove", shown);
    return false;
  }
  int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (err) *err = errno_text("cannot open", shown);
    return false;
  }
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    if (err) *err = errno_text("cannot read", shown);
    return false;
  }
  bool ok = true;
  while (struct dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    ok = remove_at(::dirfd(d), e->d_name, err, shown + "/" + e->d_name) && ok;
  }
  ::closedir(d);
  if (::unlinkat(dirfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT) {
    if (ok && err) *err = errno_text("cannot remove", shown);
    return false;
  }
  return ok;
}

}  // namespace

bool write_file_atomic(const std::string& path, const std::string& data, int mode, std::string* err,
                       Durability durability) {
  bool sync = durability == Durability::kPowerCut;
  // Each writer its own temporary (process and call): two writers never share one.
  static std::atomic<uint64_t> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
                    std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    if (err) *err = errno_text("cannot create", tmp);
    return false;
  }
  bool ok = write_all(fd, data.data(), data.size()) && (!sync || ::fsync(fd) == 0);
  if (!ok && err) *err = errno_text("cannot write", tmp);
  // close() reports what a delayed write-back (NFS, quota) could not store.
  if (::close(fd) != 0 && ok) {
    if (err) *err = errno_text("cannot close", tmp);
    ok = false;
  }
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    if (err) *err = errno_text("cannot rename onto", path);
    ok = false;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return false;
  }
  if (!sync) return true;
  // The rename itself must be durable too.
  std::string dir = path.substr(0, path.rfind('/') == std::string::npos ? 0 : path.rfind('/'));
  if (dir.empty() && path[0] == '/') dir = "/";
  if (dir.empty()) dir = ".";
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0 || ::fsync(dfd) != 0) {
    if (err) *err = errno_text("cannot sync the directory of", path);
    if (dfd >= 0) ::close(dfd);
    return false;
  }
  ::close(dfd);
  return true;
}

bool read_file(const std::string& path, std::string* out, std::string* err, size_t limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (err) *err = errno_text("cannot open", path);
    return false;
  }
  out->clear();
  char buf[8192];
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      if (err) *err = errno_text("cannot read", path);
      ::close(fd);
      return false;
    }
    if (r == 0) break;
    if (out->size() + size_t(r) > limit) {
      if (err) *err = path + ": larger than " + std::to_string(limit) + " bytes";
      ::close(fd);
      return false;
    }
    out->append(buf, size_t(r));
  }
  ::close(fd);
  return true;
}

bool make_dirs(const std::string& path, int mode, std::string* err) {
  if (path.empty()) return true;
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != '/') continue;
    std::string part = path.substr(0, i);
    if (::mkdir(part.c_str(), mode) != 0 && errno != EEXIST) {
      if (err) *err = errno_text("cannot create directory", part);
      return false;
    }
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    if (err) *err = path + ": not a directory";
    return false;
  }
  return true;
}

bool remove_tree(const std::string& path, std::string* err) {
  return remove_at(AT_FDCWD, path.c_str(), err, path);
}

}  // namespace kite::core
