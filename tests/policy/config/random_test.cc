// Tests for the per-process random source of $RANDOM_INTEGER and $RANDOM_CHOICE: an injected
// seed reproduces a sequence, values stay in range, and two processes draw different values.
#include "policy/config/random.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <set>
#include <string>

#include "tests/policy/config/config_helpers.h"

namespace kite::config {
namespace {

using testing::get;
using testing::load;

TEST(ConfigRandom, InjectedSeedReproducesTheSequence) {
  random_seed(7);
  uint64_t a[4];
  for (uint64_t& x : a) x = random_next();
  random_seed(7);
  for (uint64_t x : a) EXPECT_EQ(random_next(), x);
  random_seed(8);
  EXPECT_NE(random_next(), a[0]);
}

TEST(ConfigRandom, RandomIntegerStaysOnItsSteps) {
  random_seed(1);
  Config c = load("R = $RANDOM_INTEGER(10, 20, 5)\nN = $RANDOM_INTEGER(-3, -1)\n");
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    std::string r = get(c, "R");
    EXPECT_TRUE(r == "10" || r == "15" || r == "20") << r;
    seen.insert(r);
    std::string n = get(c, "N");
    EXPECT_TRUE(n == "-3" || n == "-2" || n == "-1") << n;
  }
  EXPECT_EQ(seen.size(), 3u);  // every step is drawn
}

TEST(ConfigRandom, WholeRangeDoesNotOverflow) {
  random_seed(2);
  Config c = load("R = $RANDOM_INTEGER(-9223372036854775808, 9223372036854775807)\n");
  std::string r = get(c, "R");
  EXPECT_FALSE(r.empty());
  EXPECT_NE(r.find_first_of("0123456789"), std::string::npos) << r;
}

TEST(ConfigRandom, RandomChoiceDrawsEveryItem) {
  random_seed(3);
  Config c = load("C = $RANDOM_CHOICE(a, b, c)\n");
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) seen.insert(get(c, "C"));
  EXPECT_EQ(seen, (std::set<std::string>{"a", "b", "c"}));
}

// What one `kite config-val` process prints for R.
std::string draw_in_new_process(const std::string& conf) {
  std::string cmd = std::string(KITE_BINARY " config-val -c ") + conf + " R";
  FILE* p = popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  char buf[256];
  size_t n;
  while (p && (n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (p) pclose(p);
  return out;
}

TEST(ConfigRandom, EachProcessDrawsItsOwnValues) {
  char path[] = "/tmp/kite_random_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const char text[] = "R = $RANDOM_INTEGER(0, 999999999999)\n";
  ASSERT_EQ(write(fd, text, sizeof text - 1), static_cast<ssize_t>(sizeof text - 1));
  close(fd);
  std::set<std::string> values;
  for (int i = 0; i < 3; ++i) values.insert(draw_in_new_process(path));
  remove(path);
  EXPECT_EQ(values.size(), 3u);  // a fixed seed would print the same number three times
  EXPECT_EQ(values.count(""), 0u);
}

}  // namespace
}  // namespace kite::config
