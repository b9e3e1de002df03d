// ALLOW_*/DENY_* evaluation for certificate identities (see authz.h for the rules).
#include "policy/security/authz.h"

#include "policy/config/typed.h"

#include <cctype>

namespace kite::policy {
namespace {

bool in_list(const std::vector<std::string>& list, const AuthSubject& who) {
  for (const std::string& e : list) {
    if (e.find('/') != std::string::npos) {
      if (authz_glob(e, who.role + "/" + who.cn)) return true;
      continue;
    }
    if (authz_glob(e, who.cn)) return true;
    for (const std::string& s : who.sans)
      if (authz_glob(e, s)) return true;
  }
  return false;
}

}  // namespace

const char* auth_level_name(AuthLevel l) {
  switch (l) {
    case AuthLevel::kRead: return "READ";
    case AuthLevel::kWrite: return "WRITE";
    case AuthLevel::kAdministrator: return "ADMINISTRATOR";
    case AuthLevel::kDaemon: return "DAEMON";
  }
  return "?";
}

std::vector<std::string> authz_list(std::string_view value) {
  return config::split_list(value);
}

AuthzPolicy authz_policy(std::string (*get)(void* ctx, const char* name), void* ctx) {
  AuthzPolicy p;
  for (int i = 0; i < kAuthLevels; ++i) {
    std::string level = auth_level_name(static_cast<AuthLevel>(i));
    p.allow[i] = authz_list(get(ctx, ("ALLOW_" + level).c_str()));
    p.deny[i] = authz_list(get(ctx, ("DENY_" + level).c_str()));
  }
  return p;
}

bool authz_glob(std::string_view pat, std::string_view text) {
  // Iterative glob with one backtrack point: linear enough for short identities.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pat.size() && pat[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pat.size() && std::tolower(static_cast<unsigned char>(pat[p])) ==
                                     std::tolower(static_cast<unsigned char>(text[t]))) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

bool authorized(const AuthzPolicy& p, const AuthSubject& who, AuthLevel level) {
  int i = static_cast<int>(level);
  if (in_list(p.deny[i], who)) return false;
  if (in_list(p.allow[i], who)) return true;
  switch (level) {
    case AuthLevel::kRead: return authorized(p, who, AuthLevel::kWrite);
    case AuthLevel::kWrite:
      return authorized(p, who, AuthLevel::kAdministrator) ||
             authorized(p, who, AuthLevel::kDaemon);
    default: return false;
  }
}

}  // namespace kite::policy
