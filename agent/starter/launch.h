// Starting the job process: fork (or clone into a new PID namespace), and in the child join
// the job cgroup, start a new session, drop to the job's user, chdir to Iwd, open In/Out/Err
// and exec. A failure in the child comes back over a close-on-exec pipe as an HTCondor hold
// code (6 exec, 7 output, 8 input, 14 Iwd, 23 user) with the errno as subcode.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace kite::starter {

struct LaunchSpec {
  std::string exe;                // absolute path
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // NAME=value
  std::string iwd;
  std::string in = "/dev/null", out = "/dev/null", err = "/dev/null";  // absolute paths
  bool change_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
  std::vector<std::string> cgroup_procs;  // cgroup.procs files the child writes itself into
  bool new_pid_namespace = false;
};

struct LaunchError {
  int code = 0;
  int subcode = 0;
  std::string message;
};

/// Starts the job. The pid (> 0) once exec succeeded; -1 with `err` filled when it did not
/// (the failed child is reaped here).
pid_t launch_job(const LaunchSpec& spec, LaunchError* err);

}  // namespace kite::starter
