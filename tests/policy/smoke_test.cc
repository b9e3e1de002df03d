// Smoke test: the `kite` binary runs and reports its version.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

TEST(Smoke, KiteVersionRuns) {
  FILE* p = popen(KITE_BINARY " version", "r");
  ASSERT_NE(p, nullptr);
  char buf[128] = {};
  size_t n = fread(buf, 1, sizeof buf - 1, p);
  int rc = pclose(p);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(std::string(buf, n).rfind("kite ", 0), 0u);
}
