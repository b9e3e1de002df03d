// The agent's and starter's log: one line per event ("2026-11-22 03:56:53 INFO slot1 ..."),
// levels, to stderr or to a file rotated by size (MAX_AGENT_LOG: the full file becomes
// FILE.old, one generation kept, as HTCondor's MAX_<SUBSYS>_LOG does).
#pragma once

#include <cstdarg>
#include <cstdint>
#include <string>

namespace kite::core {

enum class LogLevel { kDebug, kInfo, kWarn, kError };
bool log_level_parse(const std::string& s, LogLevel* out);  // "debug", "info", "warn", "error"

/// Process-wide log sink. Not thread-safe (the agent and the starter are single-threaded).
/// UTC calendar fields of a time in seconds since the epoch. The log computes them itself:
/// glibc's gmtime_r reads and parses /etc/localtime on first use (tzset, with sscanf), code and
/// data every starter would map for its first log line only.
struct UtcTime {
  int64_t year;
  int month, day, hour, minute, second;  // 1-12, 1-31, 0-23, 0-59, 0-59
};
UtcTime utc_time(int64_t t);

class Log {
 public:
  /// `path` empty = stderr. `max_bytes` <= 0 = never rotate. False (message in *err) when the
  /// file cannot be opened; the log then stays on stderr.
  static bool open(const std::string& path, int64_t max_bytes, std::string* err);
  static void set_level(LogLevel l);
  static void set_tag(const char* tag);  // prefix after the level, e.g. "starter[slot1_1]"
  static LogLevel level();
  static void close();
  static void write(LogLevel l, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
  static void vwrite(LogLevel l, const char* fmt, va_list ap);
};

}  // namespace kite::core

#define KLOG_DEBUG(...)                                                      \
  do {                                                                       \
    if (::kite::core::Log::level() <= ::kite::core::LogLevel::kDebug)        \
      ::kite::core::Log::write(::kite::core::LogLevel::kDebug, __VA_ARGS__); \
  } while (0)
#define KLOG_INFO(...) ::kite::core::Log::write(::kite::core::LogLevel::kInfo, __VA_ARGS__)
#define KLOG_WARN(...) ::kite::core::Log::write(::kite::core::LogLevel::kWarn, __VA_ARGS__)
#define KLOG_ERROR(...) ::kite::core::Log::write(::kite::core::LogLevel::kError, __VA_ARGS__)
