// The slot user's account (agent/core/accounts parses /etc/passwd and /etc/group without NSS)
// and the fsuid switch for file access on its behalf.
#include "agent/starter/user.h"

#include <sys/fsuid.h>

#include <cstdlib>

#include "agent/core/accounts.h"
#include "agent/core/files.h"

namespace kite::starter {

bool user_lookup(const std::string& etc, const std::string& name, UserInfo* out, std::string* err) {
  *out = UserInfo();
  if (name.empty()) {
    if (err) *err = "empty user name";
    return false;
  }
  std::string passwd = etc + "/passwd", group = etc + "/group";
  std::string rerr;
  std::string text;
  if (!core::read_file(passwd, &text, &rerr)) {
    if (err) *err = rerr;
    return false;
  }
  bool by_id = name.find_first_not_of("0123456789") == std::string::npos && name.size() <= 10;
  unsigned long numeric = by_id ? std::strtoul(name.c_str(), nullptr, 10) : 0;
  if (by_id && numeric > 0xfffffffeul) by_id = false;
  core::Account acct;
  bool found = by_id ? core::account_by_uid(static_cast<uid_t>(numeric), &acct, passwd.c_str())
                     : core::account_by_name(name, &acct, passwd.c_str());
  if (found) {
    out->name = acct.name;
    out->uid = acct.uid;
    out->gid = acct.gid;
    out->home = acct.home;
  } else if (by_id) {
    // A uid no passwd line names: uid = gid = the number.
    out->name = name;
    out->uid = static_cast<uid_t>(numeric);
    out->gid = static_cast<gid_t>(numeric);
    out->home = "/";
  } else {
    if (err) *err = "no user '" + name + "' in " + passwd;
    return false;
  }
  out->groups = core::account_groups(out->name, out->gid, group.c_str());
  return true;
}

AsUser::AsUser(bool on, uid_t uid, gid_t gid) : on_(on) {
  if (!on_) return;
  // Group first: after the uid changes, changing the group would no longer be allowed.
  old_gid_ = setfsgid(gid);
  old_uid_ = setfsuid(uid);
}

AsUser::~AsUser() {
  if (!on_) return;
  setfsuid(static_cast<uid_t>(old_uid_));
  setfsgid(static_cast<gid_t>(old_gid_));
}

}  // namespace kite::starter
