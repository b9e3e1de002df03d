// User and group lookups from /etc/passwd and /etc/group read directly: the static binary
// must not go through NSS (glibc's getpwnam in a static program loads shared modules).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace kite::core {

struct Account {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string home;
  std::string shell;
};

/// By name or by uid, from `passwd_file`. False when absent or the file is unreadable.
bool account_by_name(const std::string& name, Account* out,
                     const char* passwd_file = "/etc/passwd");
bool account_by_uid(uid_t uid, Account* out, const char* passwd_file = "/etc/passwd");
/// A group's gid by name; false when absent.
bool group_gid(const std::string& name, gid_t* out, const char* group_file = "/etc/group");
/// Supplementary gids of `user` (groups listing the user as a member), plus `primary`.
std::vector<gid_t> account_groups(const std::string& user, gid_t primary,
                                  const char* group_file = "/etc/group");

}  // namespace kite::core
