// The Linux signal table (x86, ARM and most others share these numbers; the libc constants
// keep it right where they differ).
#include "agent/starter/signals.h"

#include <signal.h>

#include <cstdio>

namespace kite::starter {
namespace {

struct Sig {
  const char* name;  // without "SIG"
  int num;
};

const Sig kSignals[] = {
    {"HUP", SIGHUP},       {"INT", SIGINT},   {"QUIT", SIGQUIT},     {"ILL", SIGILL},
    {"TRAP", SIGTRAP},     {"ABRT", SIGABRT}, {"IOT", SIGIOT},       {"BUS", SIGBUS},
    {"FPE", SIGFPE},       {"KILL", SIGKILL}, {"USR1", SIGUSR1},     {"SEGV", SIGSEGV},
    {"USR2", SIGUSR2},     {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},     {"TERM", SIGTERM},
    {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD}, {"CONT", SIGCONT},     {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP},     {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},     {"URG", SIGURG},
    {"XCPU", SIGXCPU},     {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},
    {"WINCH", SIGWINCH},   {"IO", SIGIO},     {"POLL", SIGPOLL},     {"PWR", SIGPWR},
    {"SYS", SIGSYS},
};

bool same_nocase(std::string_view a, const char* b) {
  size_t i = 0;
  for (; i < a.size() && b[i]; ++i) {
    char c = a[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    if (c != b[i]) return false;
  }
  return i == a.size() && b[i] == '\0';
}

}  // namespace

int signal_parse(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) return -1;
  if (s[0] >= '0' && s[0] <= '9') {
    int n = 0;
    for (char c : s) {
      if (c < '0' || c > '9' || n > 1000) return -1;
      n = n * 10 + (c - '0');
    }
    return n >= 1 && n < NSIG ? n : -1;
  }
  if (s.size() > 3 && same_nocase(s.substr(0, 3), "SIG")) s.remove_prefix(3);
  for (const Sig& g : kSignals) {
    if (same_nocase(s, g.name)) return g.num;
  }
  return -1;
}

const char* signal_name(int sig) {
  static char buf[16];
  for (const Sig& g : kSignals) {
    if (g.num == sig) {
      std::snprintf(buf, sizeof buf, "SIG%s", g.name);
      return buf;
    }
  }
  std::snprintf(buf, sizeof buf, "SIG%d", sig);
  return buf;
}

}  // namespace kite::starter
