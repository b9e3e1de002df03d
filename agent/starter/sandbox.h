// The job's sandbox: EXECUTE/dir_<starter pid>, owned by the job's user with mode 0700
// (JOB_EXECDIR_PERMISSIONS = user), holding the job ad (.job.ad) and the machine ad
// (.machine.ad) in the old one-attribute-per-line syntax.
#pragma once

#include <sys/types.h>

#include <string>

#include "policy/classad/classad.h"

namespace kite::starter {

inline constexpr const char* kJobAdFile = ".job.ad";
inline constexpr const char* kMachineAdFile = ".machine.ad";

/// Creates EXECUTE (0755, if missing) and EXECUTE/dir_<pid> (0700, chowned to uid:gid when
/// `chown` is set). Fails if the sandbox already exists, so no two jobs share one.
bool sandbox_create(const std::string& execute, pid_t pid, uid_t uid, gid_t gid, bool chown,
                    std::string* dir, std::string* err);
/// `Name = expr` lines, in HTCondor's attribute order.
std::string ad_to_old_text(const classad::ClassAd& ad);
/// Writes an ad file (mode 0644, atomically). In the sandbox, call it as the job's user
/// (AsUser) so that the file is the user's and no planted symlink is followed as root.
bool ad_file_write(const std::string& path, const classad::ClassAd& ad, std::string* err);

}  // namespace kite::starter
