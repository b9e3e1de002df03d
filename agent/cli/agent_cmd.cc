// `kite agent [-c CONFIG] [--foreground]`: the node agent daemon.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "agent/cli/commands.h"
#include "agent/startd/agent.h"

namespace kite::cli {
namespace {

int usage() {
  std::fprintf(stderr,
               "usage: kite agent [-c CONFIG] [--foreground]\n"
               "  -c CONFIG      configuration file (default $KITE_CONFIG, else "
               "/etc/kite/kite.conf and its config.d)\n"
               "  --foreground   stay attached to the terminal and log to stderr\n");
  return 2;
}

}  // namespace

bool daemonize() {
  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid > 0) ::_exit(0);
  ::setsid();
  int fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (fd >= 0) {
    ::dup2(fd, 0);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    if (fd > 2) ::close(fd);
  }
  return true;
}

int agent_main(int argc, char** argv) {
  agent::AgentOptions opts;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
      opts.config_path = argv[++i];
    } else if (std::strcmp(argv[i], "--foreground") == 0 || std::strcmp(argv[i], "-f") == 0) {
      opts.foreground = true;
    } else if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
      usage();
      return 0;
    } else {
      std::fprintf(stderr, "kite agent: unknown option '%s'\n", argv[i]);
      return usage();
    }
  }
  if (!opts.foreground && !daemonize()) {
    std::perror("kite agent: fork");
    return 1;
  }
  agent::Agent a(opts);
  return a.run();
}

}  // namespace kite::cli
