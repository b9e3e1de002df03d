// Cgroups on Linux: layout detection from mountinfo, the memory limit policy, and job cgroups
// over the v2 unified hierarchy, the v1 controller hierarchies, or both at once (a hybrid
// node: each facility is served by whichever hierarchy carries it; the v2 core files
// cgroup.freeze/cgroup.kill/cpu.stat are used whenever a v2 hierarchy is mounted). The
// kernel-file details live in cgroup_v1.cc and cgroup_v2.cc.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "hal/cgroup.h"
#include "hal/cgroup_internal.h"
#include "hal/topology.h"
#include "policy/config/config.h"
#include "policy/config/typed.h"

namespace kite::hal {
namespace {

constexpr int kFacilities = static_cast<int>(CgroupFacility::kCount);

// v1 controller (and v2 controller) names serving each facility.
const char* const kV1Controller[kFacilities] = {"memory", "cpu",  "cpuacct",
                                                "cpuset", "pids", "freezer"};
const char* const kV2Controller[kFacilities] = {"memory", "cpu",  nullptr /* core cpu.stat */,
                                                "cpuset", "pids", nullptr /* core freeze */};

const char* const kKnownV1[] = {"cpu",     "cpuacct", "cpuset", "memory",     "devices",
                                "freezer", "net_cls", "blkio",  "perf_event", "net_prio",
                                "hugetlb", "pids",    "rdma",   "misc"};

void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

std::string join(const std::string& a, const std::string& b) {
  if (b.empty()) return a;
  if (!a.empty() && a.back() == '/') return a + b;
  return a + "/" + b;
}

Status mkdir_root(const Root& root, const std::string& abs) {
  if (::mkdir(root.path(abs).c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::Errno("mkdir", root.path(abs), errno);
  }
  return Status::Ok();
}

// Unescapes mountinfo's octal escapes (\040 for a space).
std::string unescape(std::string_view s) {
  std::string r;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      int v = 0;
      bool ok = true;
      for (int k = 1; k <= 3; ++k) {
        char c = s[i + static_cast<size_t>(k)];
        if (c < '0' || c > '7') ok = false;
        v = v * 8 + (c - '0');
      }
      if (ok) {
        r += static_cast<char>(v);
        i += 3;
        continue;
      }
    }
    r += s[i];
  }
  return r;
}

std::vector<pid_t> read_pids(const Root& root, const std::string& dir) {
  std::vector<pid_t> v;
  std::string text;
  if (!root.read(dir + "/cgroup.procs", &text).ok) return v;
  for (std::string_view t : split(text, "\n "))
    v.push_back(static_cast<pid_t>(std::atol(std::string(t).c_str())));
  return v;
}

}  // namespace

const char* cgroup_mode_name(CgroupMode m) {
  switch (m) {
    case CgroupMode::kV1: return "v1";
    case CgroupMode::kV2: return "v2";
    case CgroupMode::kHybrid: return "hybrid";
    default: return "none";
  }
}

const char* cgroup_facility_name(CgroupFacility f) {
  switch (f) {
    case CgroupFacility::kMemory: return "memory";
    case CgroupFacility::kCpu: return "cpu";
    case CgroupFacility::kCpuAcct: return "cpuacct";
    case CgroupFacility::kCpuset: return "cpuset";
    case CgroupFacility::kPids: return "pids";
    case CgroupFacility::kFreezer: return "freezer";
    default: return "?";
  }
}

Status cgroup_detect(const Root& root, CgroupLayout* out) {
  *out = CgroupLayout();
  std::string mi;
  Status st = root.read("/proc/self/mountinfo", &mi);
  if (!st.ok) return st;
  for (std::string_view line : split(mi, "\n")) {
    // id parent maj:min root mountpoint options [optional...] - fstype source superoptions
    std::vector<std::string_view> f = split(line, " ");
    size_t dash = 0;
    for (size_t i = 6; i < f.size(); ++i) {
      if (f[i] == "-") {
        dash = i;
        break;
      }
    }
    if (dash == 0 || dash + 3 >= f.size()) continue;
    std::string_view fstype = f[dash + 1];
    std::string mount = unescape(f[4]);
    if (fstype == "cgroup2") {
      if (out->v2_mount.empty()) out->v2_mount = mount;
    } else if (fstype == "cgroup") {
      for (std::string_view opt : split(f[dash + 3], ",")) {
        for (const char* k : kKnownV1) {
          if (opt == k && !out->v1_mounts.count(k)) out->v1_mounts[k] = mount;
        }
      }
    }
  }
  if (!out->v2_mount.empty()) {
    std::string ctl;
    root.read(out->v2_mount + "/cgroup.controllers", &ctl);
    for (std::string_view c : split(ctl, " \n")) out->v2_controllers.emplace_back(c);
  }
  bool v2 = !out->v2_mount.empty(), v1 = !out->v1_mounts.empty();
  out->mode = v2 && v1 ? CgroupMode::kHybrid
              : v2     ? CgroupMode::kV2
              : v1     ? CgroupMode::kV1
                       : CgroupMode::kNone;
  auto v2_has = [&](const char* c) {
    return std::find(out->v2_controllers.begin(), out->v2_controllers.end(), c) !=
           out->v2_controllers.end();
  };
  for (int i = 0; i < kFacilities; ++i) {
    CgroupPlace p = CgroupPlace::kNone;
    // cpu usage (cpu.stat) and freezing (cgroup.freeze) are core v2 files, present in every
    // non-root v2 cgroup whatever controllers are enabled: with a v2 hierarchy mounted they
    // are used even on a hybrid node. The others need their controller.
    if (v2 && (kV2Controller[i] ? v2_has(kV2Controller[i]) : true)) {
      p = CgroupPlace::kV2;
    } else if (out->v1_mounts.count(kV1Controller[i])) {
      p = CgroupPlace::kV1;
    }
    out->place[i] = p;
  }
  static const char* const kLoss[kFacilities] = {"no memory limits, memory usage or OOM events",
                                                 "no cpu weight",
                                                 "no cpu usage",
                                                 "no cpu binding",
                                                 "no process limit",
                                                 "no freeze/thaw"};
  for (int i = 0; i < kFacilities; ++i) {
    if (out->place[i] == CgroupPlace::kNone) {
      out->missing.push_back(std::string(kV1Controller[i]) + ": no controller (" + kLoss[i] + ")");
    }
  }
  if (out->mode == CgroupMode::kNone) out->missing.push_back("no cgroup filesystem mounted");
  return Status::Ok();
}

bool memory_policy_parse(std::string_view s, MemoryPolicy* out) {
  std::string l;
  for (char c : trim(s)) l += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  if (l == "none" || l.empty())
    *out = MemoryPolicy::kNone;
  else if (l == "soft")
    *out = MemoryPolicy::kSoft;
  else if (l == "hard")
    *out = MemoryPolicy::kHard;
  else
    return false;
  return true;
}

Status cgroup_config_read(const config::Config& cfg, CgroupConfig* out) {
  *out = CgroupConfig();
  std::string v;
  if (cfg.get("CGROUP_MEMORY_LIMIT_POLICY", &v) && !trim(v).empty() &&
      !memory_policy_parse(v, &out->policy)) {
    return Status::Error("CGROUP_MEMORY_LIMIT_POLICY = " + v + ": not one of none, soft, hard");
  }
  v.clear();
  config::Status cst = config::read_bool(cfg, "DISABLE_SWAP_FOR_JOB", &out->disable_swap);
  if (!cst.ok) return Status::Error(cst.message);
  v.clear();
  if (cfg.get("BASE_CGROUP", &v) && !trim(v).empty()) out->base = std::string(trim(v));
  return Status::Ok();
}

// HTCONDOR: ep-configuration "Limiting Resource Usage Using Cgroups".
MemoryLimits memory_limits_compute(const MemoryLimitInput& in) {
  MemoryLimits l;
  const int64_t mib = 1 << 20;
  switch (in.policy) {
    case MemoryPolicy::kNone: return l;
    case MemoryPolicy::kHard:
      l.hard = in.slot_memory_mib * mib;
      l.soft = l.hard * 9 / 10;
      break;
    case MemoryPolicy::kSoft:
      l.soft = in.slot_memory_mib * mib;
      l.hard = in.machine_memory_mib * mib;
      break;
  }
  if (in.disable_swap) {
    l.swap = 0;
  } else if (in.slot_virtual_kib > 0) {
    int64_t s = in.slot_virtual_kib * 1024 - in.slot_memory_mib * mib;
    l.swap = s > 0 ? s : 0;
  }
  return l;
}

Cgroups::Cgroups(Root root, CgroupLayout layout, std::string base)
    : root_(std::move(root)), layout_(std::move(layout)), base_(std::move(base)) {
  while (!base_.empty() && base_.front() == '/') base_.erase(base_.begin());
  while (!base_.empty() && base_.back() == '/') base_.pop_back();
}

std::string Cgroups::dir_of(const JobCgroup& job, CgroupFacility f) const {
  int i = static_cast<int>(f);
  CgroupPlace p = layout_.place[i];
  if (p == CgroupPlace::kV2) return job.v2_dir;
  if (p == CgroupPlace::kV1) {
    auto it = job.v1_dirs.find(kV1Controller[i]);
    return it == job.v1_dirs.end() ? std::string() : it->second;
  }
  return {};
}

Status Cgroups::create(const std::string& name, JobCgroup* out) const {
  *out = JobCgroup();
  out->name = name;
  if (layout_.mode == CgroupMode::kNone)
    return Status::Error("cgroups: no cgroup filesystem mounted");
  if (name.empty() || name.find("..") != std::string::npos || name[0] == '/') {
    return Status::Error("cgroups: bad job cgroup name '" + name + "'");
  }
  std::vector<std::string> levels = levels_of(name);
  if (!layout_.v2_mount.empty()) {
    std::string parent = layout_.v2_mount;
    std::string enable;
    for (const char* c : {"cpu", "memory", "pids", "cpuset"}) {
      if (std::find(layout_.v2_controllers.begin(), layout_.v2_controllers.end(), c) !=
          layout_.v2_controllers.end()) {
        enable += std::string(enable.empty() ? "+" : " +") + c;
      }
    }
    for (const std::string& lv : levels) {
      // Controllers reach a child only when its parent enables them for its subtree.
      if (!enable.empty()) {
        Status st = cgroup_v2::enable_controllers(root_, parent, enable);
        if (!st.ok) return st;
      }
      std::string d = join(layout_.v2_mount, lv);
      Status st = mkdir_root(root_, d);
      if (!st.ok) return st;
      parent = d;
    }
    out->v2_dir = parent;
    out->v2_freeze = root_.exists(parent + "/cgroup.freeze") || !root_.live();
    out->v2_kill = root_.exists(parent + "/cgroup.kill") || !root_.live();
  }
  for (int i = 0; i < kFacilities; ++i) {
    if (layout_.place[i] != CgroupPlace::kV1) continue;
    Status st = make_v1_dir(kV1Controller[i], levels, out);
    if (!st.ok) return st;
  }
  return Status::Ok();
}

std::vector<std::string> Cgroups::levels_of(const std::string& name) const {
  // Every level from the hierarchy root down to the job, so nested bases work.
  std::vector<std::string> levels;
  std::string rel;
  std::string full = base_ + "/" + name;
  for (std::string_view part : split(full, "/")) {
    rel = rel.empty() ? std::string(part) : rel + "/" + std::string(part);
    levels.push_back(rel);
  }
  return levels;
}

Status Cgroups::make_v1_dir(const std::string& ctl, const std::vector<std::string>& levels,
                            JobCgroup* job) const {
  const std::string& mount = layout_.v1_mounts.at(ctl);
  std::string parent = mount;
  for (const std::string& lv : levels) {
    std::string d = join(mount, lv);
    bool fresh = !root_.is_dir(d);
    Status st = mkdir_root(root_, d);
    if (!st.ok) return st;
    if (ctl == "cpuset" && (fresh || root_.exists(d + "/cpuset.cpus"))) {
      st = cgroup_v1::cpuset_init(root_, parent, d);
      if (!st.ok) return st;
    }
    parent = d;
  }
  job->v1_dirs[ctl] = parent;
  return Status::Ok();
}

Status Cgroups::deny_devices(JobCgroup* job, const std::vector<std::string>& paths) const {
  if (paths.empty()) return Status::Ok();
  if (!layout_.v1_mounts.count("devices")) {
    return Status::Error(
        "cgroups: no v1 devices controller, devices cannot be denied (on a v2-only node that "
        "takes a BPF device program, which Kite does not load)");
  }
  std::vector<std::string> rules;
  for (const std::string& p : paths) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) continue;  // no such node: nothing to reach
    if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) {
      return Status::Error("cgroups: " + p + " is not a device node");
    }
    rules.push_back(std::string(S_ISCHR(st.st_mode) ? "c " : "b ") +
                    std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev)) +
                    " rwm");
  }
  if (rules.empty()) return Status::Ok();
  Status st = make_v1_dir("devices", levels_of(job->name), job);
  if (!st.ok) return st;
  for (const std::string& r : rules) {
    st = root_.write(job->v1_dirs["devices"] + "/devices.deny", r);
    if (!st.ok) return st;
  }
  return Status::Ok();
}

Status Cgroups::add_pid(const JobCgroup& job, pid_t pid) const {
  std::string p = std::to_string(pid);
  std::set<std::string> done;
  if (!job.v2_dir.empty()) {
    Status st = root_.write(job.v2_dir + "/cgroup.procs", p);
    if (!st.ok) return st;
  }
  for (const auto& [ctl, dir] : job.v1_dirs) {
    if (!done.insert(dir).second) continue;  // co-mounted controllers share one directory
    Status st = root_.write(dir + "/cgroup.procs", p);
    if (!st.ok) return st;
  }
  return Status::Ok();
}

std::vector<pid_t> Cgroups::procs(const JobCgroup& job) const {
  std::set<pid_t> all;
  if (!job.v2_dir.empty()) {
    for (pid_t p : read_pids(root_, job.v2_dir)) all.insert(p);
  }
  for (const auto& [ctl, dir] : job.v1_dirs) {
    for (pid_t p : read_pids(root_, dir)) all.insert(p);
  }
  return std::vector<pid_t>(all.begin(), all.end());
}

Status Cgroups::set_memory(const JobCgroup& job, const MemoryLimits& lim) const {
  std::string d = dir_of(job, CgroupFacility::kMemory);
  if (d.empty()) {
    if (lim.hard < 0 && lim.soft < 0 && lim.swap < 0) return Status::Ok();
    return Status::Error("cgroups: memory controller not available, cannot limit memory");
  }
  if (layout_.where(CgroupFacility::kMemory) == CgroupPlace::kV2)
    return cgroup_v2::set_memory(root_, d, lim);
  return cgroup_v1::set_memory(root_, d, lim);
}

Status Cgroups::set_cpu_weight(const JobCgroup& job, double cpus) const {
  std::string d = dir_of(job, CgroupFacility::kCpu);
  if (d.empty())
    return Status::Error("cgroups: cpu controller not available, cannot set cpu weight");
  if (layout_.where(CgroupFacility::kCpu) == CgroupPlace::kV2)
    return cgroup_v2::set_cpu_weight(root_, d, cpus);
  return cgroup_v1::set_cpu_shares(root_, d, cpus);
}

Status Cgroups::set_pids_max(const JobCgroup& job, int64_t max) const {
  std::string d = dir_of(job, CgroupFacility::kPids);
  if (d.empty())
    return Status::Error("cgroups: pids controller not available, cannot limit processes");
  return root_.write(d + "/pids.max", max <= 0 ? std::string("max") : std::to_string(max));
}

Status Cgroups::set_cpuset(const JobCgroup& job, const std::vector<int>& pus) const {
  std::string d = dir_of(job, CgroupFacility::kCpuset);
  if (d.empty()) return Status::Error("cgroups: cpuset controller not available, cannot bind cpus");
  std::string list = cpuset_format(pus);
  return root_.write(d + "/cpuset.cpus", list.empty() ? std::string("\n") : list);
}

bool Cgroups::frozen(const JobCgroup& job) const {
  if (job.v2_freeze) return cgroup_v2::frozen(root_, job.v2_dir);
  auto it = job.v1_dirs.find("freezer");
  return it != job.v1_dirs.end() && cgroup_v1::frozen(root_, it->second);
}

Status Cgroups::freeze_request(const JobCgroup& job) const {
  if (job.v2_freeze) return cgroup_v2::freeze(root_, job.v2_dir);
  auto v1 = job.v1_dirs.find("freezer");
  if (v1 != job.v1_dirs.end()) return cgroup_v1::freeze(root_, v1->second);
  return Status::Error("cgroups: no freezer (no v2 cgroup.freeze, no v1 freezer controller)");
}

Status Cgroups::freeze(const JobCgroup& job) const {
  Status st = freeze_request(job);
  if (!st.ok || !root_.live()) return st;
  for (int i = 0; i < 2000; ++i) {
    if (frozen(job)) return Status::Ok();
    if (!job.v2_freeze) freeze_request(job);
    sleep_ms(1);
  }
  return Status::Error("cgroups: " + job.name + " did not freeze within 2 s");
}

Status Cgroups::thaw(const JobCgroup& job) const {
  if (job.v2_freeze) return cgroup_v2::thaw(root_, job.v2_dir);
  auto it = job.v1_dirs.find("freezer");
  if (it == job.v1_dirs.end()) return Status::Error("cgroups: no freezer to thaw " + job.name);
  return cgroup_v1::thaw(root_, it->second);
}

Status Cgroups::kill_step(const JobCgroup& job) const {
  if (!root_.live()) {
    // A fake root has no processes to signal; record the request like the kernel file.
    if (job.v2_kill) return cgroup_v2::kill(root_, job.v2_dir);
    return Status::Ok();
  }
  if (job.v2_kill && cgroup_v2::kill(root_, job.v2_dir).ok) return Status::Ok();
  // Frozen processes cannot fork between our read of the list and the signal; SIGKILL is
  // delivered to frozen tasks once thawed. A freeze still in progress is good enough: what
  // escapes it is caught by the next step.
  bool can_freeze = job.v2_freeze || job.v1_dirs.count("freezer");
  if (can_freeze) freeze_request(job);
  for (pid_t p : procs(job)) {
    if (p > 0) ::kill(p, SIGKILL);
  }
  if (can_freeze) thaw(job);
  return Status::Ok();
}

Status Cgroups::kill_all(const JobCgroup& job, int timeout_ms) const {
  Status st = kill_step(job);
  if (!st.ok || !root_.live()) return st;
  for (int waited = 0;; waited += 2) {
    if (is_empty(job)) return Status::Ok();
    if (waited >= timeout_ms) {
      return Status::Error("cgroups: " + std::to_string(procs(job).size()) +
                           " process(es) left in " + job.name + " after " +
                           std::to_string(timeout_ms) + " ms");
    }
    if (!job.v2_kill) kill_step(job);
    sleep_ms(2);
  }
}

Status Cgroups::remove(JobCgroup* job, bool* busy) const {
  *busy = false;
  std::vector<std::string> dirs;
  if (!job->v2_dir.empty()) dirs.push_back(job->v2_dir);
  for (const auto& [ctl, dir] : job->v1_dirs) {
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  }
  std::vector<std::string> left;
  for (const std::string& d : dirs) {
    std::string p = root_.path(d);
    if (!root_.live()) {
      // Fixture directories hold ordinary files the kernel would not have.
      for (const std::string& f : root_.list(d)) ::unlink((p + "/" + f).c_str());
    }
    if (::rmdir(p.c_str()) == 0 || errno == ENOENT) continue;
    if (errno != EBUSY) return Status::Errno("rmdir", p, errno);
    *busy = true;
    left.push_back(d);
  }
  // What is gone is forgotten, so a later attempt only retries what is left.
  auto kept = [&](const std::string& d) {
    return std::find(left.begin(), left.end(), d) != left.end();
  };
  if (!kept(job->v2_dir)) job->v2_dir.clear();
  for (auto it = job->v1_dirs.begin(); it != job->v1_dirs.end();) {
    it = kept(it->second) ? std::next(it) : job->v1_dirs.erase(it);
  }
  return Status::Ok();
}

Status Cgroups::destroy(JobCgroup* job) const {
  Status st = kill_all(*job);
  if (!st.ok) return st;
  // A cgroup can be busy for a moment after its last task exits.
  bool busy = true;
  for (int i = 0; i < 100 && busy; ++i) {
    st = remove(job, &busy);
    if (!st.ok) return st;
    if (busy) sleep_ms(5);
  }
  if (busy) return Status::Error("cgroups: " + job->name + " still busy after 500 ms");
  return Status::Ok();
}

CgroupUsage Cgroups::usage(const JobCgroup& job) const {
  CgroupUsage u;
  std::string d = dir_of(job, CgroupFacility::kCpuAcct);
  if (!d.empty() && layout_.where(CgroupFacility::kCpuAcct) == CgroupPlace::kV2) {
    cgroup_v2::cpu_usage(root_, d, &u);
  } else if (!d.empty()) {
    cgroup_v1::cpu_usage(root_, d, &u);
  }
  d = dir_of(job, CgroupFacility::kMemory);
  if (!d.empty() && layout_.where(CgroupFacility::kMemory) == CgroupPlace::kV2) {
    cgroup_v2::memory_usage(root_, d, &u);
  } else if (!d.empty()) {
    cgroup_v1::memory_usage(root_, d, &u);
  }
  d = dir_of(job, CgroupFacility::kPids);
  if (!d.empty()) root_.read_int(d + "/pids.current", &u.pids_current);
  if (u.pids_current < 0) u.pids_current = static_cast<int64_t>(procs(job).size());
  return u;
}

Status Cgroups::oom_watch(const JobCgroup& job, OomWatch* out) const {
  *out = OomWatch();
  std::string d = dir_of(job, CgroupFacility::kMemory);
  if (d.empty()) return Status::Error("cgroups: memory controller not available, no OOM events");
  Status st = layout_.where(CgroupFacility::kMemory) == CgroupPlace::kV2
                  ? cgroup_v2::oom_watch(root_, d, out)
                  : cgroup_v1::oom_watch(root_, d, out);
  if (!st.ok) return st;
  std::string text;
  if (root_.read(out->file, &text).ok) find_key_int(text, "oom_kill", &out->base);
  return Status::Ok();
}

int64_t cgroup_oom_read(const Root& root, OomWatch* w) {
  if (w->fd < 0) return 0;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(w->fd, buf, sizeof buf);
    if (n <= 0) break;
    if (!w->v2 && n == 8) {
      uint64_t c;
      __builtin_memcpy(&c, buf, 8);
      w->events += static_cast<int64_t>(c);
    }
  }
  std::string text;
  int64_t count = -1;
  if (root.read(w->file, &text).ok) find_key_int(text, "oom_kill", &count);
  // Kernels before 4.13 have no oom_kill counter in memory.oom_control: events only.
  int64_t kills = count >= 0 ? count - w->base : 0;
  int64_t total = kills > w->events ? kills : w->events;
  int64_t fresh = total - w->reported;
  if (fresh <= 0) return 0;
  w->reported = total;
  return fresh;
}

void cgroup_oom_close(OomWatch* w) {
  if (w->fd >= 0) ::close(w->fd);
  if (w->aux_fd >= 0) ::close(w->aux_fd);
  w->fd = w->aux_fd = -1;
}

}  // namespace kite::hal
