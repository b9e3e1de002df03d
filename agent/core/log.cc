// Log sink: formats a timestamped line and appends it with one write(2), rotating by size.
#include "agent/core/log.h"

#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace kite::core {
namespace {

struct Sink {
  int fd = 2;
  std::string path;
  int64_t max_bytes = 0;
  int64_t size = 0;
  LogLevel level = LogLevel::kInfo;
  char tag[48] = "";
};
Sink g_sink;

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::kDebug: return "DEBUG";
    case LogLevel::kInfo: return "INFO";
    case LogLevel::kWarn: return "WARN";
    case LogLevel::kError: return "ERROR";
  }
  return "?";
}

void rotate() {
  std::string old = g_sink.path + ".old";
  ::rename(g_sink.path.c_str(), old.c_str());
  int fd = ::open(g_sink.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;  // keep writing to the renamed file rather than lose lines
  ::close(g_sink.fd);
  g_sink.fd = fd;
  g_sink.size = 0;
}

}  // namespace

bool log_level_parse(const std::string& s, LogLevel* out) {
  static const struct {
    const char* name;
    LogLevel level;
  } kNames[] = {{"debug", LogLevel::kDebug},
                {"info", LogLevel::kInfo},
                {"warn", LogLevel::kWarn},
                {"warning", LogLevel::kWarn},
                {"error", LogLevel::kError}};
  for (const auto& n : kNames) {
    if (strcasecmp(s.c_str(), n.name) == 0) {
      *out = n.level;
      return true;
    }
  }
  return false;
}

bool Log::open(const std::string& path, int64_t max_bytes, std::string* err) {
  close();
  if (path.empty()) return true;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (err) *err = "cannot open log " + path + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  g_sink.size = ::fstat(fd, &st) == 0 ? st.st_size : 0;
  g_sink.fd = fd;
  g_sink.path = path;
  g_sink.max_bytes = max_bytes;
  return true;
}

void Log::close() {
  if (g_sink.fd > 2) ::close(g_sink.fd);
  g_sink.fd = 2;
  g_sink.path.clear();
  g_sink.size = 0;
}

void Log::set_level(LogLevel l) {
  g_sink.level = l;
}
LogLevel Log::level() {
  return g_sink.level;
}

void Log::set_tag(const char* tag) {
  std::snprintf(g_sink.tag, sizeof g_sink.tag, "%s", tag ? tag : "");
}

void Log::write(LogLevel l, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vwrite(l, fmt, ap);
  va_end(ap);
}

// Civil from days, proleptic Gregorian (days since 1970-01-01 to year/month/day).
UtcTime utc_time(int64_t t) {
  int64_t days = t >= 0 ? t / 86400 : (t - 86399) / 86400;
  int64_t secs = t - days * 86400;
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;                                       // [0, 146096]
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  int64_t mp = (5 * doy + 2) / 153;                                     // March = 0
  UtcTime u;
  u.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  u.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  u.year = yoe + era * 400 + (u.month <= 2);
  u.hour = static_cast<int>(secs / 3600);
  u.minute = static_cast<int>(secs / 60 % 60);
  u.second = static_cast<int>(secs % 60);
  return u;
}

void Log::vwrite(LogLevel l, const char* fmt, va_list ap) {
  if (l < g_sink.level) return;
  char line[1024];
  struct timespec ts {};
  clock_gettime(CLOCK_REALTIME, &ts);
  UtcTime u = utc_time(ts.tv_sec);
  int n = std::snprintf(line, sizeof line, "%04lld-%02d-%02d %02d:%02d:%02d.%03d %s %s%s",
                        static_cast<long long>(u.year), u.month, u.day, u.hour, u.minute, u.second,
                        static_cast<int>(ts.tv_nsec / 1000000), level_name(l), g_sink.tag,
                        g_sink.tag[0] ? " " : "");
  if (n < 0) return;
  int m = std::vsnprintf(line + n, sizeof line - n, fmt, ap);
  size_t len = m < 0 ? static_cast<size_t>(n) : std::min(sizeof line - 2, size_t(n) + size_t(m));
  line[len++] = '\n';
  if (g_sink.max_bytes > 0 && g_sink.fd > 2 && g_sink.size + int64_t(len) > g_sink.max_bytes &&
      g_sink.size > 0) {
    rotate();
  }
  ssize_t w = ::write(g_sink.fd, line, len);
  if (w > 0) g_sink.size += w;
}

}  // namespace kite::core
