// fork/clone + exec of the job, with every preparation done before the fork so that the
// child only makes system calls.
#include "agent/starter/launch.h"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kite::starter {
namespace {

enum Stage : int { kCgroup = 1, kSession, kUser, kIwd, kIn, kOut, kErr, kExec };

struct ChildReport {
  int stage;
  int err;
};

[[noreturn]] void child_fail(int fd, Stage stage) {
  ChildReport r{stage, errno};
  ssize_t w = ::write(fd, &r, sizeof r);
  (void)w;
  _exit(127);
}

void close_other_fds(int keep) {
  // close_range(2) where the kernel has it, else one by one.
#ifdef SYS_close_range
  bool ok = keep <= 3 || syscall(SYS_close_range, 3u, static_cast<unsigned>(keep - 1), 0u) == 0;
  if (ok && syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u) == 0) return;
#endif
  for (int fd = 3; fd < 4096; ++fd) {
    if (fd != keep) ::close(fd);
  }
}

int open_std(const char* path, int flags, int target) {
  int fd = ::open(path, flags | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  if (fd == target) return ::fcntl(fd, F_SETFD, 0) == 0 ? 0 : -1;
  int r = ::dup2(fd, target);
  ::close(fd);
  return r < 0 ? -1 : 0;
}

// Runs in the child: system calls only, on data prepared by the parent.
[[noreturn]] void child_main(const LaunchSpec& s, char* const* argv, char* const* envp,
                             const gid_t* groups, int report_fd) {
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  for (const std::string& f : s.cgroup_procs) {
    int fd = ::open(f.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) child_fail(report_fd, kCgroup);
    // "0" is the writing process itself, which also holds in a new PID namespace.
    if (::write(fd, "0", 1) != 1) child_fail(report_fd, kCgroup);
    ::close(fd);
  }
  if (::setsid() < 0) child_fail(report_fd, kSession);
  if (s.change_user) {
    if (::setgroups(s.groups.size(), groups) != 0 || ::setgid(s.gid) != 0 || ::setuid(s.uid) != 0) {
      child_fail(report_fd, kUser);
    }
  }
  if (::chdir(s.iwd.c_str()) != 0) child_fail(report_fd, kIwd);
  if (open_std(s.in.c_str(), O_RDONLY, 0) != 0) child_fail(report_fd, kIn);
  if (open_std(s.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 1) != 0) child_fail(report_fd, kOut);
  if (s.err == s.out) {
    if (::dup2(1, 2) < 0) child_fail(report_fd, kErr);
  } else if (open_std(s.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 2) != 0) {
    child_fail(report_fd, kErr);
  }
  close_other_fds(report_fd);
  ::execve(s.exe.c_str(), argv, envp);
  child_fail(report_fd, kExec);
}

std::string joined_args(const std::vector<std::string>& argv) {
  std::string a;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (i > 1) a += ' ';
    a += argv[i];
  }
  return a;
}

void describe(const LaunchSpec& s, const ChildReport& r, LaunchError* e) {
  e->subcode = r.err;
  std::string why = std::string(std::strerror(r.err)) + " (errno=" + std::to_string(r.err) + ")";
  switch (r.stage) {
    case kCgroup:
      e->code = 6;
      e->message = "Failed to put the job in its cgroup: " + why;
      break;
    case kSession:
      e->code = 6;
      e->message = "Failed to start a session for the job: " + why;
      break;
    case kUser:
      e->code = 23;
      e->message = "Failed to switch to the job's user (uid " + std::to_string(s.uid) + ", gid " +
                   std::to_string(s.gid) + "): " + why;
      break;
    case kIwd:
      e->code = 14;
      e->message =
          "Failed to change to the job's initial working directory '" + s.iwd + "': " + why;
      break;
    case kIn:
      e->code = 8;
      e->message = "Failed to open '" + s.in + "' as standard input: " + why;
      break;
    case kOut:
      e->code = 7;
      e->message = "Failed to open '" + s.out + "' as standard output: " + why;
      break;
    case kErr:
      e->code = 7;
      e->message = "Failed to open '" + s.err + "' as standard error: " + why;
      break;
    default: {
      // HTCONDOR: the FailedToCreateProcess hold reason text.
      std::string args = joined_args(s.argv);
      e->code = 6;
      e->message = "Failed to execute '" + s.exe + "'" +
                   (args.empty() ? std::string() : " with arguments " + args) + ": " + why;
    }
  }
}

}  // namespace

pid_t launch_job(const LaunchSpec& s, LaunchError* err) {
  std::vector<char*> argv, envp;
  for (const std::string& a : s.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : s.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) {
    *err = {6, errno, std::string("Failed to create a pipe for the job: ") + std::strerror(errno)};
    return -1;
  }
  // Signals stay blocked across the fork so that no handler of the parent (libuv's) runs in
  // the child before it resets them.
  sigset_t all, old;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, &old);
  pid_t pid;
  if (s.new_pid_namespace) {
    // clone(2) without a new stack behaves like fork, in a new PID namespace.
    pid = static_cast<pid_t>(
        syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, nullptr, nullptr, nullptr, nullptr));
  } else {
    pid = ::fork();
  }
  if (pid == 0) {
    ::close(pipefd[0]);
    child_main(s, argv.data(), envp.data(), s.groups.data(), pipefd[1]);
  }
  int fork_errno = errno;
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  ::close(pipefd[1]);
  if (pid < 0) {
    ::close(pipefd[0]);
    *err = {6, fork_errno,
            std::string(s.new_pid_namespace ? "clone(CLONE_NEWPID)" : "fork") +
                " failed: " + std::strerror(fork_errno)};
    return -1;
  }
  ChildReport r{};
  ssize_t n;
  do {
    n = ::read(pipefd[0], &r, sizeof r);
  } while (n < 0 && errno == EINTR);
  ::close(pipefd[0]);
  if (n == 0) return pid;  // the pipe closed on exec: the job runs
  int status;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof r)) r = {kExec, EIO};
  describe(s, r, err);
  return -1;
}

}  // namespace kite::starter
