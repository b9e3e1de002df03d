// Integration tests on this machine's REAL cgroups (root needed; each test skips with the
// reason where the kernel refuses): a job cgroup with a process in it, an OOM-killed memory
// hog and its event, freeze/thaw (v2 cgroup.freeze and v1 freezer), killing a forking tree
// completely (cgroup.kill and signal-every-pid), usage and limits read back from the kernel.
// Every cgroup and process a test creates is removed in TearDown, also when it fails.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "hal/cgroup.h"

namespace kite::hal {
namespace {

void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

// The state letter of /proc/<pid>/stat (after the parenthesised command name).
char proc_state(pid_t pid) {
  std::string s;
  if (!Root("/").read("/proc/" + std::to_string(pid) + "/stat", &s).ok) return '?';
  size_t p = s.rfind(')');
  return p == std::string::npos || p + 2 >= s.size() ? '?' : s[p + 2];
}

class LiveCgroup : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "cgroup integration tests need root";
    Status st = cgroup_detect(root_, &layout_);
    if (!st.ok || layout_.mode == CgroupMode::kNone) {
      GTEST_SKIP() << "no cgroup filesystem on this machine: " << st.message;
    }
    base_ = "kite-test-" + std::to_string(getpid());
    // Orphans of the fork-storm tests become our children, so TearDown reaps every process.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
  }

  // Creates the job cgroup with `layout` (default: the detected one); skips if refused.
  bool make_job(const char* name = "job") {
    cg_ = std::make_unique<Cgroups>(root_, layout_, base_);
    Status st = cg_->create(name, &job_);
    made_ = true;
    if (!st.ok) {
      skip_reason_ = "cgroups not writable here: " + st.message;
      return false;
    }
    return true;
  }

  void TearDown() override {
    for (pid_t p : children_) {
      ::kill(p, SIGKILL);
      int status;
      while (waitpid(p, &status, 0) < 0 && errno == EINTR) {
      }
    }
    if (!made_) return;
    if (cg_) {
      cg_->thaw(job_);
      cg_->destroy(&job_);
    }
    // Reap what the job's processes left to us (killed above); stop when none is left.
    for (int i = 0; i < 400; ++i) {
      pid_t r = waitpid(-1, nullptr, WNOHANG);
      if (r < 0) break;         // ECHILD: no children at all
      if (r == 0) sleep_ms(5);  // some still exiting
    }
    // The base directories, deepest hierarchy first.
    std::vector<std::string> dirs;
    if (!layout_.v2_mount.empty()) dirs.push_back(layout_.v2_mount + "/" + base_);
    for (const auto& [ctl, mount] : layout_.v1_mounts) dirs.push_back(mount + "/" + base_);
    for (const std::string& d : dirs) {
      for (const std::string& n : root_.list(d)) {
        if (root_.is_dir(d + "/" + n)) ::rmdir((d + "/" + n).c_str());
      }
      ::rmdir(d.c_str());
    }
  }

  // A child that waits for start(), then runs `body` and exits.
  struct Child {
    pid_t pid = -1;
    int go = -1;
  };
  template <typename F>
  Child spawn(F body) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) return {};
    pid_t pid = fork();
    if (pid == 0) {
      ::close(p[1]);
      char c;
      while (::read(p[0], &c, 1) < 0 && errno == EINTR) {
      }
      body();
      _exit(0);
    }
    ::close(p[0]);
    if (pid > 0) children_.push_back(pid);
    return {pid, p[1]};
  }
  void start(Child* c) {
    ASSERT_EQ(::write(c->go, "x", 1), 1);
    ::close(c->go);
    c->go = -1;
  }
  // waitpid for a child of ours; forgets it.
  int reap(pid_t pid, int timeout_ms) {
    int status = 0;
    for (int waited = 0; waited <= timeout_ms; waited += 5) {
      pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid) {
        children_.erase(std::find(children_.begin(), children_.end(), pid));
        return status;
      }
      sleep_ms(5);
    }
    return -1;
  }

  Root root_{"/"};
  CgroupLayout layout_;
  std::string base_;
  std::unique_ptr<Cgroups> cg_;
  JobCgroup job_;
  bool made_ = false;
  std::string skip_reason_;
  std::vector<pid_t> children_;
};

#define MAKE_JOB_OR_SKIP(...)                                 \
  do {                                                        \
    if (!make_job(__VA_ARGS__)) GTEST_SKIP() << skip_reason_; \
  } while (0)

TEST_F(LiveCgroup, ProcessJoinsEveryHierarchyAndDestroyRemovesAll) {
  MAKE_JOB_OR_SKIP();
  Child c = spawn([] {
    for (;;) pause();
  });
  ASSERT_GT(c.pid, 0);
  ASSERT_TRUE(cg_->add_pid(job_, c.pid).ok);
  start(&c);
  EXPECT_EQ(cg_->procs(job_), (std::vector<pid_t>{c.pid}));
  std::string membership;
  ASSERT_TRUE(root_.read("/proc/" + std::to_string(c.pid) + "/cgroup", &membership).ok);
  std::string rel = "/" + base_ + "/job";
  if (!job_.v2_dir.empty()) {
    EXPECT_NE(membership.find("0::" + rel + "\n"), std::string::npos) << membership;
  }
  if (job_.v1_dirs.count("memory")) {
    EXPECT_NE(membership.find(":memory:" + rel + "\n"), std::string::npos) << membership;
  }
  std::vector<std::string> dirs;
  if (!job_.v2_dir.empty()) dirs.push_back(job_.v2_dir);
  for (const auto& [ctl, d] : job_.v1_dirs) dirs.push_back(d);
  ASSERT_TRUE(cg_->destroy(&job_).ok);
  int status = reap(c.pid, 2000);
  ASSERT_NE(status, -1);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  for (const std::string& d : dirs) EXPECT_FALSE(root_.exists(d)) << d;
}

TEST_F(LiveCgroup, MemoryHogIsOomKilledAndTheEventArrives) {
  if (layout_.where(CgroupFacility::kMemory) == CgroupPlace::kNone) {
    GTEST_SKIP() << "no memory controller on this machine";
  }
  MAKE_JOB_OR_SKIP();
  MemoryLimitInput in;
  in.policy = MemoryPolicy::kHard;
  in.slot_memory_mib = 64;
  in.machine_memory_mib = 64;
  in.disable_swap = true;
  Status st = cg_->set_memory(job_, memory_limits_compute(in));
  if (!st.ok) GTEST_SKIP() << "kernel refused the memory limit: " << st.message;
  OomWatch w;
  st = cg_->oom_watch(job_, &w);
  ASSERT_TRUE(st.ok) << st.message;
  Child c = spawn([] {
    const size_t size = 512u << 20;
    char* p = static_cast<char*>(
        mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (p == MAP_FAILED) _exit(3);
    for (size_t i = 0; i < size; i += 4096) p[i] = 1;
    _exit(0);  // survived: the limit did not hold
  });
  ASSERT_TRUE(cg_->add_pid(job_, c.pid).ok);
  start(&c);
  struct pollfd p = {w.fd, POLLIN, 0};
  int rc = poll(&p, 1, 20000);
  EXPECT_EQ(rc, 1) << "no OOM event within 20 s";
  EXPECT_GE(cgroup_oom_read(root_, &w), 1);
  int status = reap(c.pid, 5000);
  ASSERT_NE(status, -1);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
  EXPECT_GE(cg_->usage(job_).oom_kills, 1);
  cgroup_oom_close(&w);
}

// A child spinning on a shared counter: frozen means the counter stops.
void freeze_thaw(LiveCgroup* t, Cgroups* cg, const JobCgroup& job, pid_t pid,
                 std::atomic<uint64_t>* counter) {
  for (int i = 0; i < 400 && counter->load() == 0; ++i) sleep_ms(5);
  ASSERT_GT(counter->load(), 0u) << "child never ran";
  Status st = cg->freeze(job);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_TRUE(cg->frozen(job));
  // Measured on this kernel (6.18): v2-frozen tasks show S, v1-frozen D; never R.
  char state = proc_state(pid);
  EXPECT_NE(state, 'R') << "state " << state;
  uint64_t a = counter->load();
  sleep_ms(150);
  EXPECT_EQ(counter->load(), a) << "counter moved while frozen";
  ASSERT_TRUE(cg->thaw(job).ok);
  uint64_t b = counter->load();
  for (int i = 0; i < 400 && counter->load() == b; ++i) sleep_ms(5);
  EXPECT_GT(counter->load(), b) << "counter did not move after thaw";
  EXPECT_FALSE(cg->frozen(job));
  (void)t;
}

std::atomic<uint64_t>* shared_counter() {
  void* m = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  return m == MAP_FAILED ? nullptr : new (m) std::atomic<uint64_t>(0);
}

TEST_F(LiveCgroup, FreezeAndThawWithTheDetectedFreezer) {
  if (layout_.where(CgroupFacility::kFreezer) == CgroupPlace::kNone) GTEST_SKIP() << "no freezer";
  MAKE_JOB_OR_SKIP();
  std::atomic<uint64_t>* counter = shared_counter();
  ASSERT_NE(counter, nullptr);
  Child c = spawn([counter] {
    for (;;) counter->fetch_add(1);
  });
  ASSERT_TRUE(cg_->add_pid(job_, c.pid).ok);
  start(&c);
  freeze_thaw(this, cg_.get(), job_, c.pid, counter);
  munmap(counter, 4096);
}

TEST_F(LiveCgroup, FreezeAndThawWithTheV1Freezer) {
  if (!layout_.v1_mounts.count("freezer"))
    GTEST_SKIP() << "no v1 freezer hierarchy on this machine";
  layout_.place[static_cast<int>(CgroupFacility::kFreezer)] = CgroupPlace::kV1;
  MAKE_JOB_OR_SKIP();
  job_.v2_freeze = false;  // force freezer.state
  ASSERT_TRUE(job_.v1_dirs.count("freezer"));
  std::atomic<uint64_t>* counter = shared_counter();
  ASSERT_NE(counter, nullptr);
  Child c = spawn([counter] {
    for (;;) counter->fetch_add(1);
  });
  ASSERT_TRUE(cg_->add_pid(job_, c.pid).ok);
  start(&c);
  freeze_thaw(this, cg_.get(), job_, c.pid, counter);
  EXPECT_EQ(root_.read_line(job_.v1_dirs.at("freezer") + "/freezer.state"), "THAWED");
  munmap(counter, 4096);
}

// Every process keeps forking (bounded by pids.max): kill_all must still empty the cgroup.
void fork_forever() {
  for (;;) {
    pid_t p = fork();
    if (p < 0) {
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, nullptr);
    } else if (p > 0) {
      struct timespec ts = {0, 2000000};
      nanosleep(&ts, nullptr);
    }
  }
}

void kill_tree(LiveCgroup* t, Cgroups* cg, const JobCgroup& job) {
  size_t n = 0;
  for (int i = 0; i < 400 && (n = cg->procs(job).size()) < 10; ++i) sleep_ms(5);
  ASSERT_GE(n, 10u) << "the tree did not grow";
  Status st = cg->kill_all(job, 5000);
  ASSERT_TRUE(st.ok) << st.message;
  EXPECT_TRUE(cg->procs(job).empty());
  (void)t;
}

TEST_F(LiveCgroup, KillAllEmptiesAForkingTree) {
  MAKE_JOB_OR_SKIP();
  Status st = cg_->set_pids_max(job_, 64);
  if (!st.ok) GTEST_SKIP() << "no pids limit, refusing to run a fork storm: " << st.message;
  Child c = spawn(fork_forever);
  ASSERT_TRUE(cg_->add_pid(job_, c.pid).ok);
  start(&c);
  kill_tree(this, cg_.get(), job_);
  EXPECT_NE(reap(c.pid, 2000), -1);
}

TEST_F(LiveCgroup, KillAllBySignallingEveryPid) {
  MAKE_JOB_OR_SKIP();
  job_.v2_kill = false;  // as on kernels before 5.14 or v1-only nodes
  Status st = cg_->set_pids_max(job_, 64);
  if (!st.ok) GTEST_SKIP() << "no pids limit, refusing to run a fork storm: " << st.message;
  Child c = spawn(fork_forever);
  ASSERT_TRUE(cg_->add_pid(job_, c.pid).ok);
  start(&c);
  kill_tree(this, cg_.get(), job_);
  EXPECT_NE(reap(c.pid, 2000), -1);
}

// The loop-friendly form: kill_step() returns at once; the caller polls is_empty() with its
// own deadline (stepping again without cgroup.kill) and then remove()s the directories.
void step_until_empty_and_remove(Cgroups* cg, JobCgroup* job) {
  size_t n = 0;
  for (int i = 0; i < 400 && (n = cg->procs(*job).size()) < 10; ++i) sleep_ms(5);
  ASSERT_GE(n, 10u) << "the tree did not grow";
  std::string dir = job->v2_dir.empty() ? job->v1_dirs.begin()->second : job->v2_dir;
  ASSERT_TRUE(cg->kill_step(*job).ok);
  bool empty = false;
  for (int i = 0; i < 1000 && !(empty = cg->is_empty(*job)); ++i) {
    if (!job->v2_kill) {
      ASSERT_TRUE(cg->kill_step(*job).ok);
    }
    sleep_ms(5);
  }
  ASSERT_TRUE(empty) << cg->procs(*job).size() << " process(es) left";
  bool busy = true;
  for (int i = 0; i < 100 && busy; ++i) {
    Status st = cg->remove(job, &busy);
    ASSERT_TRUE(st.ok) << st.message;
    if (busy) sleep_ms(5);
  }
  EXPECT_FALSE(busy);
  EXPECT_TRUE(job->v2_dir.empty());
  EXPECT_TRUE(job->v1_dirs.empty());
  EXPECT_FALSE(Root("/").exists(dir)) << dir;
}

TEST_F(LiveCgroup, KillStepThenPollEmptiesAndRemovesAForkingTree) {
  MAKE_JOB_OR_SKIP();
  Status st = cg_->set_pids_max(job_, 64);
  if (!st.ok) GTEST_SKIP() << "no pids limit, refusing to run a fork storm: " << st.message;
  Child c = spawn(fork_forever);
  ASSERT_TRUE(cg_->add_pid(job_, c.pid).ok);
  start(&c);
  step_until_empty_and_remove(cg_.get(), &job_);
  EXPECT_NE(reap(c.pid, 2000), -1);
}

TEST_F(LiveCgroup, KillStepBySignallingEveryPid) {
  MAKE_JOB_OR_SKIP();
  job_.v2_kill = false;  // as on kernels before 5.14 or v1-only nodes
  Status st = cg_->set_pids_max(job_, 64);
  if (!st.ok) GTEST_SKIP() << "no pids limit, refusing to run a fork storm: " << st.message;
  Child c = spawn(fork_forever);
  ASSERT_TRUE(cg_->add_pid(job_, c.pid).ok);
  start(&c);
  step_until_empty_and_remove(cg_.get(), &job_);
  EXPECT_NE(reap(c.pid, 2000), -1);
}

// GPU isolation's mechanism on a real v1 devices controller, with /dev/full standing in for an
// unassigned /dev/nvidiaN: a process in the job cannot open it; other devices still open.
TEST_F(LiveCgroup, DeniedDeviceCannotBeOpenedFromTheJob) {
  if (!layout_.v1_mounts.count("devices")) {
    GTEST_SKIP() << "no v1 devices controller here (a v2-only kernel needs a BPF device filter)";
  }
  MAKE_JOB_OR_SKIP();
  Status st = cg_->deny_devices(&job_, {"/dev/full", "/dev/does-not-exist"});
  ASSERT_TRUE(st.ok) << st.message;
  ASSERT_TRUE(job_.v1_dirs.count("devices"));
  int result[2];
  ASSERT_EQ(pipe2(result, O_CLOEXEC), 0);
  Child c = spawn([&result] {
    int full = ::open("/dev/full", O_RDONLY);
    char r[2] = {full < 0 && errno == EPERM ? 'D' : 'O', 0};
    int null = ::open("/dev/null", O_RDONLY);
    r[1] = null >= 0 ? 'O' : 'D';
    (void)!::write(result[1], r, 2);
  });
  ASSERT_TRUE(cg_->add_pid(job_, c.pid).ok);
  start(&c);
  ::close(result[1]);
  char r[2] = {0, 0};
  ASSERT_EQ(::read(result[0], r, 2), 2);
  ::close(result[0]);
  EXPECT_EQ(r[0], 'D') << "/dev/full was opened despite devices.deny";
  EXPECT_EQ(r[1], 'O') << "/dev/null was denied too";
  EXPECT_NE(reap(c.pid, 2000), -1);
  EXPECT_FALSE(cg_->deny_devices(&job_, {"/etc/passwd"}).ok);  // not a device node
}

TEST_F(LiveCgroup, UsageOfABusyJob) {
  MAKE_JOB_OR_SKIP();
  int done[2];
  ASSERT_EQ(pipe2(done, O_CLOEXEC), 0);
  Child c = spawn([&done] {
    // 300 ms of CPU, then 32 MiB touched, then wait to be killed.
    struct timespec t0, t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    do {
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 300);
    const size_t size = 32u << 20;
    char* p = static_cast<char*>(
        mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (p != MAP_FAILED) std::memset(p, 1, size);
    if (::write(done[1], "d", 1) != 1) _exit(4);
    for (;;) pause();
  });
  ::close(done[1]);
  ASSERT_TRUE(cg_->add_pid(job_, c.pid).ok);
  start(&c);
  char ch;
  struct pollfd p = {done[0], POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 10000), 1);
  ASSERT_EQ(::read(done[0], &ch, 1), 1);
  ::close(done[0]);
  CgroupUsage u = cg_->usage(job_);
  if (layout_.where(CgroupFacility::kCpuAcct) != CgroupPlace::kNone) {
    EXPECT_GE(u.cpu_user_usec + u.cpu_system_usec, 250000)
        << u.cpu_user_usec << " " << u.cpu_system_usec;
  }
  if (layout_.where(CgroupFacility::kMemory) != CgroupPlace::kNone) {
    EXPECT_GE(u.memory_current, 32 << 20);
    EXPECT_GE(u.memory_peak, 32 << 20);
    EXPECT_GE(u.swap_current, 0);
  }
  EXPECT_EQ(u.pids_current, 1);
}

TEST_F(LiveCgroup, LimitsReadBackFromTheKernel) {
  MAKE_JOB_OR_SKIP();
  if (layout_.where(CgroupFacility::kCpu) != CgroupPlace::kNone) {
    ASSERT_TRUE(cg_->set_cpu_weight(job_, 2).ok);
    bool v2 = layout_.where(CgroupFacility::kCpu) == CgroupPlace::kV2;
    std::string d = v2 ? job_.v2_dir : job_.v1_dirs.at("cpu");
    EXPECT_EQ(root_.read_line(d + (v2 ? "/cpu.weight" : "/cpu.shares")), "200");
  }
  if (layout_.where(CgroupFacility::kPids) != CgroupPlace::kNone) {
    ASSERT_TRUE(cg_->set_pids_max(job_, 50).ok);
    bool v2 = layout_.where(CgroupFacility::kPids) == CgroupPlace::kV2;
    EXPECT_EQ(root_.read_line((v2 ? job_.v2_dir : job_.v1_dirs.at("pids")) + "/pids.max"), "50");
  }
  if (layout_.where(CgroupFacility::kCpuset) != CgroupPlace::kNone) {
    ASSERT_TRUE(cg_->set_cpuset(job_, {0}).ok);
    bool v2 = layout_.where(CgroupFacility::kCpuset) == CgroupPlace::kV2;
    EXPECT_EQ(root_.read_line((v2 ? job_.v2_dir : job_.v1_dirs.at("cpuset")) + "/cpuset.cpus"),
              "0");
  }
  if (layout_.where(CgroupFacility::kMemory) == CgroupPlace::kV1) {
    MemoryLimitInput in;
    in.policy = MemoryPolicy::kHard;
    in.slot_memory_mib = 256;
    in.disable_swap = true;
    MemoryLimits lim = memory_limits_compute(in);
    Status st = cg_->set_memory(job_, lim);
    ASSERT_TRUE(st.ok) << st.message;
    const std::string& d = job_.v1_dirs.at("memory");
    int64_t v = 0;
    ASSERT_TRUE(root_.read_int(d + "/memory.limit_in_bytes", &v));
    EXPECT_EQ(v, 256LL << 20);
    // cgroup-v1/memory.rst: limits are rounded to the page size.
    ASSERT_TRUE(root_.read_int(d + "/memory.soft_limit_in_bytes", &v));
    EXPECT_LT(std::llabs(v - lim.soft), 4096);
    if (root_.exists(d + "/memory.memsw.limit_in_bytes")) {
      ASSERT_TRUE(root_.read_int(d + "/memory.memsw.limit_in_bytes", &v));
      EXPECT_EQ(v, 256LL << 20);  // no swap on top
    }
  }
}

}  // namespace
}  // namespace kite::hal
