// Cgroup v2 (the unified hierarchy): subtree_control, memory.max/high/swap.max, cpu.weight,
// cgroup.freeze and cgroup.events, cgroup.kill, cpu.stat and memory usage, OOM events as
// inotify "file modified" events on memory.events.
// Kernel: Documentation/admin-guide/cgroup-v2.rst.
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "hal/cgroup_internal.h"

namespace kite::hal::cgroup_v2 {

Status enable_controllers(const Root& root, const std::string& parent, const std::string& controllers) {
  return root.write(parent + "/cgroup.subtree_control", controllers);
}

Status set_memory(const Root& root, const std::string& d, const MemoryLimits& lim) {
  auto num = [](int64_t v) { return v < 0 ? std::string("max") : std::to_string(v); };
  Status st = root.write(d + "/memory.max", num(lim.hard));
  // v2 has no pure soft limit; memory.high (reclaim and throttle above it) is closest.
  if (st.ok) st = root.write(d + "/memory.high", num(lim.soft));
  bool swap_file = root.exists(d + "/memory.swap.max");
  if (st.ok && (lim.swap >= 0 || swap_file)) {
    if (!swap_file && root.live()) {
      return Status::Error("cgroups: no swap accounting (" + d + "/memory.swap.max missing)");
    }
    st = root.write(d + "/memory.swap.max", num(lim.swap));
  }
  return st;
}

// cpu.weight ranges 1..10000 with 100 the default: 100 x Cpus, as v1's cpu.shares.
Status set_cpu_weight(const Root& root, const std::string& dir, double cpus) {
  int64_t w = std::clamp<int64_t>(static_cast<int64_t>(cpus * 100 + 0.5), 1, 10000);
  return root.write(dir + "/cpu.weight", std::to_string(w));
}

Status freeze(const Root& root, const std::string& dir) { return root.write(dir + "/cgroup.freeze", "1"); }

Status thaw(const Root& root, const std::string& dir) { return root.write(dir + "/cgroup.freeze", "0"); }

bool frozen(const Root& root, const std::string& dir) {
  // cgroup.events "frozen 1" once every task is frozen (cgroup.freeze only says "asked").
  std::string ev, v;
  if (root.read(dir + "/cgroup.events", &ev).ok && find_key(ev, "frozen", &v)) return v == "1";
  return root.read_line(dir + "/cgroup.freeze") == "1";
}

Status kill(const Root& root, const std::string& dir) { return root.write(dir + "/cgroup.kill", "1"); }

void cpu_usage(const Root& root, const std::string& dir, CgroupUsage* u) {
  std::string text;
  if (!root.read(dir + "/cpu.stat", &text).ok) return;
  find_key_int(text, "user_usec", &u->cpu_user_usec);
  find_key_int(text, "system_usec", &u->cpu_system_usec);
}

void memory_usage(const Root& root, const std::string& d, CgroupUsage* u) {
  root.read_int(d + "/memory.current", &u->memory_current);
  root.read_int(d + "/memory.peak", &u->memory_peak);
  root.read_int(d + "/memory.swap.current", &u->swap_current);
  std::string text;
  if (root.read(d + "/memory.events", &text).ok) find_key_int(text, "oom_kill", &u->oom_kills);
}

Status oom_watch(const Root& root, const std::string& d, OomWatch* out) {
  // "A value change in this file generates a file modified event" (memory.events).
  out->v2 = true;
  out->file = d + "/memory.events";
  int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return Status::Errno("inotify_init1", "(syscall)", errno);
  if (inotify_add_watch(fd, root.path(out->file).c_str(), IN_MODIFY) < 0) {
    int e = errno;
    ::close(fd);
    return Status::Errno("inotify_add_watch", root.path(out->file), e);
  }
  out->fd = fd;
  return Status::Ok();
}

}  // namespace kite::hal::cgroup_v2
