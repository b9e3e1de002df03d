// Writing a finished job's output files on the central manager (see output_files.h).
#include "agent/negotiator/output_files.h"

#include <fcntl.h>
#include <sys/fsuid.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/core/accounts.h"

namespace kite::negotiator {

namespace {

// File access as another user for the duration (the CM is single-threaded; fsuid changes only
// what the kernel checks on files, so nothing else about the process changes).
class AsOwner {
 public:
  AsOwner(uid_t uid, gid_t gid) : active_(::geteuid() == 0 && uid != 0) {
    if (!active_) return;
    ::setfsgid(gid);
    ::setfsuid(uid);
  }
  ~AsOwner() {
    if (!active_) return;
    ::setfsuid(0);
    ::setfsgid(0);
  }

 private:
  bool active_;
};

bool write_one(const std::string& path, const std::string& data, std::string* err) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    *err = "job output " + path + ": " + std::strerror(errno);
    return false;
  }
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = "job output " + path + ": " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    off += static_cast<size_t>(n);
  }
  ::close(fd);
  return true;
}

}  // namespace

bool write_job_output(const classad::ClassAd& job, const core::Json& exit, std::string* err) {
  std::string owner, iwd;
  job.evaluate_string("Owner", owner);
  job.evaluate_string("Iwd", iwd);
  core::Account acct;
  if (!core::account_by_name(owner, &acct)) {
    *err = "job output: the job's Owner '" + owner + "' has no account here";
    return false;
  }
  AsOwner as(acct.uid, acct.gid);
  bool ok = true;
  std::string written;  // Err naming Out's file: the starter sent it once, as stdout
  for (auto [attr, key] :
       {std::pair<const char*, const char*>{"Out", "stdout"}, {"Err", "stderr"}}) {
    std::string path;
    if (!job.evaluate_string(attr, path) || path.empty() || path == "/dev/null") continue;
    if (path[0] != '/') {
      if (iwd.empty()) continue;
      path = iwd + "/" + path;
    }
    if (path == written) continue;
    written = path;
    std::string why;
    if (!write_one(path, exit.str(key), &why)) {
      if (ok) *err = why;
      ok = false;
    }
  }
  return ok;
}

}  // namespace kite::negotiator
