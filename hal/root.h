// Root: the filesystem root every HAL implementation reads and writes under ("/" on a node,
// a board's recorded fixtures/ tree in tests), with small helpers for the one-value files of
// /proc and /sys. Internal to hal/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hal/status.h"

namespace kite::hal {

/// A filesystem root. Paths given to its methods are absolute as seen on the node
/// ("/proc/meminfo") and are resolved under the root.
class Root {
 public:
  explicit Root(std::string dir = "/");
  const std::string& dir() const { return dir_; }
  /// True when this is the live system ("/").
  bool live() const { return dir_ == "/"; }
  /// `abs` resolved under the root.
  std::string path(std::string_view abs) const;

  bool exists(std::string_view abs) const;
  bool is_dir(std::string_view abs) const;
  /// Whole file; error names the path.
  Status read(std::string_view abs, std::string* out) const;
  /// First line without the newline and surrounding blanks ("" if unreadable).
  std::string read_line(std::string_view abs) const;
  /// First token parsed as an integer; false if missing or not a number.
  bool read_int(std::string_view abs, int64_t* out) const;
  /// Writes `value` in one write(2) (how cgroup and power files want it).
  Status write(std::string_view abs, std::string_view value) const;
  /// Entry names (no . and ..) sorted; empty if not a directory.
  std::vector<std::string> list(std::string_view abs) const;

 private:
  std::string dir_;
};

/// Trims blanks (space, tab, newline) at both ends.
std::string_view trim(std::string_view s);
/// Splits on any of `seps`, dropping empty pieces.
std::vector<std::string_view> split(std::string_view s, std::string_view seps);
/// Value of "key<sep>value" lines (e.g. "MemTotal:  24684096 kB" or "oom_kill 3").
bool find_key(std::string_view text, std::string_view key, std::string* value);
bool find_key_int(std::string_view text, std::string_view key, int64_t* value);

}  // namespace kite::hal
