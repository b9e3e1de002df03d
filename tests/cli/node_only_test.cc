// The commands a node-only `kite` leaves out (CMakeLists.txt: the CM and the node-only exclusion
// list): a node-only binary names each as not in its build; the full build runs them.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

struct Result {
  int status = -1;
  std::string out;  // stdout and stderr
};

Result kite(const std::string& args) {
  std::string cmd = std::string(KITE_BINARY) + " " + args + " 2>&1";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

const char* const kFullBuildOnly[] = {"submit", "pki", "q", "history", "cm"};

TEST(NodeOnly, LeftOutCommandsSayWhereTheyAre) {
  for (const char* name : kFullBuildOnly) {
    // --help is each command's cheapest run: usage or an error, no work.
    Result r = kite(std::string(name) + " --help");
    std::string refusal =
        std::string("kite: '") + name + "' is not in this node-only build; use the full build\n";
    if (KITE_NODE_ONLY) {
      EXPECT_EQ(r.status, 2) << name;
      EXPECT_EQ(r.out, refusal) << name;
    } else {
      // The command's own answer to an option it may not know, not the dispatcher's.
      EXPECT_EQ(r.out.find("node-only"), std::string::npos) << name << ": " << r.out;
      EXPECT_EQ(r.out.find("kite: unknown command"), std::string::npos) << name << ": " << r.out;
    }
  }
}

TEST(NodeOnly, NodeCommandsStayAndUnknownOnesAreUnknown) {
  // The node's own status (condor_status's formatter over -ads here) is in every build.
  Result r = kite("status -ads /nonexistent/ads");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("/nonexistent/ads"), std::string::npos) << r.out;
  r = kite("frobnicate");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("kite: unknown command 'frobnicate'"), std::string::npos) << r.out;
}

}  // namespace
