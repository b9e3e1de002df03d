// Helpers for the HAL tests: board fixture paths and scratch copies of them (tests that write
// under a fake root work on a copy, never on the recorded tree), and running the kite binary.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "hal/root.h"

namespace kite::hal::testing {

inline std::string board_dir(const std::string& board) {
  return std::string(KITE_SOURCE_DIR) + "/board/" + board;
}
inline std::string fixtures(const std::string& board) {
  return board_dir(board) + "/fixtures";
}

/// A temporary directory removed on destruction; optionally a copy of a board's fixtures.
class ScratchRoot {
 public:
  explicit ScratchRoot(const std::string& board = "") {
    char tmpl[] = "/tmp/kite-hal-test-XXXXXX";
    const char* d = mkdtemp(tmpl);
    if (d) dir_ = d;
    if (!board.empty() && !dir_.empty()) {
      std::string cmd = "cp -a '" + fixtures(board) + "/.' '" + dir_ + "/'";
      if (std::system(cmd.c_str()) != 0) dir_.clear();
    }
  }
  ~ScratchRoot() {
    if (!dir_.empty()) {
      std::string cmd = "rm -rf '" + dir_ + "'";
      if (std::system(cmd.c_str()) != 0) {
      }
    }
  }
  ScratchRoot(const ScratchRoot&) = delete;
  ScratchRoot& operator=(const ScratchRoot&) = delete;
  const std::string& dir() const { return dir_; }
  Root root() const { return Root(dir_); }
  /// Writes a file under the root, creating its directories.
  void put(const std::string& abs, const std::string& text) const {
    std::string p = dir_ + abs;
    std::string cmd = "mkdir -p '" + p.substr(0, p.find_last_of('/')) + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    FILE* f = std::fopen(p.c_str(), "w");
    ASSERT_NE(f, nullptr) << p;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }

 private:
  std::string dir_;
};

/// Runs `kite ARGS` through the shell (ARGS may redirect stderr); its stdout, and the wait
/// status in `*status`.
inline std::string run_kite(const std::string& args, int* status) {
  std::string cmd = std::string(KITE_BINARY) + " " + args;
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  *status = pclose(p);
  return out;
}

}  // namespace kite::hal::testing
