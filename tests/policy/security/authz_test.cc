// ALLOW_*/DENY_* authorization of certificate identities (policy/security/authz).
#include "policy/security/authz.h"

#include <gtest/gtest.h>

#include <map>

namespace kite::policy {
namespace {

using L = AuthLevel;

AuthzPolicy make(const std::map<std::string, std::string>& cfg) {
  auto get = [](void* ctx, const char* name) -> std::string {
    const auto* m = static_cast<const std::map<std::string, std::string>*>(ctx);
    auto it = m->find(name);
    return it == m->end() ? "" : it->second;
  };
  return authz_policy(get, const_cast<std::map<std::string, std::string>*>(&cfg));
}

const AuthSubject kNode{"node1.example.org", "agent", {"node1.example.org", "node1"}};
const AuthSubject kAdmin{"alice", "admin", {"alice"}};
const AuthSubject kCm{"cm.example.org", "cm", {"cm.example.org", "localhost"}};

TEST(NetAuthz, ListsSplitOnCommasAndSpaces) {
  EXPECT_EQ(authz_list(" a, b  c,,d\te "), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_TRUE(authz_list("").empty());
}

TEST(NetAuthz, GlobMatchesLikeHTCondorWildcards) {
  EXPECT_TRUE(authz_glob("*", "anything"));
  EXPECT_TRUE(authz_glob("*.example.org", "node1.example.org"));
  EXPECT_FALSE(authz_glob("*.example.org", "node1.example.com"));
  EXPECT_TRUE(authz_glob("node*", "NODE12"));  // case-insensitive
  EXPECT_TRUE(authz_glob("n*1*g", "node1.example.org"));
  EXPECT_FALSE(authz_glob("node", "node1"));
  EXPECT_TRUE(authz_glob("a*b*c", "aXbYbc"));
  EXPECT_FALSE(authz_glob("a*b*c", "aXbYb"));
}

TEST(NetAuthz, UnsetGrantsNobody) {
  AuthzPolicy p = make({});
  for (int l = 0; l < kAuthLevels; ++l) EXPECT_FALSE(authorized(p, kAdmin, static_cast<L>(l)));
}

TEST(NetAuthz, MatchesCnSansAndRoleSlashCn) {
  AuthzPolicy p = make({{"ALLOW_READ", "node1"},
                        {"ALLOW_WRITE", "admin/*"},
                        {"ALLOW_DAEMON", "agent/*.example.org"}});
  EXPECT_TRUE(authorized(p, kNode, L::kRead));  // by SAN "node1"
  EXPECT_FALSE(authorized(p, kCm, L::kRead));
  EXPECT_TRUE(authorized(p, kAdmin, L::kWrite));  // by role/CN
  EXPECT_FALSE(authorized(p, kNode, L::kAdministrator));
  EXPECT_TRUE(authorized(p, kNode, L::kDaemon));
  EXPECT_FALSE(authorized(p, kCm, L::kDaemon));  // role cm, not agent
}

TEST(NetAuthz, HigherLevelsImplyWriteAndRead) {
  AuthzPolicy p = make({{"ALLOW_ADMINISTRATOR", "alice"}, {"ALLOW_DAEMON", "agent/*"}});
  EXPECT_TRUE(authorized(p, kAdmin, L::kWrite));
  EXPECT_TRUE(authorized(p, kAdmin, L::kRead));
  EXPECT_FALSE(authorized(p, kAdmin, L::kDaemon));  // ADMINISTRATOR does not imply DAEMON
  EXPECT_TRUE(authorized(p, kNode, L::kWrite));
  EXPECT_TRUE(authorized(p, kNode, L::kRead));
  EXPECT_FALSE(authorized(p, kNode, L::kAdministrator));  // nor DAEMON ADMINISTRATOR
  AuthzPolicy w = make({{"ALLOW_WRITE", "*"}});
  EXPECT_TRUE(authorized(w, kCm, L::kRead));
  EXPECT_FALSE(authorized(w, kCm, L::kAdministrator));  // lower never implies higher
}

TEST(NetAuthz, DenyWinsOverAllow) {
  AuthzPolicy p = make({{"ALLOW_READ", "*"},
                        {"DENY_READ", "*.example.org"},
                        {"ALLOW_ADMINISTRATOR", "alice bob"},
                        {"DENY_ADMINISTRATOR", "bob"},
                        {"DENY_WRITE", "mallory"},
                        {"ALLOW_WRITE", "*"}});
  EXPECT_FALSE(authorized(p, kNode, L::kRead));
  EXPECT_TRUE(authorized(p, kAdmin, L::kRead));
  EXPECT_TRUE(authorized(p, kAdmin, L::kAdministrator));
  EXPECT_FALSE(authorized(p, AuthSubject{"bob", "admin", {}}, L::kAdministrator));
  EXPECT_FALSE(authorized(p, AuthSubject{"mallory", "user", {}}, L::kWrite));
  // DENY_READ holds even for a peer whose WRITE would imply READ.
  AuthzPolicy q = make({{"ALLOW_WRITE", "*"}, {"DENY_READ", "alice"}});
  EXPECT_TRUE(authorized(q, kAdmin, L::kWrite));
  EXPECT_FALSE(authorized(q, kAdmin, L::kRead));
}

}  // namespace
}  // namespace kite::policy
