// Internal to hal/cgroup*.cc: the file-level operations of one job cgroup directory, once for
// the v1 controller hierarchies (cgroup_v1.cc) and once for the v2 unified hierarchy
// (cgroup_v2.cc). cgroup.cc picks per facility which one to call. `dir` is a node path.
#pragma once

#include <string>

#include "hal/cgroup.h"

namespace kite::hal {

namespace cgroup_v1 {
/// A new cpuset starts with empty cpus/mems, which no task may join: copy the parent's.
Status cpuset_init(const Root& root, const std::string& parent, const std::string& dir);
Status set_memory(const Root& root, const std::string& dir, const MemoryLimits& lim);
Status set_cpu_shares(const Root& root, const std::string& dir, double cpus);
Status freeze(const Root& root, const std::string& dir);
Status thaw(const Root& root, const std::string& dir);
bool frozen(const Root& root, const std::string& dir);
void cpu_usage(const Root& root, const std::string& dir, CgroupUsage* u);
void memory_usage(const Root& root, const std::string& dir, CgroupUsage* u);
Status oom_watch(const Root& root, const std::string& dir, OomWatch* out);
}  // namespace cgroup_v1

namespace cgroup_v2 {
/// Enables `controllers` ("+cpu +memory ...") for the children of `parent`.
Status enable_controllers(const Root& root, const std::string& parent, const std::string& controllers);
Status set_memory(const Root& root, const std::string& dir, const MemoryLimits& lim);
Status set_cpu_weight(const Root& root, const std::string& dir, double cpus);
Status freeze(const Root& root, const std::string& dir);
Status thaw(const Root& root, const std::string& dir);
bool frozen(const Root& root, const std::string& dir);
Status kill(const Root& root, const std::string& dir);
void cpu_usage(const Root& root, const std::string& dir, CgroupUsage* u);
void memory_usage(const Root& root, const std::string& dir, CgroupUsage* u);
Status oom_watch(const Root& root, const std::string& dir, OomWatch* out);
}  // namespace cgroup_v2

}  // namespace kite::hal
