// Cgroup tests on the boards' recorded trees (scratch copies): layout detection (v1, v2,
// hybrid, missing controllers), job cgroup directories, limit files and values, freeze, usage
// parsing, the v2 OOM event path, and the memory limit policy arithmetic.
#include "hal/cgroup.h"

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <poll.h>

#include "hal_test_util.h"
#include "policy/config/config.h"

namespace kite::hal {
namespace {

using testing::fixtures;
using testing::ScratchRoot;

CgroupLayout detect(const Root& root) {
  CgroupLayout l;
  Status st = cgroup_detect(root, &l);
  EXPECT_TRUE(st.ok) << st.message;
  return l;
}

TEST(CgroupDetect, GenericX86IsHybridWithV1ControllersAndBareV2) {
  CgroupLayout l = detect(Root(fixtures("generic-x86_64")));
  EXPECT_EQ(l.mode, CgroupMode::kHybrid);
  EXPECT_EQ(l.v2_mount, "/sys/fs/cgroup/unified");
  EXPECT_EQ(l.v2_controllers, (std::vector<std::string>{"hugetlb"}));
  EXPECT_EQ(l.v1_mounts.at("memory"), "/sys/fs/cgroup/memory");
  EXPECT_EQ(l.v1_mounts.at("freezer"), "/sys/fs/cgroup/freezer");
  EXPECT_EQ(l.v1_mounts.count("name=systemd"), 0u);
  EXPECT_EQ(l.where(CgroupFacility::kMemory), CgroupPlace::kV1);
  EXPECT_EQ(l.where(CgroupFacility::kCpu), CgroupPlace::kV1);
  EXPECT_EQ(l.where(CgroupFacility::kPids), CgroupPlace::kV1);
  EXPECT_EQ(l.where(CgroupFacility::kCpuset), CgroupPlace::kV1);
  // Core v2 files: freeze and cpu.stat come from the bare v2 hierarchy.
  EXPECT_EQ(l.where(CgroupFacility::kFreezer), CgroupPlace::kV2);
  EXPECT_EQ(l.where(CgroupFacility::kCpuAcct), CgroupPlace::kV2);
  EXPECT_TRUE(l.missing.empty());
}

TEST(CgroupDetect, RaspberryPiV2WithoutMemoryReportsIt) {
  CgroupLayout l = detect(Root(fixtures("raspberrypi-4")));
  EXPECT_EQ(l.mode, CgroupMode::kV2);
  EXPECT_EQ(l.v2_mount, "/sys/fs/cgroup");
  EXPECT_EQ(l.where(CgroupFacility::kMemory), CgroupPlace::kNone);
  EXPECT_EQ(l.where(CgroupFacility::kCpu), CgroupPlace::kV2);
  ASSERT_EQ(l.missing.size(), 1u);
  EXPECT_NE(l.missing[0].find("memory"), std::string::npos);
}

TEST(CgroupDetect, JetsonAndServerAreV2) {
  for (const char* b : {"jetson-orin", "server-4gpu"}) {
    CgroupLayout l = detect(Root(fixtures(b)));
    EXPECT_EQ(l.mode, CgroupMode::kV2) << b;
    for (int f = 0; f < static_cast<int>(CgroupFacility::kCount); ++f) {
      EXPECT_EQ(l.place[f], CgroupPlace::kV2) << b << " " << f;
    }
  }
}

TEST(CgroupDetect, NoCgroupsAtAll) {
  ScratchRoot r;
  r.put("/proc/self/mountinfo", "22 1 0:21 / /proc rw - proc proc rw\n");
  CgroupLayout l = detect(r.root());
  EXPECT_EQ(l.mode, CgroupMode::kNone);
  EXPECT_FALSE(l.missing.empty());
  Cgroups cg(r.root(), l, "kite");
  JobCgroup job;
  EXPECT_FALSE(cg.create("job1", &job).ok);
}

TEST(CgroupV2, CreateLimitsFreezeOnJetson) {
  ScratchRoot r("jetson-orin");
  Cgroups cg(r.root(), detect(r.root()), "kite.slice");
  JobCgroup job;
  Status st = cg.create("slot1_1", &job);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(job.v2_dir, "/sys/fs/cgroup/kite.slice/slot1_1");
  EXPECT_TRUE(job.v1_dirs.empty());
  // Controllers enabled down the path for the job to use.
  EXPECT_EQ(r.root().read_line("/sys/fs/cgroup/cgroup.subtree_control"),
            "+cpu +memory +pids +cpuset");
  EXPECT_EQ(r.root().read_line("/sys/fs/cgroup/kite.slice/cgroup.subtree_control"),
            "+cpu +memory +pids +cpuset");

  ASSERT_TRUE(cg.add_pid(job, 4242).ok);
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/cgroup.procs"), "4242");
  EXPECT_EQ(cg.procs(job), (std::vector<pid_t>{4242}));

  MemoryLimitInput in;
  in.policy = MemoryPolicy::kHard;
  in.slot_memory_mib = 1024;
  in.machine_memory_mib = 58731;
  in.disable_swap = true;
  ASSERT_TRUE(cg.set_memory(job, memory_limits_compute(in)).ok);
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/memory.max"), "1073741824");
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/memory.high"), "966367641");  // 90%
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/memory.swap.max"), "0");

  ASSERT_TRUE(cg.set_cpu_weight(job, 2.5).ok);
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/cpu.weight"), "250");
  ASSERT_TRUE(cg.set_cpu_weight(job, 200).ok);
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/cpu.weight"), "10000");  // v2 maximum
  ASSERT_TRUE(cg.set_pids_max(job, 512).ok);
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/pids.max"), "512");
  ASSERT_TRUE(cg.set_pids_max(job, 0).ok);
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/pids.max"), "max");
  ASSERT_TRUE(cg.set_cpuset(job, {4, 5, 6, 7}).ok);
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/cpuset.cpus"), "4-7");

  EXPECT_FALSE(cg.frozen(job));
  ASSERT_TRUE(cg.freeze(job).ok);
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/cgroup.freeze"), "1");
  EXPECT_TRUE(cg.frozen(job));
  ASSERT_TRUE(cg.thaw(job).ok);
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/cgroup.freeze"), "0");

  ASSERT_TRUE(cg.kill_all(job).ok);
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/cgroup.kill"), "1");
  ASSERT_TRUE(cg.destroy(&job).ok);
  EXPECT_FALSE(r.root().exists("/sys/fs/cgroup/kite.slice/slot1_1"));
}

TEST(CgroupV2, UsageFromKernelFiles) {
  ScratchRoot r("server-4gpu");
  Cgroups cg(r.root(), detect(r.root()), "kite.slice");
  JobCgroup job;
  ASSERT_TRUE(cg.create("job7", &job).ok);
  // As the kernel writes them (Documentation/admin-guide/cgroup-v2.rst).
  r.put(job.v2_dir + "/cpu.stat",
        "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n"
        "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\n");
  r.put(job.v2_dir + "/memory.current", "104857600\n");
  r.put(job.v2_dir + "/memory.peak", "209715200\n");
  r.put(job.v2_dir + "/memory.swap.current", "4096\n");
  r.put(job.v2_dir + "/memory.events",
        "low 0\nhigh 12\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n");
  r.put(job.v2_dir + "/pids.current", "7\n");
  CgroupUsage u = cg.usage(job);
  EXPECT_EQ(u.cpu_user_usec, 2000000);
  EXPECT_EQ(u.cpu_system_usec, 500000);
  EXPECT_EQ(u.memory_current, 104857600);
  EXPECT_EQ(u.memory_peak, 209715200);
  EXPECT_EQ(u.swap_current, 4096);
  EXPECT_EQ(u.pids_current, 7);
  EXPECT_EQ(u.oom_kills, 1);
}

TEST(CgroupV2, OomEventArrivesOnTheFd) {
  ScratchRoot r("jetson-orin");
  Cgroups cg(r.root(), detect(r.root()), "kite.slice");
  JobCgroup job;
  ASSERT_TRUE(cg.create("oom", &job).ok);
  r.put(job.v2_dir + "/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
  OomWatch w;
  Status st = cg.oom_watch(job, &w);
  ASSERT_TRUE(st.ok) << st.message;
  struct pollfd p = {w.fd, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 0);  // nothing yet
  EXPECT_EQ(cgroup_oom_read(r.root(), &w), 0);
  // The kernel rewrites memory.events when a counter changes (a "file modified" event).
  ASSERT_TRUE(r.root()
                  .write(job.v2_dir + "/memory.events", "low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\n")
                  .ok);
  ASSERT_EQ(poll(&p, 1, 2000), 1);
  EXPECT_EQ(cgroup_oom_read(r.root(), &w), 1);
  EXPECT_EQ(cgroup_oom_read(r.root(), &w), 0);  // reported once
  cgroup_oom_close(&w);
}

TEST(CgroupV2, MissingMemoryControllerIsReportedNotFatal) {
  ScratchRoot r("raspberrypi-4");
  Cgroups cg(r.root(), detect(r.root()), "kite.slice/jobs");
  JobCgroup job;
  ASSERT_TRUE(cg.create("slot1", &job).ok);
  EXPECT_EQ(job.v2_dir, "/sys/fs/cgroup/kite.slice/jobs/slot1");
  EXPECT_EQ(r.root().read_line("/sys/fs/cgroup/cgroup.subtree_control"), "+cpu +pids +cpuset");
  EXPECT_TRUE(cg.set_memory(job, MemoryLimits()).ok);  // policy none: nothing to do
  MemoryLimitInput in;
  in.policy = MemoryPolicy::kHard;
  in.slot_memory_mib = 512;
  Status st = cg.set_memory(job, memory_limits_compute(in));
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("memory controller not available"), std::string::npos);
  OomWatch w;
  EXPECT_FALSE(cg.oom_watch(job, &w).ok);
  ASSERT_TRUE(cg.set_cpu_weight(job, 1).ok);  // the rest still works
  EXPECT_EQ(cg.usage(job).memory_current, -1);
  ASSERT_TRUE(cg.destroy(&job).ok);
}

// Another process (a concurrent starter) has made the shared base cpuset but not yet filled it in:
// the base is filled from its parent before the job's level copies it, or the job could not join
// (ENOSPC).
TEST(CgroupV1, ABaseCpusetAnotherProcessLeftEmptyIsFilledIn) {
  ScratchRoot r("generic-x86_64");
  ASSERT_EQ(::mkdir(r.root().path("/sys/fs/cgroup/cpuset/kite").c_str(), 0755), 0);
  ASSERT_TRUE(r.root().write("/sys/fs/cgroup/cpuset/kite/cpuset.cpus", "\n").ok);
  ASSERT_TRUE(r.root().write("/sys/fs/cgroup/cpuset/kite/cpuset.mems", "\n").ok);
  Cgroups cg(r.root(), detect(r.root()), "kite");
  JobCgroup job;
  Status st = cg.create("slot1_1", &job);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(r.root().read_line("/sys/fs/cgroup/cpuset/kite/cpuset.cpus"), "0-1");
  EXPECT_EQ(r.root().read_line("/sys/fs/cgroup/cpuset/kite/slot1_1/cpuset.cpus"), "0-1");
  EXPECT_EQ(r.root().read_line("/sys/fs/cgroup/cpuset/kite/slot1_1/cpuset.mems"), "0");
}

TEST(CgroupV1, HybridJobOnGenericX86) {
  ScratchRoot r("generic-x86_64");
  Cgroups cg(r.root(), detect(r.root()), "kite");
  JobCgroup job;
  Status st = cg.create("slot1_1", &job);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_EQ(job.v2_dir, "/sys/fs/cgroup/unified/kite/slot1_1");
  EXPECT_EQ(job.v1_dirs.at("memory"), "/sys/fs/cgroup/memory/kite/slot1_1");
  EXPECT_EQ(job.v1_dirs.at("cpu"), "/sys/fs/cgroup/cpu/kite/slot1_1");
  EXPECT_EQ(job.v1_dirs.at("pids"), "/sys/fs/cgroup/pids/kite/slot1_1");
  EXPECT_EQ(job.v1_dirs.count("freezer"), 0u);  // freezing uses v2 cgroup.freeze
  // A new v1 cpuset inherits cpus/mems, or no task could join it.
  EXPECT_EQ(r.root().read_line("/sys/fs/cgroup/cpuset/kite/slot1_1/cpuset.cpus"), "0-1");
  EXPECT_EQ(r.root().read_line("/sys/fs/cgroup/cpuset/kite/slot1_1/cpuset.mems"), "0");
  // No controllers in the v2 root: nothing to enable there.
  EXPECT_FALSE(r.root().exists("/sys/fs/cgroup/unified/kite/cgroup.subtree_control"));

  ASSERT_TRUE(cg.add_pid(job, 777).ok);
  EXPECT_EQ(r.root().read_line(job.v2_dir + "/cgroup.procs"), "777");
  EXPECT_EQ(r.root().read_line(job.v1_dirs.at("memory") + "/cgroup.procs"), "777");

  MemoryLimitInput in;
  in.policy = MemoryPolicy::kSoft;
  in.slot_memory_mib = 2048;
  in.machine_memory_mib = 23849;
  ASSERT_TRUE(cg.set_memory(job, memory_limits_compute(in)).ok);
  EXPECT_EQ(r.root().read_line(job.v1_dirs.at("memory") + "/memory.soft_limit_in_bytes"),
            "2147483648");
  EXPECT_EQ(r.root().read_line(job.v1_dirs.at("memory") + "/memory.limit_in_bytes"),
            std::to_string(23849LL << 20));
  // Swap asked but the recorded kernel has no memsw files: say so.
  in.slot_virtual_kib = 4 << 20;
  st = cg.set_memory(job, memory_limits_compute(in));
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("swap"), std::string::npos);

  ASSERT_TRUE(cg.set_cpu_weight(job, 3).ok);
  EXPECT_EQ(r.root().read_line(job.v1_dirs.at("cpu") + "/cpu.shares"), "300");  // 100 x Cpus
  ASSERT_TRUE(cg.set_cpuset(job, {1}).ok);
  EXPECT_EQ(r.root().read_line(job.v1_dirs.at("cpuset") + "/cpuset.cpus"), "1");
  ASSERT_TRUE(cg.set_pids_max(job, 100).ok);
  EXPECT_EQ(r.root().read_line(job.v1_dirs.at("pids") + "/pids.max"), "100");

  r.put(job.v1_dirs.at("memory") + "/memory.usage_in_bytes", "52428800\n");
  r.put(job.v1_dirs.at("memory") + "/memory.max_usage_in_bytes", "73400320\n");
  r.put(job.v1_dirs.at("memory") + "/memory.memsw.usage_in_bytes", "53477376\n");
  r.put(job.v1_dirs.at("memory") + "/memory.oom_control",
        "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
  CgroupUsage u = cg.usage(job);
  EXPECT_EQ(u.memory_current, 52428800);
  EXPECT_EQ(u.memory_peak, 73400320);
  EXPECT_EQ(u.swap_current, 1048576);
  EXPECT_EQ(u.oom_kills, 2);
  ASSERT_TRUE(cg.destroy(&job).ok);
  EXPECT_FALSE(r.root().exists("/sys/fs/cgroup/memory/kite/slot1_1"));
  EXPECT_FALSE(r.root().exists("/sys/fs/cgroup/unified/kite/slot1_1"));
}

TEST(CgroupV1, PureV1FreezerAndCpuacct) {
  ScratchRoot r("generic-x86_64");
  // The same node without its cgroup2 mount: a plain v1 node.
  std::string mi;
  ASSERT_TRUE(r.root().read("/proc/self/mountinfo", &mi).ok);
  std::string v1;
  for (std::string_view line : split(mi, "\n")) {
    if (line.find("cgroup2") == std::string_view::npos) v1 += std::string(line) + "\n";
  }
  r.put("/proc/self/mountinfo", v1);
  CgroupLayout l = detect(r.root());
  EXPECT_EQ(l.mode, CgroupMode::kV1);
  EXPECT_EQ(l.where(CgroupFacility::kFreezer), CgroupPlace::kV1);
  EXPECT_EQ(l.where(CgroupFacility::kCpuAcct), CgroupPlace::kV1);
  Cgroups cg(r.root(), l, "kite");
  JobCgroup job;
  ASSERT_TRUE(cg.create("j", &job).ok);
  EXPECT_TRUE(job.v2_dir.empty());
  ASSERT_TRUE(cg.freeze(job).ok);
  EXPECT_EQ(r.root().read_line("/sys/fs/cgroup/freezer/kite/j/freezer.state"), "FROZEN");
  EXPECT_TRUE(cg.frozen(job));
  ASSERT_TRUE(cg.thaw(job).ok);
  EXPECT_EQ(r.root().read_line("/sys/fs/cgroup/freezer/kite/j/freezer.state"), "THAWED");
  // cpuacct.stat counts USER_HZ ticks.
  r.put("/sys/fs/cgroup/cpuacct/kite/j/cpuacct.stat", "user 150\nsystem 20\n");
  CgroupUsage u = cg.usage(job);
  long hz = sysconf(_SC_CLK_TCK);
  EXPECT_EQ(u.cpu_user_usec, 150 * (1000000 / hz));
  EXPECT_EQ(u.cpu_system_usec, 20 * (1000000 / hz));
  ASSERT_TRUE(cg.destroy(&job).ok);
}

TEST(MemoryPolicy, ReferenceArithmetic) {
  MemoryLimitInput in;
  in.slot_memory_mib = 1000;
  in.machine_memory_mib = 8000;
  in.slot_virtual_kib = 1500 * 1024;           // VirtualMemory is KiB, Memory MiB
  MemoryLimits l = memory_limits_compute(in);  // none
  EXPECT_EQ(l.hard, -1);
  EXPECT_EQ(l.soft, -1);
  EXPECT_EQ(l.swap, -1);
  in.policy = MemoryPolicy::kHard;
  l = memory_limits_compute(in);
  EXPECT_EQ(l.hard, 1000LL << 20);
  EXPECT_EQ(l.soft, (1000LL << 20) * 9 / 10);
  EXPECT_EQ(l.swap, 500LL << 20);  // VirtualMemory minus physical
  in.policy = MemoryPolicy::kSoft;
  l = memory_limits_compute(in);
  EXPECT_EQ(l.soft, 1000LL << 20);
  EXPECT_EQ(l.hard, 8000LL << 20);  // the whole startd
  in.disable_swap = true;
  EXPECT_EQ(memory_limits_compute(in).swap, 0);
  MemoryPolicy p;
  ASSERT_TRUE(memory_policy_parse("Hard", &p));
  EXPECT_EQ(p, MemoryPolicy::kHard);
  ASSERT_TRUE(memory_policy_parse("none", &p));
  EXPECT_EQ(p, MemoryPolicy::kNone);
  EXPECT_FALSE(memory_policy_parse("strict", &p));
}

TEST(CgroupConfig, FromBoardConfAndErrors) {
  config::Config cfg;
  ASSERT_TRUE(cfg.load_file(testing::board_dir("jetson-orin") + "/board.conf").ok);
  CgroupConfig c;
  ASSERT_TRUE(cgroup_config_read(cfg, &c).ok);
  EXPECT_EQ(c.policy, MemoryPolicy::kHard);
  EXPECT_TRUE(c.disable_swap);
  EXPECT_EQ(c.base, "kite.slice");
  config::Config empty;
  ASSERT_TRUE(cgroup_config_read(empty, &c).ok);
  EXPECT_EQ(c.policy, MemoryPolicy::kNone);  // the reference's default
  EXPECT_FALSE(c.disable_swap);
  config::Config bad;
  ASSERT_TRUE(bad.load_string("CGROUP_MEMORY_LIMIT_POLICY = strict\n").ok);
  Status st = cgroup_config_read(bad, &c);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("CGROUP_MEMORY_LIMIT_POLICY"), std::string::npos);
}

TEST(CgroupNames, BadNamesRefused) {
  ScratchRoot r("jetson-orin");
  Cgroups cg(r.root(), detect(r.root()), "kite.slice");
  JobCgroup job;
  EXPECT_FALSE(cg.create("../escape", &job).ok);
  EXPECT_FALSE(cg.create("", &job).ok);
  EXPECT_FALSE(cg.create("/abs", &job).ok);
}

}  // namespace
}  // namespace kite::hal
