// Sandbox directory creation and the ad files in it.
#include "agent/starter/sandbox.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "agent/core/files.h"
#include "policy/classad/unparse.h"

namespace kite::starter {

bool sandbox_create(const std::string& execute, pid_t pid, uid_t uid, gid_t gid, bool chown,
                    std::string* dir, std::string* err) {
  // EXECUTE itself must be traversable by every slot user; only the sandbox is private.
  if (!core::make_dirs(execute, 0755, err)) return false;
  *dir = execute + (execute.back() == '/' ? "" : "/") + "dir_" + std::to_string(pid);
  if (::mkdir(dir->c_str(), 0700) != 0) {
    if (err) *err = "cannot create sandbox " + *dir + ": " + std::strerror(errno);
    return false;
  }
  // mkdir applies the umask; the mode is set explicitly.
  if (::chmod(dir->c_str(), 0700) != 0 || (chown && ::chown(dir->c_str(), uid, gid) != 0)) {
    if (err) *err = "cannot set owner/mode of sandbox " + *dir + ": " + std::strerror(errno);
    ::rmdir(dir->c_str());
    return false;
  }
  return true;
}

std::string ad_to_old_text(const classad::ClassAd& ad) {
  std::string out;
  for (const classad::ClassAd::Entry& e : ad.sorted_entries()) {
    classad::unparse_attr_name(out, e.name->view());
    out += " = ";
    classad::unparse_expr(out, e.expr);
    out += '\n';
  }
  return out;
}

bool ad_file_write(const std::string& path, const classad::ClassAd& ad, std::string* err) {
  return core::write_file_atomic(path, ad_to_old_text(ad), 0644, err,
                                 core::Durability::kProcessCrash);
}

}  // namespace kite::starter
