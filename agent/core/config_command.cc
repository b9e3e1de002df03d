// Runs the commands of the configuration's `include : COMMAND |` (see config_command.h).
#include "agent/core/config_command.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "agent/core/files.h"
#include "policy/classad/args_env.h"

namespace kite::agent {
namespace {

int64_t now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace

config::Status config_command_argv(const std::string& command, std::vector<std::string>* args) {
  args->clear();
  std::string err;
  if (command.size() >= 2 && command.front() == '"' && command.back() == '"') {
    if (!classad::args_split_v2(std::string_view(command).substr(1, command.size() - 2), args,
                                &err)) {
      return config::Status::Error("Can't append args, " + err);
    }
  } else {
    *args = classad::args_split_v1(command);
  }
  if (args->empty()) return config::Status::Error("no command");
  return config::Status::Ok();
}

config::Status config_command_status(const ConfigCommandEnd& end) {
  if (!end.started) return config::Status::Error("not a valid command");
  if (end.timed_out) {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%g", static_cast<double>(end.timeout_ms) / 1000.0);
    return config::Status::Error(std::string("command ran longer than ") + secs + " seconds");
  }
  if (end.too_big) {
    return config::Status::Error("command wrote more than " +
                                 std::to_string(kConfigCommandMaxOutput >> 20) + " MiB");
  }
  if (end.code == 127 && end.wrote_nothing) return config::Status::Error("not a valid command");
  if (end.code != 0) {
    return config::Status::Error("command terminated with exit code " + std::to_string(end.code));
  }
  return config::Status::Ok();
}

config::Status run_config_command(const std::string& command, std::string* output) {
  output->clear();
  std::vector<std::string> args;
  config::Status st = config_command_argv(command, &args);
  if (!st.ok) return st;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return config::Status::Error(std::string("pipe: ") + std::strerror(errno));
  }
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(fds[0]);
    close(fds[1]);
    return config::Status::Error(std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  ConfigCommandEnd end;
  int64_t deadline = now_ms() + static_cast<int64_t>(kConfigCommandTimeoutMs);
  char buf[65536];
  for (;;) {
    int64_t left = deadline - now_ms();
    if (left <= 0) {
      end.timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      end.timed_out = r == 0;
      break;
    }
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output->append(buf, static_cast<size_t>(n));
    if (output->size() > kConfigCommandMaxOutput) {
      end.too_big = true;
      break;
    }
  }
  close(fds[0]);
  if (end.too_big || end.timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  end.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  end.wrote_nothing = output->empty();
  return config_command_status(end);
}

config::Status write_config_cache(const std::string& path, const std::string& text) {
  std::string err;
  if (!core::write_file_atomic(path, text, 0644, &err)) return config::Status::Error(err);
  return config::Status::Ok();
}

}  // namespace kite::agent
