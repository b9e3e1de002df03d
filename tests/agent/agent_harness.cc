// The agent integration tests' harness (see agent_harness.h).
#include "agent_harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <ctime>

#include "agent/core/files.h"
#include "agent/core/sock.h"

namespace kite::test {
namespace {

int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::vector<char*> c_argv(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (std::string& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int decode(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

std::atomic<int> g_counter{0};

}  // namespace

std::vector<std::string> kite_command() {
  std::vector<std::string> out;
  std::string s = KITE_BINARY;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(' ', i);
    if (j == std::string::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

CmdResult run_cmd(const std::vector<std::string>& argv_in, int timeout_ms) {
  CmdResult r;
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return r;
  std::vector<std::string> argv = argv_in;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    std::vector<char*> a = c_argv(argv);
    execvp(a[0], a.data());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  int64_t deadline = now_ms() + timeout_ms;
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    int64_t left = deadline - now_ms();
    if (left <= 0) break;
    if (poll(fds, 2, static_cast<int>(left)) <= 0) continue;
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP))) continue;
      char buf[4096];
      ssize_t n = read(fds[k].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[k].fd);
        fds[k].fd = -1;
        --open_fds;
      } else {
        (k == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  r.status = wait_bg(pid, static_cast<int>(std::max<int64_t>(deadline - now_ms(), 0)));
  return r;
}

pid_t spawn_bg(const std::vector<std::string>& argv_in, const std::string& out_file) {
  std::vector<std::string> argv = argv_in;
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    std::vector<char*> a = c_argv(argv);
    execvp(a[0], a.data());
    _exit(127);
  }
  return pid;
}

int wait_bg(pid_t pid, int timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  for (;;) {
    int st = 0;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return decode(st);
    if (r < 0) return -1;
    if (now_ms() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      return -1;
    }
    usleep(5000);
  }
}

bool wait_until(bool (*pred)(void*), void* arg, int timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  for (;;) {
    if (pred(arg)) return true;
    if (now_ms() >= deadline) return false;
    usleep(20000);
  }
}

std::string read_text(const std::string& path) {
  std::string s, err;
  core::read_file(path, &s, &err);
  return s;
}

namespace {

// Pids of processes whose command line (arguments joined by spaces) contains `needle`, at
// its start only when `at_start`.
std::vector<pid_t> pids_with(const std::string& needle, bool at_start) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  while (struct dirent* e = readdir(d)) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end || pid <= 0 || pid == getpid()) continue;
    std::string cmd = read_text("/proc/" + std::string(e->d_name) + "/cmdline");
    for (char& c : cmd) {
      if (c == '\0') c = ' ';
    }
    size_t at = cmd.find(needle);
    if (at != std::string::npos && (!at_start || at == 0)) out.push_back(static_cast<pid_t>(pid));
  }
  closedir(d);
  return out;
}

}  // namespace

std::vector<pid_t> pids_running(const std::string& prefix) {
  return pids_with(prefix, true);
}

char proc_state(pid_t pid) {
  std::string s = read_text("/proc/" + std::to_string(pid) + "/stat");
  size_t rp = s.rfind(')');
  if (rp == std::string::npos || rp + 2 >= s.size()) return 0;
  return s[rp + 2];
}

core::Json exit_json(const std::string& out) {
  std::string err;
  size_t brace = out.rfind("\n{");
  std::string line = brace == std::string::npos ? out : out.substr(brace + 1);
  while (!line.empty() && line.back() == '\n') line.pop_back();
  return core::json_parse(line, &err);
}

std::string agent_tests_unavailable() {
  if (geteuid() != 0) return "agent integration tests need root (slot user switch, cgroups)";
  return "";
}

TestAgent::TestAgent() {
  char tmpl[] = "/tmp/kite-agent-XXXXXX";
  const char* d = mkdtemp(tmpl);
  dir_ = d ? d : "/tmp/kite-agent-failed";
  chmod(dir_.c_str(), 0755);
  config_ = dir_ + "/kite.conf";
  base_ = "kite-test-" + std::to_string(getpid()) + "-" + std::to_string(++g_counter);
}

TestAgent::~TestAgent() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    wait_bg(pid_, 5000);
  }
  // Starters and jobs of this agent: everything that names its directory or lives in its
  // cgroups.
  for (int round = 0; round < 3; ++round) {
    for (pid_t p : pids_with(dir_, false)) kill(p, SIGKILL);
    for (const char* ctl : {"pids", "memory", "freezer", "cpu", "cpuacct", "cpuset", "unified"}) {
      std::string base = std::string("/sys/fs/cgroup/") + ctl + "/" + base_;
      DIR* d = opendir(base.c_str());
      if (!d) continue;
      while (struct dirent* e = readdir(d)) {
        if (e->d_type != DT_DIR || e->d_name[0] == '.') continue;
        std::string procs = read_text(base + "/" + e->d_name + "/cgroup.procs");
        size_t i = 0;
        while (i < procs.size()) {
          pid_t p = static_cast<pid_t>(std::strtol(procs.c_str() + i, nullptr, 10));
          if (p > 0) kill(p, SIGKILL);
          size_t nl = procs.find('\n', i);
          if (nl == std::string::npos) break;
          i = nl + 1;
        }
        if (std::string(ctl) == "freezer")
          core::write_file_atomic(base + "/" + e->d_name + "/freezer.state", "THAWED", 0644,
                                  nullptr);
        usleep(20000);
        rmdir((base + "/" + e->d_name).c_str());
      }
      closedir(d);
      rmdir(base.c_str());
    }
  }
  std::string err;
  core::remove_tree(dir_, &err);
}

bool TestAgent::start(const std::string& extra, std::string* err) {
  std::string starter;
  for (const std::string& w : kite_command()) starter += (starter.empty() ? "" : " ") + w;
  std::string conf =
      "# written by the agent test harness\n"
      "LOCAL_DIR = " +
      dir_ +
      "/local\n"
      "BASE_CGROUP = " +
      base_ +
      "\n"
      "STARTER = " +
      starter +
      "\n"
      "MEMORY = 4096\n"
      "POLLING_INTERVAL = 1\n"
      "STARTER_INITIAL_UPDATE_INTERVAL = 1\n"
      "STARTER_UPDATE_INTERVAL = 1\n"
      "AGENT_LOG = " +
      dir_ + "/agent.log\n" + extra + "\n";
  std::string e;
  if (!core::write_file_atomic(config_, conf, 0644, &e)) {
    *err = e;
    return false;
  }
  return restart(err);
}

bool TestAgent::restart(std::string* err) {
  std::vector<std::string> argv = kite_command();
  argv.insert(argv.end(), {"agent", "-c", config_, "--foreground"});
  pid_ = spawn_bg(argv, dir_ + "/agent.out");
  std::string sock = dir_ + "/local/agent.sock";
  bool up = eventually(
      [&] {
        std::string e;
        int fd = core::unix_connect(sock, &e);
        if (fd < 0) return false;
        close(fd);
        return true;
      },
      15000);
  if (!up) {
    *err = "agent did not come up:\n" + read_text(dir_ + "/agent.out") + log();
    return false;
  }
  return true;
}

void TestAgent::kill9() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  wait_bg(pid_, 5000);
  pid_ = -1;
}

int TestAgent::stop() {
  if (pid_ <= 0) return -1;
  kite({"off", "--local", "-fast"}, 10000);
  int rc = wait_bg(pid_, 15000);
  pid_ = -1;
  return rc;
}

int TestAgent::wait_exit(int timeout_ms) {
  if (pid_ <= 0) return -1;
  int rc = wait_bg(pid_, timeout_ms);
  pid_ = -1;
  return rc;
}

CmdResult TestAgent::kite(std::vector<std::string> args, int timeout_ms) const {
  std::vector<std::string> argv = kite_command();
  // -c goes right after the subcommand: `kite run` passes everything after `--` to the job.
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end() - static_cast<long>(args.size()) + (args.empty() ? 0 : 1),
              {"-c", config_});
  return run_cmd(argv, timeout_ms);
}

pid_t TestAgent::run_bg(const std::vector<std::string>& run_args,
                        const std::string& out_file) const {
  std::vector<std::string> argv = kite_command();
  argv.insert(argv.end(), {"run", "--local", "-c", config_, "--json"});
  argv.insert(argv.end(), run_args.begin(), run_args.end());
  return spawn_bg(argv, out_file);
}

std::string TestAgent::slot_attr(const std::string& slot, const std::string& attr) const {
  CmdResult r = kite({"status", "--local", "-l"});
  // Ads are separated by blank lines; find the one whose Name starts with the slot.
  size_t start = 0;
  while (start < r.out.size()) {
    size_t end = r.out.find("\n\n", start);
    if (end == std::string::npos) end = r.out.size();
    std::string ad = "\n" + r.out.substr(start, end - start) + "\n";
    if (ad.find("\nName = \"" + slot + "@") != std::string::npos) {
      std::string key = "\n" + attr + " = ";
      size_t at = ad.find(key);
      if (at == std::string::npos) return "";
      size_t vs = at + key.size();
      return ad.substr(vs, ad.find('\n', vs) - vs);
    }
    start = end + 2;
  }
  return "";
}

std::string TestAgent::slot_state(const std::string& slot) const {
  std::string st = slot_attr(slot, "State"), act = slot_attr(slot, "Activity");
  if (st.size() < 2 || act.size() < 2) return "";
  return st.substr(1, st.size() - 2) + "/" + act.substr(1, act.size() - 2);
}

std::string TestAgent::log() const {
  return read_text(dir_ + "/agent.log");
}

}  // namespace kite::test
