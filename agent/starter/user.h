// The job's account: the slot user looked up by reading /etc/passwd and /etc/group directly
// (the static binary must not go through NSS), with its supplementary groups.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace kite::starter {

struct UserInfo {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups (the primary one included)
  std::string home;
};

/// Looks `name` up in ETC/passwd and ETC/group (`etc` = "/etc" on a node). A name made of
/// digits only is taken as a uid (from passwd if listed there, else uid = gid = the number).
/// False with a message when the user is unknown or the files cannot be read.
bool user_lookup(const std::string& etc, const std::string& name, UserInfo* out, std::string* err);

/// While alive, file access is checked as uid:gid (setfsuid/setfsgid), so that the root
/// starter reading or writing in the job's sandbox cannot be tricked by the job's symlinks.
/// Does nothing when `on` is false.
class AsUser {
 public:
  AsUser(bool on, uid_t uid, gid_t gid);
  ~AsUser();
  AsUser(const AsUser&) = delete;
  AsUser& operator=(const AsUser&) = delete;

 private:
  bool on_;
  int old_uid_ = 0, old_gid_ = 0;
};

}  // namespace kite::starter
