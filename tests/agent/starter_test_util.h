// Test harness for the starter: a temp directory per test, job.json written from a JSON
// object, `kite starter --dir` spawned as a real process, agent connections on DIR/sock with
// agent/core/sock.h, and cleanup of every process and cgroup a test leaves (also on failure).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "agent/core/files.h"
#include "agent/core/frame.h"
#include "agent/core/sock.h"
#include "hal/cgroup.h"

namespace kite::starter::test {

inline void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

inline int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

inline std::string slurp(const std::string& path) {
  std::string s;
  core::read_file(path, &s, nullptr);
  return s;
}

inline void spit(const std::string& path, const std::string& text, int mode = 0644) {
  std::string err;
  ASSERT_TRUE(core::write_file_atomic(path, text, mode, &err)) << err;
  ::chmod(path.c_str(), static_cast<mode_t>(mode));
}

// True while `pid` exists and is not a zombie.
inline bool alive(pid_t pid) {
  if (pid <= 0) return false;
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  size_t p = stat.rfind(')');
  return p != std::string::npos && p + 2 < stat.size() && stat[p + 2] != 'Z' && stat[p + 2] != 'X';
}

inline bool wait_until(int timeout_ms, const std::function<bool()>& f) {
  int64_t end = now_ms() + timeout_ms;
  while (now_ms() < end) {
    if (f()) return true;
    sleep_ms(20);
  }
  return f();
}

/// One agent connection.
struct Agent {
  int fd = -1;
  core::FrameReader reader;
  ~Agent() { close(); }
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  bool send(const core::Json& m) {
    std::string err;
    return core::send_frame(fd, m, &err);
  }
  bool send_type(const char* type) { return send(core::Json::message(type)); }
  /// The next frame of `type` (others skipped) within `timeout_ms`; empty Json on timeout.
  core::Json expect(const std::string& type, int timeout_ms = 5000) {
    int64_t end = now_ms() + timeout_ms;
    for (;;) {
      int left = static_cast<int>(end - now_ms());
      if (left <= 0) return core::Json();
      core::Json m;
      std::string err;
      core::FrameReader::Result r = core::recv_frame(fd, &reader, &m, left, &err);
      if (r == core::FrameReader::Result::kNeedMore) return core::Json();
      if (r == core::FrameReader::Result::kError) {
        ADD_FAILURE() << "waiting for '" << type << "': " << err;
        return core::Json();
      }
      if (m.type() == type) return m;
      if (m.type() == "error")
        ADD_FAILURE() << "error frame while waiting for " << type << ": " << m.dump();
    }
  }
};

inline const cJSON* obj(const core::Json& j, const char* key) {
  return j.child(key);
}
/// A field of the "exit" object of an exit or hello frame, as a Json view (not owned).
inline core::Json exit_of(const core::Json& frame) {
  const cJSON* e = frame.child("exit");
  return core::Json(e ? cJSON_Duplicate(e, true) : nullptr);
}

class StarterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kite-starter-XXXXXX";
    const char* d = mkdtemp(tmpl);
    ASSERT_NE(d, nullptr);
    root_ = d;
    // Slot users must be able to reach EXECUTE (and the hooks) under it.
    ::chmod(root_.c_str(), 0755);
    dir_ = root_ + "/s";
    execute_ = root_ + "/execute";
    ASSERT_EQ(::mkdir(dir_.c_str(), 0700), 0);
    static int counter = 0;
    base_ = "kite-test-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
    is_root_ = geteuid() == 0;
  }

  void TearDown() override {
    if (starter_ > 0) {
      ::kill(starter_, SIGKILL);
      int st;
      waitpid(starter_, &st, 0);
    }
    cleanup_cgroups();
    std::string err;
    core::remove_tree(root_, &err);
  }

  // Removes base_ in every hierarchy, killing what is left in it.
  void cleanup_cgroups() {
    hal::Root root("/");
    hal::CgroupLayout layout;
    if (!hal::cgroup_detect(root, &layout).ok) return;
    hal::Cgroups cg(root, layout, base_);
    std::vector<std::string> bases;
    if (!layout.v2_mount.empty()) bases.push_back(layout.v2_mount + "/" + base_);
    for (const auto& [ctl, mount] : layout.v1_mounts) bases.push_back(mount + "/" + base_);
    bool any = false;
    for (const std::string& b : bases) any = any || root.is_dir(b);
    if (!any) return;
    for (const std::string& b : bases) {
      for (const std::string& n : root.list(b)) {
        if (!root.is_dir(b + "/" + n)) continue;
        hal::JobCgroup job;
        if (cg.create(n, &job).ok) {
          cg.thaw(job);
          cg.destroy(&job);
        }
      }
    }
    for (const std::string& b : bases) ::rmdir(b.c_str());
  }

  /// Whether this machine lets us make job cgroups (root, a cgroup fs, writable).
  bool cgroups_usable(std::string* why) {
    if (!is_root_) {
      *why = "cgroup tests need root";
      return false;
    }
    hal::Root root("/");
    hal::CgroupLayout layout;
    hal::Status st = hal::cgroup_detect(root, &layout);
    if (!st.ok || layout.mode == hal::CgroupMode::kNone) {
      *why = "no cgroup filesystem: " + st.message;
      return false;
    }
    hal::Cgroups cg(root, layout, base_);
    hal::JobCgroup job;
    st = cg.create("probe", &job);
    if (!st.ok) {
      *why = "cgroups not writable here: " + st.message;
      cg.destroy(&job);
      return false;
    }
    cg.destroy(&job);
    layout_ = layout;
    return true;
  }

  /// job.json with the defaults every test uses; `job` is the job ad.
  core::Json job_json(core::Json job, bool cgroups = true) {
    core::Json j = core::Json::object();
    j.set("slot", "slot1_1").set("claim_id", "claim-1");
    j.set_json("job", std::move(job));
    j.set_real("cpus", 1.0).set("memory_mb", 256).set("total_memory_mb", 1024);
    j.set("execute", execute_);
    j.set("cgroup_base", cgroups ? base_ : std::string());
    // Without cgroups no memory limit can be applied, and a configured one would hold the job.
    j.set("cgroup_root", "/").set("memory_policy", cgroups ? "hard" : "none");
    // Unprivileged, the job can only run as ourselves (named by uid).
    j.set("slot_user", is_root_ ? std::string("nobody") : std::to_string(geteuid()));
    j.set("lease", 30).set("update_interval", 1).set("initial_update_interval", 1);
    j.set("hook_timeout", 10).set("return_output", 4096);
    return j;
  }

  static core::Json sh_job(const std::string& script) {
    core::Json job = core::Json::object();
    job.set("Cmd", "/bin/sh");
    // New-syntax arguments: the script in single quotes ('' for a literal ').
    std::string quoted;
    for (char c : script) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    job.set("Arguments", "-c '" + quoted + "'");
    return job;
  }

  void write_job(const core::Json& j) { spit(dir_ + "/job.json", j.dump()); }

  /// Spawns `kite starter --dir DIR`, its stdout/stderr to ROOT/starter.out.
  pid_t spawn_starter(const std::string& dir) {
    std::vector<std::string> words;
    std::istringstream in(KITE_BINARY);
    for (std::string w; in >> w;) words.push_back(w);
    words.push_back("starter");
    words.push_back("--dir");
    words.push_back(dir);
    std::string out = root_ + "/starter.out";
    pid_t pid = fork();
    if (pid == 0) {
      int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
      setsid();  // as the agent spawns it: detached
      std::vector<char*> argv;
      for (std::string& w : words) argv.push_back(w.data());
      argv.push_back(nullptr);
      execvp(argv[0], argv.data());  // argv[0] may be an emulator found on PATH
      _exit(127);
    }
    return pid;
  }
  void start() { starter_ = spawn_starter(dir_); }

  /// Connects to DIR/sock (retrying while the starter comes up) and reads the hello.
  std::unique_ptr<Agent> connect(core::Json* hello = nullptr) {
    auto a = std::make_unique<Agent>();
    std::string err;
    wait_until(5000, [&] {
      a->fd = core::unix_connect(dir_ + "/sock", &err);
      return a->fd >= 0;
    });
    EXPECT_GE(a->fd, 0) << err << "\n"
                        << slurp(root_ + "/starter.out") << slurp(dir_ + "/starter.log");
    if (a->fd < 0) return a;
    core::Json h = a->expect("hello");
    EXPECT_TRUE(h) << "no hello";
    if (hello) *hello = std::move(h);
    return a;
  }

  /// Waits for the starter to exit; its exit status, or -1 on timeout.
  int wait_starter(int timeout_ms = 5000) {
    int st = 0;
    bool done = wait_until(timeout_ms, [&] { return waitpid(starter_, &st, WNOHANG) == starter_; });
    if (!done) return -1;
    starter_ = -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }

  /// Release after the exit: the starter cleans up and exits 0.
  void release(Agent* a) {
    ASSERT_TRUE(a->send_type("release"));
    EXPECT_EQ(wait_starter(), 0) << log();
    struct stat sb;
    EXPECT_NE(::stat(dir_.c_str(), &sb), 0) << "DIR still there after release";
  }

  std::string log() { return slurp(dir_ + "/starter.log") + slurp(root_ + "/starter.out"); }

  std::string root_, dir_, execute_, base_;
  bool is_root_ = false;
  pid_t starter_ = -1;
  hal::CgroupLayout layout_;
};

}  // namespace kite::starter::test
