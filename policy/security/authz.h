// Authorization of network peers: the levels READ, WRITE, ADMINISTRATOR and DAEMON granted by
// ALLOW_<LEVEL> / DENY_<LEVEL> lists of certificate identities, in the spirit of HTCondor's.
//
// A list is comma/space separated; `*` matches any run of characters; matching ignores case.
// An entry with a '/' is matched against "ROLE/CN" (e.g. "admin/*", "agent/node-*"); any
// other entry against the CN and each DNS SAN. A level is granted when the peer is in its
// ALLOW list or holds a level that implies it, and is not in its DENY list (DENY wins).
// Implications follow HTCondor's permission hierarchy: ADMINISTRATOR and DAEMON imply WRITE,
// WRITE implies READ; ADMINISTRATOR and DAEMON do not imply each other. An unset ALLOW list
// grants nobody.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kite::policy {

enum class AuthLevel { kRead = 0, kWrite, kAdministrator, kDaemon };
inline constexpr int kAuthLevels = 4;
const char* auth_level_name(AuthLevel l);  // "READ", ...

struct AuthSubject {
  std::string cn;
  std::string role;
  std::vector<std::string> sans;
};

struct AuthzPolicy {
  std::vector<std::string> allow[kAuthLevels];
  std::vector<std::string> deny[kAuthLevels];
};

/// Splits one ALLOW_*/DENY_* value into entries.
std::vector<std::string> authz_list(std::string_view value);
/// Builds the policy from a configuration lookup: `get(ctx, "ALLOW_READ")` returns the value
/// or an empty string.
AuthzPolicy authz_policy(std::string (*get)(void* ctx, const char* name), void* ctx);

bool authz_glob(std::string_view pattern, std::string_view text);
bool authorized(const AuthzPolicy& p, const AuthSubject& who, AuthLevel level);

}  // namespace kite::policy
