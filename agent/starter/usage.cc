// Usage sampling from cgroup files or /proc/<pid>/stat.
#include "agent/starter/usage.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "agent/core/files.h"

namespace kite::starter {
namespace {

struct ProcStat {
  char state = '?';
  pid_t sid = 0;
  uint64_t utime = 0, stime = 0, cutime = 0, cstime = 0;  // clock ticks
  uint64_t rss_pages = 0;
};

bool read_stat(pid_t pid, ProcStat* st) {
  std::string text;
  if (!core::read_file("/proc/" + std::to_string(pid) + "/stat", &text, nullptr, 4096)) {
    return false;
  }
  // The command name is in parentheses and may hold blanks: fields count from the last ')'.
  // tok[0] is field 3 (state), so field N is tok[N - 3].
  size_t p = text.rfind(')');
  if (p == std::string::npos) return false;
  std::vector<uint64_t> tok;
  const char* s = text.c_str() + p + 1;
  while (*s == ' ') ++s;
  st->state = *s;
  while (*s && tok.size() < 22) {
    while (*s == ' ') ++s;
    if (!*s || *s == '\n') break;
    tok.push_back(std::strtoull(s, nullptr, 10));
    while (*s && *s != ' ') ++s;
  }
  if (tok.size() < 22) return false;
  auto f = [&](size_t n) { return tok[n - 3]; };
  st->sid = static_cast<pid_t>(f(6));
  st->utime = f(14);
  st->stime = f(15);
  st->cutime = f(16);
  st->cstime = f(17);
  st->rss_pages = f(24);
  return true;
}

template <typename F>
void each_pid(F f) {
  DIR* d = ::opendir("/proc");
  if (!d) return;
  while (struct dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    f(static_cast<pid_t>(std::atol(e->d_name)));
  }
  ::closedir(d);
}

}  // namespace

void usage_sample_cgroup(const hal::Cgroups& cg, const hal::JobCgroup& job, Usage* u) {
  hal::CgroupUsage c = cg.usage(job);
  if (c.cpu_user_usec >= 0) u->user_cpu = static_cast<double>(c.cpu_user_usec) / 1e6;
  if (c.cpu_system_usec >= 0) u->sys_cpu = static_cast<double>(c.cpu_system_usec) / 1e6;
  if (c.memory_current >= 0) u->rss_kib = c.memory_current / 1024;
  int64_t peak = c.memory_peak >= 0 ? c.memory_peak / 1024 : u->rss_kib;
  if (peak > u->peak_kib) u->peak_kib = peak;
  if (u->rss_kib > u->peak_kib) u->peak_kib = u->rss_kib;
  if (c.pids_current >= 0) u->num_pids = c.pids_current;
}

void usage_sample_session(pid_t sid, Usage* u) {
  long hz = sysconf(_SC_CLK_TCK);
  long page_kib = sysconf(_SC_PAGESIZE) / 1024;
  if (hz <= 0) hz = 100;
  uint64_t user = 0, sys = 0, rss = 0;
  int64_t n = 0;
  each_pid([&](pid_t pid) {
    ProcStat st;
    if (!read_stat(pid, &st) || st.sid != sid) return;
    ++n;
    user += st.utime + st.cutime;
    sys += st.stime + st.cstime;
    rss += st.rss_pages;
  });
  double uc = static_cast<double>(user) / static_cast<double>(hz);
  double sc = static_cast<double>(sys) / static_cast<double>(hz);
  // Processes that exited unwaited take their time along: never report less than before.
  if (uc > u->user_cpu) u->user_cpu = uc;
  if (sc > u->sys_cpu) u->sys_cpu = sc;
  u->rss_kib = static_cast<int64_t>(rss) * page_kib;
  if (u->rss_kib > u->peak_kib) u->peak_kib = u->rss_kib;
  u->num_pids = n;
}

std::vector<pid_t> session_pids(pid_t sid) {
  std::vector<pid_t> v;
  each_pid([&](pid_t pid) {
    ProcStat st;
    if (read_stat(pid, &st) && st.sid == sid) v.push_back(pid);
  });
  return v;
}

bool session_stopped(pid_t sid) {
  bool all = true;
  each_pid([&](pid_t pid) {
    ProcStat st;
    if (read_stat(pid, &st) && st.sid == sid && st.state != 'T' && st.state != 't' &&
        st.state != 'Z' && st.state != 'X') {
      all = false;
    }
  });
  return all;
}

void usage_to_json(const Usage& u, core::Json* obj) {
  obj->set_real("RemoteUserCpu", u.user_cpu);
  obj->set_real("RemoteSysCpu", u.sys_cpu);
  obj->set("ImageSize", u.peak_kib);
  obj->set("ResidentSetSize", u.rss_kib);
  // HTCONDOR: MemoryUsage is the peak resident size in MiB, rounded up.
  obj->set("MemoryUsage", (u.peak_kib + 1023) / 1024);
  obj->set("NumPids", u.num_pids);
}

}  // namespace kite::starter
