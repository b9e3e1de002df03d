// Cgroup v1 (one hierarchy per controller): memory limits incl. memsw, cpu.shares, the freezer
// controller, cpuacct and memory usage, OOM notification through cgroup.event_control and an
// eventfd. Kernel: Documentation/admin-guide/cgroup-v1/{memory,freezer-subsystem,cpuacct}.rst.
#include <fcntl.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "hal/cgroup_internal.h"

namespace kite::hal::cgroup_v1 {

Status cpuset_init(const Root& root, const std::string& parent, const std::string& dir) {
  // Only what is still empty: a level a concurrent starter has just made may not be filled in
  // yet, and a child of an empty cpuset takes no task (ENOSPC).
  for (const char* f : {"cpuset.cpus", "cpuset.mems"}) {
    if (!root.read_line(dir + "/" + f).empty()) continue;
    std::string v = root.read_line(parent + "/" + f);
    if (v.empty()) continue;
    Status st = root.write(dir + "/" + f, v);
    if (!st.ok) return st;
  }
  return Status::Ok();
}

Status set_memory(const Root& root, const std::string& d, const MemoryLimits& lim) {
  // -1 means unlimited. memsw (memory+swap) must stay >= the memory limit, so it is opened
  // up first and set last, which keeps that true both when raising and when lowering.
  auto num = [](int64_t v) { return v < 0 ? std::string("-1") : std::to_string(v); };
  bool memsw = root.exists(d + "/memory.memsw.limit_in_bytes");
  std::string memsw_val = lim.hard < 0 || lim.swap < 0 ? "-1" : std::to_string(lim.hard + lim.swap);
  if (memsw) root.write(d + "/memory.memsw.limit_in_bytes", "-1");
  Status st = root.write(d + "/memory.limit_in_bytes", num(lim.hard));
  if (st.ok) st = root.write(d + "/memory.soft_limit_in_bytes", num(lim.soft));
  if (st.ok && memsw) st = root.write(d + "/memory.memsw.limit_in_bytes", memsw_val);
  if (st.ok && !memsw && lim.swap >= 0) {
    return Status::Error("cgroups: no swap accounting (" + root.path(d) +
                         "/memory.memsw.limit_in_bytes missing; boot with swapaccount=1)");
  }
  return st;
}

// HTCONDOR: ep-configuration "Limiting Resource Usage Using Cgroups": cpu.shares = 100 x Cpus.
Status set_cpu_shares(const Root& root, const std::string& dir, double cpus) {
  int64_t w = static_cast<int64_t>(cpus * 100 + 0.5);
  return root.write(dir + "/cpu.shares", std::to_string(std::max<int64_t>(w, 2)));
}

Status freeze(const Root& root, const std::string& dir) {
  return root.write(dir + "/freezer.state", "FROZEN");
}

Status thaw(const Root& root, const std::string& dir) {
  return root.write(dir + "/freezer.state", "THAWED");
}

bool frozen(const Root& root, const std::string& dir) {
  return root.read_line(dir + "/freezer.state") == "FROZEN";
}

void cpu_usage(const Root& root, const std::string& dir, CgroupUsage* u) {
  // cpuacct.stat counts USER_HZ ticks.
  std::string text;
  if (!root.read(dir + "/cpuacct.stat", &text).ok) return;
  long hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0) hz = 100;
  int64_t t;
  if (find_key_int(text, "user", &t)) u->cpu_user_usec = t * (1000000 / hz);
  if (find_key_int(text, "system", &t)) u->cpu_system_usec = t * (1000000 / hz);
}

void memory_usage(const Root& root, const std::string& d, CgroupUsage* u) {
  root.read_int(d + "/memory.usage_in_bytes", &u->memory_current);
  root.read_int(d + "/memory.max_usage_in_bytes", &u->memory_peak);
  int64_t memsw;
  if (root.read_int(d + "/memory.memsw.usage_in_bytes", &memsw) && u->memory_current >= 0) {
    u->swap_current = std::max<int64_t>(0, memsw - u->memory_current);
  }
  std::string text;
  if (root.read(d + "/memory.oom_control", &text).ok) find_key_int(text, "oom_kill", &u->oom_kills);
}

Status oom_watch(const Root& root, const std::string& d, OomWatch* out) {
  // memory.rst "OOM Control": write "<eventfd> <fd of memory.oom_control>" to
  // cgroup.event_control; the eventfd counts OOM notifications.
  out->file = d + "/memory.oom_control";
  std::string p = root.path(out->file);
  int cfd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  if (cfd < 0) return Status::Errno("open", p, errno);
  int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (efd < 0) {
    int e = errno;
    ::close(cfd);
    return Status::Errno("eventfd", "(syscall)", e);
  }
  Status st =
      root.write(d + "/cgroup.event_control", std::to_string(efd) + " " + std::to_string(cfd));
  if (!st.ok) {
    ::close(cfd);
    ::close(efd);
    return st;
  }
  out->fd = efd;
  out->aux_fd = cfd;
  return Status::Ok();
}

}  // namespace kite::hal::cgroup_v1
