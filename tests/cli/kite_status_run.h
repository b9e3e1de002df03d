// Runs `kite status -ads FILE ARGS` (or another command over a file of ads) for the CLI tests,
// and pads table cells.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kite_test {

struct Result {
  int status = -1;
  std::string out;
};

// Runs `kite COMMAND FILE ARGS` with ad text in FILE (stderr folded into the output) in UTC;
// COMMAND is e.g. "status -ads" or "q -jobads".
inline Result kite_with_ads(const std::string& command, const std::string& ads_text,
                            const std::string& args) {
  char path[] = "/tmp/kite-cli-ads-XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, ads_text.data(), ads_text.size()), static_cast<ssize_t>(ads_text.size()));
  close(fd);
  std::string cmd =
      std::string("TZ=UTC ") + KITE_BINARY + " " + command + " " + path + " " + args + " 2>&1";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  unlink(path);
  return r;
}

// Runs `kite status -ads FILE ARGS`.
inline Result kite_status(const std::string& ads_text, const std::string& args) {
  return kite_with_ads("status -ads", ads_text, args);
}

inline std::string pad(const std::string& s, size_t w) {
  return s.size() < w ? s + std::string(w - s.size(), ' ') : s;
}

}  // namespace kite_test
