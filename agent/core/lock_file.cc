// Taking an exclusive flock(2) on a pid file.
#include "agent/core/lock_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace kite::core {

int lock_file(const std::string& path, pid_t* holder, std::string* err) {
  if (holder) *holder = 0;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    *err = "cannot open the lock file " + path + ": " + std::strerror(errno);
    return -1;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    char buf[32] = {};
    ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (holder && n > 0) *holder = static_cast<pid_t>(std::strtol(buf, nullptr, 10));
    ::close(fd);
    *err = e == EWOULDBLOCK ? path + " is locked by another process"
                            : "cannot lock " + path + ": " + std::strerror(e);
    return -1;
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    *err = "cannot write our pid into " + path + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace kite::core
