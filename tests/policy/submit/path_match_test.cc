// `queue matching` path expansion (policy/submit/path_match.h) on a tree the test makes.
#include "policy/submit/path_match.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace kite::submit {
namespace {

void touch(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  std::fclose(f);
}

TEST(PathMatch, ComponentsMatchSortedDirsMarkedDotFilesHidden) {
  char tmpl[] = "/tmp/kite-match-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string d = tmpl;
  ASSERT_EQ(mkdir((d + "/run2").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((d + "/run1").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((d + "/other").c_str(), 0755), 0);
  touch(d + "/b.dat");
  touch(d + "/a.dat");
  touch(d + "/.hidden.dat");
  touch(d + "/run1/p.txt");
  touch(d + "/run2/p.txt");
  touch(d + "/other/p.txt");

  EXPECT_EQ(match_paths(d + "/*.dat", 100), (std::vector<std::string>{d + "/a.dat", d + "/b.dat"}));
  EXPECT_EQ(match_paths(d + "/run?", 100), (std::vector<std::string>{d + "/run1/", d + "/run2/"}));
  EXPECT_EQ(match_paths(d + "/run[12]/p.txt", 100),
            (std::vector<std::string>{d + "/run1/p.txt", d + "/run2/p.txt"}));
  EXPECT_EQ(match_paths(d + "/*/p.txt", 2).size(), 2u);  // the limit holds
  EXPECT_EQ(match_paths(d + "/a.dat", 100), (std::vector<std::string>{d + "/a.dat"}));
  EXPECT_TRUE(match_paths(d + "/none*", 100).empty());
  EXPECT_TRUE(match_paths("relative/*", 100).empty());

  std::string rm = "rm -rf '" + d + "'";
  EXPECT_EQ(std::system(rm.c_str()), 0);
}

}  // namespace
}  // namespace kite::submit
