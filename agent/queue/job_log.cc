// Writing job events to the job's own event log file.
#include "agent/queue/job_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/queue/job_render.h"

namespace kite::queue {

std::string job_log_path(const classad::ClassAd& job) {
  std::string log, iwd;
  if (!ad_string(job, "UserLog", &log) || log.empty()) return "";
  if (log[0] == '/' || !ad_string(job, "Iwd", &iwd) || iwd.empty()) return log;
  return iwd + "/" + log;
}

bool append_job_log(const std::string& path, const std::string& text, std::string* err) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = "cannot open the event log " + path + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = "cannot write the event log " + path + ": " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return true;
}

}  // namespace kite::queue
