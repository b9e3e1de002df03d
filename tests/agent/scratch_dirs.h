// Temp directories for tests, removed when the test process ends with every test passed (kept
// after a failure for its logs), so repeated suite runs do not fill /tmp.
#pragma once

#include <ftw.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace kite::test {

struct ScratchDirs {
  pid_t owner = 0;  // a forked child that calls exit() must not remove its parent's dirs
  std::vector<std::string> dirs;
};

inline ScratchDirs& scratch_dirs() {
  static ScratchDirs* s = new ScratchDirs;  // never destroyed: read by the atexit handler
  return *s;
}

inline void remove_scratch_dirs() {
  ScratchDirs& s = scratch_dirs();
  if (getpid() != s.owner || !testing::UnitTest::GetInstance()->Passed()) return;
  // Depth first, not following symlinks (FTW_PHYS): what a test left is removed, nothing else.
  auto remove_one = [](const char* path, const struct stat*, int, struct FTW*) {
    std::remove(path);
    return 0;
  };
  for (const std::string& d : s.dirs) nftw(d.c_str(), remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/// mkdtemp("/tmp/PREFIX-XXXXXX"); removed at exit if every test of this process passed.
inline std::string scratch_dir(const char* prefix) {
  std::string path = std::string("/tmp/") + prefix + "-XXXXXX";
  if (!mkdtemp(&path[0])) {
    ADD_FAILURE() << "mkdtemp " << path << ": " << std::strerror(errno);
    return "/tmp";
  }
  ScratchDirs& s = scratch_dirs();
  if (s.owner == 0) {
    s.owner = getpid();
    std::atexit(remove_scratch_dirs);
  }
  s.dirs.push_back(path);
  return path;
}

}  // namespace kite::test
