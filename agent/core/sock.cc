// Blocking Unix-socket client/server helpers built on poll(2).
#include "agent/core/sock.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace kite::core {
namespace {

bool fill_addr(const std::string& path, sockaddr_un* addr, std::string* err) {
  std::memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  if (path.size() >= sizeof addr->sun_path) {
    if (err) *err = "socket path too long (" + std::to_string(path.size()) + " bytes): " + path;
    return false;
  }
  std::memcpy(addr->sun_path, path.data(), path.size());
  return true;
}

int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace

int unix_connect(const std::string& path, std::string* err) {
  sockaddr_un addr;
  if (!fill_addr(path, &addr, err)) return -1;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (err) *err = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (err) *err = "cannot connect to " + path + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

int unix_listen(const std::string& path, int mode, std::string* err) {
  sockaddr_un addr;
  if (!fill_addr(path, &addr, err)) return -1;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (err) *err = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::chmod(path.c_str(), mode) != 0 || ::listen(fd, 64) != 0) {
    if (err) *err = "cannot listen on " + path + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_frame(int fd, const Json& msg, std::string* err) {
  std::string data = frame_encode(msg);
  const char* p = data.data();
  size_t n = data.size();
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd pfd{fd, POLLOUT, 0};
        ::poll(&pfd, 1, 1000);
        continue;
      }
      if (err) *err = std::string("send: ") + std::strerror(errno);
      return false;
    }
    p += w;
    n -= size_t(w);
  }
  return true;
}

FrameReader::Result recv_frame(int fd, FrameReader* reader, Json* msg, int timeout_ms,
                               std::string* err) {
  int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
  for (;;) {
    FrameReader::Result r = reader->next(msg, err);
    if (r != FrameReader::Result::kNeedMore) return r;
    int wait = -1;
    if (deadline >= 0) {
      int64_t left = deadline - now_ms();
      if (left <= 0) return FrameReader::Result::kNeedMore;
      wait = static_cast<int>(left);
    }
    pollfd pfd{fd, POLLIN, 0};
    int p = ::poll(&pfd, 1, wait);
    if (p < 0 && errno == EINTR) continue;
    if (p <= 0) {
      if (p == 0) return FrameReader::Result::kNeedMore;
      if (err) *err = std::string("poll: ") + std::strerror(errno);
      return FrameReader::Result::kError;
    }
    char buf[16384];
    ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) {
      if (err) *err = got == 0 ? "connection closed" : std::string("read: ") + std::strerror(errno);
      return FrameReader::Result::kError;
    }
    reader->feed(buf, size_t(got));
  }
}

bool peer_credentials(int fd, uid_t* uid, gid_t* gid, pid_t* pid) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return false;
  if (uid) *uid = cred.uid;
  if (gid) *gid = cred.gid;
  if (pid) *pid = cred.pid;
  return true;
}

bool peer_groups(int fd, std::vector<gid_t>* out, std::string* err) {
#ifndef SO_PEERGROUPS
  constexpr int SO_PEERGROUPS = 59;  // Linux's value; older libc headers lack it
#endif
  out->assign(16, 0);
  for (int attempt = 0; attempt < 2; ++attempt) {
    socklen_t len = static_cast<socklen_t>(out->size() * sizeof(gid_t));
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, out->data(), &len) == 0) {
      out->resize(len / sizeof(gid_t));
      return true;
    }
    // ERANGE: the kernel says in `len` how much room the list needs.
    if (errno != ERANGE) break;
    out->assign(len / sizeof(gid_t) + 1, 0);
  }
  if (err) *err = std::string("SO_PEERGROUPS: ") + std::strerror(errno);
  out->clear();
  return false;
}

}  // namespace kite::core
