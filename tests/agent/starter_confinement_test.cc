// Integration tests of what the starter refuses or measures under a real agent: a job whose
// memory limit cannot be applied is held (fail closed) unless ALLOW_UNCONFINED_JOBS, and the
// agent's benchmarks publish measured Mips and KFlops.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "agent/core/files.h"
#include "agent/core/frame.h"
#include "agent_harness.h"

namespace kite::test {
namespace {

// A STARTER command that runs the real starter in its own mount namespace with the v1 memory
// hierarchy unmounted: the node's real cgroups, minus the memory controller. "" (with *why)
// when this machine cannot do that.
std::string starter_without_memory(const TestAgent& a, std::string* why) {
  if (access("/sys/fs/cgroup/memory/cgroup.procs", F_OK) != 0) {
    *why = "no v1 memory hierarchy at /sys/fs/cgroup/memory to hide";
    return "";
  }
  std::string v2ctl = read_text("/sys/fs/cgroup/unified/cgroup.controllers") +
                      read_text("/sys/fs/cgroup/cgroup.controllers");
  if (v2ctl.find("memory") != std::string::npos) {
    *why = "the v2 hierarchy has the memory controller: hiding v1 memory is not enough";
    return "";
  }
  if (run_cmd({"unshare", "-m", "umount", "/sys/fs/cgroup/memory"}).status != 0) {
    *why = "cannot unmount in a private mount namespace (unshare -m) here";
    return "";
  }
  std::string kite;
  for (const std::string& w : kite_command()) kite += (kite.empty() ? "" : " ") + w;
  std::string path = a.dir() + "/starter-without-memory";
  std::string script =
      "#!/bin/sh\nexec unshare -m /bin/sh -c 'umount /sys/fs/cgroup/memory && exec " + kite +
      " \"$@\"' starter \"$@\"\n";
  std::string err;
  if (!core::write_file_atomic(path, script, 0755, &err)) {
    *why = err;
    return "";
  }
  return path;
}

TEST(StarterConfinement, JobWhoseMemoryLimitCannotBeAppliedIsHeld) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(a.start("", &err)) << err;  // writes the directory the wrapper goes in
  std::string why, wrapper = starter_without_memory(a, &why);
  if (wrapper.empty()) GTEST_SKIP() << why;
  a.stop();
  ASSERT_TRUE(a.start("CGROUP_MEMORY_LIMIT_POLICY = hard\nSTARTER = " + wrapper + "\n", &err))
      << err;
  CmdResult r = a.kite({"run", "--local", "--json", "--memory", "64", "--", "/bin/echo", "ran"});
  core::Json ex = exit_json(r.out);
  ASSERT_TRUE(ex) << r.out << r.err << a.log();
  EXPECT_EQ(ex.str("outcome"), "hold") << r.out;
  EXPECT_EQ(ex.num("HoldReasonCode"), 6) << r.out;
  EXPECT_NE(ex.str("HoldReason").find("memory limit"), std::string::npos) << r.out;
  EXPECT_NE(ex.str("HoldReason").find("ALLOW_UNCONFINED_JOBS"), std::string::npos) << r.out;
  EXPECT_EQ(ex.str("stdout").find("ran"), std::string::npos) << r.out;  // it never ran
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(StarterConfinement, AllowUnconfinedJobsRunsItWithoutTheLimit) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(a.start("", &err)) << err;
  std::string why, wrapper = starter_without_memory(a, &why);
  if (wrapper.empty()) GTEST_SKIP() << why;
  a.stop();
  ASSERT_TRUE(
      a.start("CGROUP_MEMORY_LIMIT_POLICY = hard\nALLOW_UNCONFINED_JOBS = true\n"
              "STARTER = " +
                  wrapper + "\n",
              &err))
      << err;
  CmdResult r = a.kite({"run", "--local", "--json", "--memory", "64", "--", "/bin/echo", "ran"});
  core::Json ex = exit_json(r.out);
  ASSERT_TRUE(ex) << r.out << r.err << a.log();
  EXPECT_EQ(ex.str("outcome"), "exit") << r.out;
  EXPECT_EQ(ex.num("ExitCode"), 0) << r.out;
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(ex.str("stdout").find("ran"), std::string::npos) << r.out;
  EXPECT_EQ(a.stop(), 0) << a.log();
}

TEST(StarterConfinement, BenchmarksPublishMeasuredMipsAndKFlops) {
  REQUIRE_AGENT_TESTS();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(a.start("RUNBENCHMARKS = (CurrentTime - LastBenchmark) >= 4 * 3600\n", &err)) << err;
  std::string mips, kflops;
  ASSERT_TRUE(eventually(
      [&] {
        mips = a.slot_attr("slot1", "Mips");
        kflops = a.slot_attr("slot1", "KFlops");
        return std::atoll(mips.c_str()) > 0 && std::atoll(kflops.c_str()) > 0;
      },
      20000))
      << "Mips " << mips << ", KFlops " << kflops << "\n"
      << a.log();
  // Plausible for any CPU this runs on, emulators included: at least 10 million integer
  // operations and 10 million floating-point operations a second, and not beyond 10^6 MIPS.
  EXPECT_GE(std::atoll(mips.c_str()), 10);
  EXPECT_LE(std::atoll(mips.c_str()), 1000000);
  EXPECT_GE(std::atoll(kflops.c_str()), 10000);
  EXPECT_NE(a.log().find("benchmarks: Mips"), std::string::npos) << a.log();
  EXPECT_EQ(a.stop(), 0) << a.log();
}

}  // namespace
}  // namespace kite::test
