// Who a verified peer is: its certificate's CN (the machine name for agents and CMs, the user
// for admin/user certificates), its role (the OU kite pki writes) and its DNS SANs.
#pragma once

#include <mbedtls/x509_crt.h>

#include <string>
#include <string_view>
#include <vector>

namespace kite::net {

struct PeerIdentity {
  std::string cn;
  std::string role;  // agent|cm|admin|user, or empty for certificates without an OU
  std::vector<std::string> sans;
  /// The rule "an agent may advertise and act only for the machine named in its
  /// certificate": true when this peer is an agent whose CN is `machine` (case-insensitive).
  bool may_act_for_machine(std::string_view machine) const;
};

PeerIdentity identity_of(const mbedtls_x509_crt* crt);

/// The first value of the attribute `oid` (e.g. MBEDTLS_OID_AT_CN) in a distinguished name.
std::string dn_value(const mbedtls_x509_name* dn, const char* oid, size_t oid_len);

/// Message for an mbedTLS error code ("X509 - ... (-0x2700)").
std::string mbedtls_message(int code);

}  // namespace kite::net
