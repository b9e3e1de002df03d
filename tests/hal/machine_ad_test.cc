// Machine-ad tests: hal_probe + hal_machine_ad on every board with its board.conf, and the
// `kite hal` command on boards and on this machine (old syntax and -json).
#include "hal/machine_ad.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>

#include "hal_test_util.h"
#include "policy/classad/json.h"
#include "policy/config/config.h"

namespace kite::hal {
namespace {

// CPUs this process may run on (what hwloc's topology keeps by default).
int allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  return CPU_COUNT(&set);
}

using testing::board_dir;
using testing::fixtures;

classad::AdPtr board_ad(const std::string& board, HalReport* report = nullptr) {
  config::Config cfg;
  config::Status cst = cfg.load_file(board_dir(board) + "/board.conf");
  EXPECT_TRUE(cst.ok) << cst.message;
  HalReport r;
  GpuOptions g;
  Status st = hal_probe(Root(fixtures(board)), &cfg, 1795306467, g, &r);
  EXPECT_TRUE(st.ok) << st.message;
  if (report) *report = r;
  return hal_machine_ad(r);
}

int64_t i(const classad::AdPtr& ad, const char* k) {
  int64_t v = -1;
  EXPECT_TRUE(ad->evaluate_int(k, v)) << k;
  return v;
}
double d(const classad::AdPtr& ad, const char* k) {
  double v = -1;
  EXPECT_TRUE(ad->evaluate_real(k, v)) << k;
  return v;
}
std::string s(const classad::AdPtr& ad, const char* k) {
  std::string v;
  EXPECT_TRUE(ad->evaluate_string(k, v)) << k;
  return v;
}

TEST(MachineAd, GenericX86) {
  classad::AdPtr ad = board_ad("generic-x86_64");
  // Same node kind as the observed HTCondor 25 ad: DetectedCpus 2, DetectedMemory 24105,
  // TotalVirtualMemory 24684084 there (KiB; MemTotal differs by 12 KiB on this VM).
  EXPECT_EQ(i(ad, "DetectedCpus"), 2);
  EXPECT_EQ(i(ad, "DetectedMemory"), 24105);
  EXPECT_EQ(i(ad, "TotalMemory"), 24105 - 256);  // RESERVED_MEMORY = 256 in board.conf
  EXPECT_DOUBLE_EQ(d(ad, "TotalCpus"), 2.0);
  EXPECT_EQ(i(ad, "TotalVirtualMemory"), 24684096);
  EXPECT_EQ(s(ad, "Arch"), "X86_64");
  EXPECT_EQ(s(ad, "OpSys"), "LINUX");
  EXPECT_EQ(s(ad, "OpSysAndVer"), "Debian12");
  EXPECT_EQ(i(ad, "OpSysMajorVer"), 12);
  EXPECT_EQ(s(ad, "CgroupMode"), "hybrid");
  EXPECT_EQ(s(ad, "CgroupControllers"), "memory:v1,cpu:v1,cpuacct:v2,cpuset:v1,pids:v1,freezer:v2");
  EXPECT_EQ(s(ad, "BaseCgroup"), "kite");
  // Recorded load 4.45 over two single-cpu slots, no job load: 1.0 each, then the 2.45 left
  // spread evenly (the reference: with more owner load than slots, slots go above 1.0).
  EXPECT_DOUBLE_EQ(d(ad, "TotalLoadAvg"), 4.45);
  EXPECT_DOUBLE_EQ(d(ad, "TotalCondorLoadAvg"), 0.0);
  EXPECT_DOUBLE_EQ(d(ad, "LoadAvg"), 2.225);
  EXPECT_DOUBLE_EQ(d(ad, "CondorLoadAvg"), 0.0);
  EXPECT_EQ(i(ad, "DetectedGPUs"), 0);
  EXPECT_EQ(s(ad, "HardwareAddress"), "02:fc:00:00:00:01");
  EXPECT_GT(i(ad, "TotalDisk"), 0);
  bool b = true;
  ASSERT_TRUE(ad->evaluate_bool("CanHibernate", b));
  EXPECT_FALSE(b);
}

TEST(MachineAd, JetsonOrinHasItsGpu) {
  classad::AdPtr ad = board_ad("jetson-orin");
  EXPECT_EQ(i(ad, "DetectedCpus"), 12);
  EXPECT_EQ(i(ad, "DetectedMemory"), 64335836 / 1024);
  EXPECT_EQ(i(ad, "TotalMemory"), 64335836 / 1024 - 4096);
  EXPECT_EQ(s(ad, "Arch"), "aarch64");
  EXPECT_EQ(s(ad, "OpSysAndVer"), "Ubuntu22");
  EXPECT_EQ(s(ad, "DetectedGPUs"), "CUDA0");
  EXPECT_EQ(i(ad, "TotalGPUs"), 1);
  classad::Value g = ad->evaluate_attr("GPUs_CUDA0");
  ASSERT_TRUE(g.is_classad());
  double cap = 0;
  ASSERT_TRUE(g.as_classad()->evaluate_real("Capability", cap));
  EXPECT_DOUBLE_EQ(cap, 8.7);
  EXPECT_EQ(s(ad, "HibernationSupportedStates"), "S1,S3");
  EXPECT_EQ(s(ad, "CgroupMode"), "v2");
}

TEST(MachineAd, Server4GpuAndRaspberryPi) {
  classad::AdPtr ad = board_ad("server-4gpu");
  EXPECT_EQ(i(ad, "DetectedCpus"), 64);
  EXPECT_EQ(i(ad, "TotalGPUs"), 4);
  EXPECT_EQ(s(ad, "DetectedGPUs"), "GPU-c4a646d7, GPU-2fd1e5b4, GPU-6a96bd13, GPU-9b0e77c2");
  EXPECT_EQ(s(ad, "OpSysAndVer"), "Rocky9");
  EXPECT_EQ(i(ad, "DetectedNumaNodes"), 2);
  EXPECT_EQ(i(ad, "TotalMemory"), 527769456 / 1024 - 8192);
  ad = board_ad("raspberrypi-4");
  EXPECT_EQ(i(ad, "DetectedCpus"), 4);
  EXPECT_EQ(i(ad, "TotalMemory"), 3884100 / 1024 - 384);
  EXPECT_EQ(s(ad, "CgroupControllers"),
            "memory:none,cpu:v2,cpuacct:v2,cpuset:v2,pids:v2,freezer:v2");
  EXPECT_EQ(i(ad, "DetectedGPUs"), 0);
}

TEST(MachineAd, NotesSayWhatIsMissing) {
  HalReport r;
  board_ad("raspberrypi-4", &r);
  bool memory_note = false;
  for (const std::string& n : r.notes)
    memory_note |= n.find("memory: no controller") != std::string::npos;
  EXPECT_TRUE(memory_note);
}

std::string run(const std::string& args, int* status) {
  return testing::run_kite("hal " + args + " 2>/dev/null", status);
}

TEST(KiteHal, BoardJetsonPrintsTheFixturesGpu) {
  int status = -1;
  std::string out = run("--board jetson-orin", &status);
  EXPECT_EQ(status, 0);
  EXPECT_NE(out.find("DetectedGPUs = \"CUDA0\"\n"), std::string::npos) << out;
  EXPECT_NE(out.find("GPUs_CUDA0 = [ id = \"CUDA0\";"), std::string::npos) << out;
  EXPECT_NE(out.find("Capability = 8.7;"), std::string::npos) << out;
  EXPECT_NE(out.find("DetectedCpus = 12\n"), std::string::npos) << out;
  EXPECT_NE(out.find("TotalCpus = 12.0\n"), std::string::npos) << out;
  // Old syntax parses back.
  classad::ParseError err;
  classad::AdPtr ad = classad::parse_classad_old(out, &err);
  ASSERT_TRUE(ad) << err.to_string();
}

TEST(KiteHal, JsonOutput) {
  int status = -1;
  std::string out = run("--board server-4gpu -json", &status);
  EXPECT_EQ(status, 0);
  classad::ParseError err;
  classad::AdPtr ad = classad::classad_from_json(out, &err);
  ASSERT_TRUE(ad) << err.to_string() << "\n" << out;
  EXPECT_EQ(i(ad, "DetectedCpus"), 64);
  EXPECT_EQ(i(ad, "TotalGPUs"), 4);
  classad::Value g = ad->evaluate_attr("GPUs_GPU_6a96bd13");
  ASSERT_TRUE(g.is_classad());
}

TEST(KiteHal, ThisMachine) {
  int status = -1;
  std::string out = run("", &status);
  ASSERT_EQ(status, 0);
  classad::ParseError err;
  classad::AdPtr ad = classad::parse_classad_old(out, &err);
  ASSERT_TRUE(ad) << err.to_string();
  // Expected values straight from the kernel, not from the HAL.
  // hwloc, like HTCondor, counts the CPUs this process may use.
  EXPECT_EQ(i(ad, "DetectedCpus"), allowed_cpus());
  std::string mi;
  ASSERT_TRUE(Root("/").read("/proc/meminfo", &mi).ok);
  int64_t kib = 0;
  ASSERT_TRUE(find_key_int(mi, "MemTotal", &kib));
  EXPECT_EQ(i(ad, "DetectedMemory"), kib / 1024);
  double load = -1;
  ASSERT_TRUE(ad->evaluate_real("TotalLoadAvg", load));
  EXPECT_GE(load, 0.0);
  std::string mounts;
  ASSERT_TRUE(Root("/").read("/proc/self/mountinfo", &mounts).ok);
  bool v1 = mounts.find(" - cgroup ") != std::string::npos;
  bool v2 = mounts.find(" - cgroup2 ") != std::string::npos;
  EXPECT_EQ(s(ad, "CgroupMode"), v1 && v2 ? "hybrid" : v2 ? "v2" : v1 ? "v1" : "none");
  EXPECT_EQ(run("--bogus", &status), "");
  EXPECT_NE(status, 0);
}

}  // namespace
}  // namespace kite::hal
