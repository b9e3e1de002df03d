// Status: the result of a HAL operation, ok or an error that names what failed and where
// (the path or call) with the errno text. HAL code never throws.
#pragma once

#include <string>

namespace kite::hal {

/// Ok, or an error message such as "write /sys/fs/cgroup/memory/x/memory.limit_in_bytes:
/// Device or resource busy". `err` keeps the errno when there was one (0 otherwise).
struct Status {
  bool ok = true;
  int err = 0;
  std::string message;

  static Status Ok() { return {}; }
  static Status Error(std::string msg, int e = 0) { return {false, e, std::move(msg)}; }
  /// "<what> <where>: <strerror(e)>".
  static Status Errno(const char* what, const std::string& where, int e);
};

}  // namespace kite::hal
