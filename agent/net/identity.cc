// Reading a peer's identity out of its verified certificate.
#include "agent/net/identity.h"

#include <mbedtls/asn1.h>
#include <mbedtls/error.h>
#include <mbedtls/oid.h>
#include <strings.h>

#include <cstdio>
#include <cstring>

namespace kite::net {

bool PeerIdentity::may_act_for_machine(std::string_view machine) const {
  return role == "agent" && !cn.empty() && cn.size() == machine.size() &&
         strncasecmp(cn.data(), machine.data(), cn.size()) == 0;
}

std::string dn_value(const mbedtls_x509_name* dn, const char* oid, size_t oid_len) {
  for (; dn; dn = dn->next) {
    if (dn->oid.len == oid_len && memcmp(dn->oid.p, oid, oid_len) == 0)
      return std::string(reinterpret_cast<const char*>(dn->val.p), dn->val.len);
  }
  return "";
}

PeerIdentity identity_of(const mbedtls_x509_crt* crt) {
  PeerIdentity id;
  if (!crt) return id;
  id.cn = dn_value(&crt->subject, MBEDTLS_OID_AT_CN, MBEDTLS_OID_SIZE(MBEDTLS_OID_AT_CN));
  id.role =
      dn_value(&crt->subject, MBEDTLS_OID_AT_ORG_UNIT, MBEDTLS_OID_SIZE(MBEDTLS_OID_AT_ORG_UNIT));
  for (const mbedtls_x509_sequence* s = &crt->subject_alt_names; s && s->buf.p; s = s->next) {
    if (s->buf.tag == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | 2))  // dNSName
      id.sans.emplace_back(reinterpret_cast<const char*>(s->buf.p), s->buf.len);
  }
  return id;
}

std::string mbedtls_message(int code) {
  char buf[160];
  mbedtls_strerror(code, buf, sizeof buf);
  char hex[24];
  std::snprintf(hex, sizeof hex, " (-0x%04x)", static_cast<unsigned>(-code));
  return std::string(buf) + hex;
}

}  // namespace kite::net
