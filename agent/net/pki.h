// The pool's certificates (`kite pki`): a CA (ECDSA P-256), certificates it issues for the
// roles agent|cm|admin|user (role in OU, machine or user name in CN, hostnames in SANs), and
// the CRL the transport enforces. Errors come back as messages naming the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kite::net {

inline constexpr const char* kPkiRoles[] = {"agent", "cm", "admin", "user"};
bool pki_role_valid(const std::string& role);

/// Makes DIR (if needed) with ca.key (0600), ca.crt and an empty crl.pem, valid `days`.
bool pki_init(const std::string& dir, const std::string& pool_name, int days, std::string* err);

struct IssueRequest {
  std::string ca_dir;             // holds ca.key and ca.crt
  std::string role;               // agent|cm|admin|user
  std::string name;               // CN: the machine name for agent/cm, the user for admin/user
  std::vector<std::string> sans;  // DNS names (the CN is always added)
  std::string out_dir;            // NAME.key and NAME.crt land here
  int days = 365;                 // 0 makes a certificate that has already expired (tests, drills)
};
bool pki_issue(const IssueRequest& req, std::string* err);

/// What `kite pki show` prints, one "Field: value" per line.
bool pki_describe(const std::string& cert_file, std::string* out, std::string* err);

/// Adds `cert_file`'s serial to DIR/crl.pem (re-signed by the CA). Already revoked is not an
/// error.
bool pki_revoke(const std::string& ca_dir, const std::string& cert_file, std::string* err);

}  // namespace kite::net
