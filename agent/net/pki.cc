// `kite pki`'s work: key generation, certificate issue, the CRL. mbedTLS 2.28 has no CRL
// writer, so the CRL's DER is assembled with its ASN.1 writer and signed with mbedtls_pk_sign.
#include "agent/net/pki.h"

#include <mbedtls/asn1write.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/ecp.h>
#include <mbedtls/entropy.h>
#include <mbedtls/md.h>
#include <mbedtls/oid.h>
#include <mbedtls/pem.h>
#include <mbedtls/pk.h>
#include <mbedtls/x509_crl.h>
#include <mbedtls/x509_crt.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <ctime>

#include "agent/core/files.h"
#include "agent/net/identity.h"

namespace kite::net {
namespace {

// Entropy and a DRBG seeded from it, freed on scope exit.
struct Rng {
  mbedtls_entropy_context entropy;
  mbedtls_ctr_drbg_context drbg;
  bool ok = false;
  Rng() {
    mbedtls_entropy_init(&entropy);
    mbedtls_ctr_drbg_init(&drbg);
    static const unsigned char kPers[] = "kite-pki";
    ok = mbedtls_ctr_drbg_seed(&drbg, mbedtls_entropy_func, &entropy, kPers, sizeof kPers - 1) == 0;
  }
  ~Rng() {
    mbedtls_ctr_drbg_free(&drbg);
    mbedtls_entropy_free(&entropy);
  }
};

struct Key {
  mbedtls_pk_context pk;
  Key() { mbedtls_pk_init(&pk); }
  ~Key() { mbedtls_pk_free(&pk); }
};

struct Crt {
  mbedtls_x509_crt crt;
  Crt() { mbedtls_x509_crt_init(&crt); }
  ~Crt() { mbedtls_x509_crt_free(&crt); }
};

bool fail(std::string* err, const std::string& what, int code) {
  if (err) *err = what + ": " + mbedtls_message(code);
  return false;
}

// Names go into distinguished names unquoted, so only characters that need no escaping.
bool name_ok(const std::string& s, bool allow_space) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_' || c == '@' || (allow_space && c == ' ');
    if (!ok) return false;
  }
  return true;
}

mbedtls_x509_time to_x509_time(time_t t) {
  struct tm tm;
  gmtime_r(&t, &tm);
  mbedtls_x509_time x;
  x.year = tm.tm_year + 1900;
  x.mon = tm.tm_mon + 1;
  x.day = tm.tm_mday;
  x.hour = tm.tm_hour;
  x.min = tm.tm_min;
  x.sec = tm.tm_sec;
  return x;
}

// "YYYYMMDDhhmmss", the form mbedtls_x509write_crt_set_validity takes.
std::string validity_text(time_t t) {
  mbedtls_x509_time x = to_x509_time(t);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d%02d%02d%02d%02d%02d", x.year, x.mon, x.day, x.hour, x.min,
                x.sec);
  return buf;
}

std::string human_time(const mbedtls_x509_time& x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d UTC", x.year, x.mon, x.day, x.hour,
                x.min, x.sec);
  return buf;
}

bool load_key(const std::string& path, Key* k, std::string* err) {
  int rc = mbedtls_pk_parse_keyfile(&k->pk, path.c_str(), nullptr);
  return rc == 0 || fail(err, path, rc);
}

bool load_crt(const std::string& path, Crt* c, std::string* err) {
  int rc = mbedtls_x509_crt_parse_file(&c->crt, path.c_str());
  return rc == 0 || fail(err, path, rc);
}

bool gen_key(Rng* rng, Key* k, std::string* err) {
  int rc = mbedtls_pk_setup(&k->pk, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY));
  if (rc == 0)
    rc = mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(k->pk),
                             mbedtls_ctr_drbg_random, &rng->drbg);
  return rc == 0 || fail(err, "generating a P-256 key", rc);
}

bool write_key(const Key& k, const std::string& path, std::string* err) {
  unsigned char buf[1024];
  int rc = mbedtls_pk_write_key_pem(const_cast<mbedtls_pk_context*>(&k.pk), buf, sizeof buf);
  if (rc != 0) return fail(err, path, rc);
  return core::write_file_atomic(path, reinterpret_cast<const char*>(buf), 0600, err);
}

// The subjectAltName extension's value: a SEQUENCE of dNSName ([2] IA5String).
int san_der(const std::vector<std::string>& sans, unsigned char* buf, size_t size,
            unsigned char** out) {
  unsigned char* p = buf + size;
  size_t len = 0;
  int ret = 0;
  for (size_t i = sans.size(); i-- > 0;) {
    const std::string& s = sans[i];
    MBEDTLS_ASN1_CHK_ADD(len,
                         mbedtls_asn1_write_raw_buffer(
                             &p, buf, reinterpret_cast<const unsigned char*>(s.data()), s.size()));
    MBEDTLS_ASN1_CHK_ADD(len, mbedtls_asn1_write_len(&p, buf, s.size()));
    MBEDTLS_ASN1_CHK_ADD(len, mbedtls_asn1_write_tag(&p, buf, MBEDTLS_ASN1_CONTEXT_SPECIFIC | 2));
  }
  MBEDTLS_ASN1_CHK_ADD(len, mbedtls_asn1_write_len(&p, buf, len));
  MBEDTLS_ASN1_CHK_ADD(
      len, mbedtls_asn1_write_tag(&p, buf, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE));
  *out = p;
  return static_cast<int>(len);
}

struct CertSpec {
  const Key* subject_key;
  const Key* issuer_key;
  std::string subject, issuer;
  bool is_ca;
  std::vector<std::string> sans;
  time_t not_before, not_after;
};

bool write_cert(const CertSpec& s, Rng* rng, const std::string& path, std::string* err) {
  mbedtls_x509write_cert w;
  mbedtls_x509write_crt_init(&w);
  mbedtls_mpi serial;
  mbedtls_mpi_init(&serial);
  unsigned char pem[4096];
  unsigned char san[2048];
  int rc = mbedtls_mpi_fill_random(&serial, 16, mbedtls_ctr_drbg_random, &rng->drbg);
  if (rc == 0) rc = mbedtls_mpi_set_bit(&serial, 127, 0);  // positive
  if (rc == 0) rc = mbedtls_mpi_set_bit(&serial, 126, 1);  // and never zero
  mbedtls_x509write_crt_set_version(&w, MBEDTLS_X509_CRT_VERSION_3);
  mbedtls_x509write_crt_set_md_alg(&w, MBEDTLS_MD_SHA256);
  mbedtls_x509write_crt_set_subject_key(&w, const_cast<mbedtls_pk_context*>(&s.subject_key->pk));
  mbedtls_x509write_crt_set_issuer_key(&w, const_cast<mbedtls_pk_context*>(&s.issuer_key->pk));
  if (rc == 0) rc = mbedtls_x509write_crt_set_serial(&w, &serial);
  if (rc == 0) rc = mbedtls_x509write_crt_set_subject_name(&w, s.subject.c_str());
  if (rc == 0) rc = mbedtls_x509write_crt_set_issuer_name(&w, s.issuer.c_str());
  if (rc == 0)
    rc = mbedtls_x509write_crt_set_validity(&w, validity_text(s.not_before).c_str(),
                                            validity_text(s.not_after).c_str());
  if (rc == 0) rc = mbedtls_x509write_crt_set_basic_constraints(&w, s.is_ca, s.is_ca ? 0 : -1);
  if (rc == 0)
    rc = mbedtls_x509write_crt_set_key_usage(
        &w, s.is_ca ? (MBEDTLS_X509_KU_KEY_CERT_SIGN | MBEDTLS_X509_KU_CRL_SIGN)
                    : MBEDTLS_X509_KU_DIGITAL_SIGNATURE);
  if (rc == 0 && !s.sans.empty()) {
    unsigned char* der = nullptr;
    int n = san_der(s.sans, san, sizeof san, &der);
    rc = n < 0 ? n
               : mbedtls_x509write_crt_set_extension(&w, MBEDTLS_OID_SUBJECT_ALT_NAME,
                                                     MBEDTLS_OID_SIZE(MBEDTLS_OID_SUBJECT_ALT_NAME),
                                                     0, der, static_cast<size_t>(n));
  }
  if (rc == 0)
    rc = mbedtls_x509write_crt_pem(&w, pem, sizeof pem, mbedtls_ctr_drbg_random, &rng->drbg);
  mbedtls_mpi_free(&serial);
  mbedtls_x509write_crt_free(&w);
  if (rc != 0) return fail(err, "writing " + path, rc);
  return core::write_file_atomic(path, reinterpret_cast<const char*>(pem), 0644, err);
}

struct Revoked {
  std::string serial;  // the INTEGER's content octets, as in the certificate
  mbedtls_x509_time when;
};

int write_time(unsigned char** p, unsigned char* start, const mbedtls_x509_time& t) {
  char buf[80];  // room for any int fields (the compiler checks), 15 bytes in practice
  int ret = 0;
  size_t len = 0;
  bool utc = t.year < 2050;  // RFC 5280: UTCTime through 2049, GeneralizedTime after
  if (utc)
    std::snprintf(buf, sizeof buf, "%02d%02d%02d%02d%02d%02dZ", t.year % 100, t.mon, t.day, t.hour,
                  t.min, t.sec);
  else
    std::snprintf(buf, sizeof buf, "%04d%02d%02d%02d%02d%02dZ", t.year, t.mon, t.day, t.hour, t.min,
                  t.sec);
  size_t n = std::strlen(buf);
  MBEDTLS_ASN1_CHK_ADD(
      len, mbedtls_asn1_write_raw_buffer(p, start, reinterpret_cast<unsigned char*>(buf), n));
  MBEDTLS_ASN1_CHK_ADD(len, mbedtls_asn1_write_len(p, start, n));
  MBEDTLS_ASN1_CHK_ADD(
      len, mbedtls_asn1_write_tag(p, start,
                                  utc ? MBEDTLS_ASN1_UTC_TIME : MBEDTLS_ASN1_GENERALIZED_TIME));
  return static_cast<int>(len);
}

// AlgorithmIdentifier of the CA's signature: ECDSA takes no parameters, RSA a NULL.
int write_sig_alg(unsigned char** p, unsigned char* start, mbedtls_pk_type_t type) {
  const char* oid = nullptr;
  size_t oid_len = 0;
  int ret = mbedtls_oid_get_oid_by_sig_alg(type, MBEDTLS_MD_SHA256, &oid, &oid_len);
  if (ret != 0) return ret;
  size_t len = 0;
  if (type == MBEDTLS_PK_RSA) MBEDTLS_ASN1_CHK_ADD(len, mbedtls_asn1_write_null(p, start));
  MBEDTLS_ASN1_CHK_ADD(len, mbedtls_asn1_write_oid(p, start, oid, oid_len));
  MBEDTLS_ASN1_CHK_ADD(len, mbedtls_asn1_write_len(p, start, len));
  MBEDTLS_ASN1_CHK_ADD(
      len, mbedtls_asn1_write_tag(p, start, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE));
  return static_cast<int>(len);
}

int seq(unsigned char** p, unsigned char* start, size_t len) {
  int ret = 0;
  size_t n = 0;
  MBEDTLS_ASN1_CHK_ADD(n, mbedtls_asn1_write_len(p, start, len));
  MBEDTLS_ASN1_CHK_ADD(
      n, mbedtls_asn1_write_tag(p, start, MBEDTLS_ASN1_CONSTRUCTED | MBEDTLS_ASN1_SEQUENCE));
  return static_cast<int>(n);
}

// TBSCertList (RFC 5280 5.1): version v2, signature, issuer, thisUpdate, nextUpdate,
// revokedCertificates (left out when empty). Written back to front, as mbedTLS's writer works.
int crl_tbs(const Crt& ca, mbedtls_pk_type_t sig_type, const std::vector<Revoked>& revoked,
            const mbedtls_x509_time& now, unsigned char* buf, size_t size, unsigned char** out) {
  unsigned char* p = buf + size;
  size_t len = 0;
  int ret = 0;
  if (!revoked.empty()) {
    size_t list = 0;
    for (size_t i = revoked.size(); i-- > 0;) {
      size_t e = 0;
      const std::string& s = revoked[i].serial;
      MBEDTLS_ASN1_CHK_ADD(e, write_time(&p, buf, revoked[i].when));
      MBEDTLS_ASN1_CHK_ADD(
          e, mbedtls_asn1_write_raw_buffer(
                 &p, buf, reinterpret_cast<const unsigned char*>(s.data()), s.size()));
      MBEDTLS_ASN1_CHK_ADD(e, mbedtls_asn1_write_len(&p, buf, s.size()));
      MBEDTLS_ASN1_CHK_ADD(e, mbedtls_asn1_write_tag(&p, buf, MBEDTLS_ASN1_INTEGER));
      MBEDTLS_ASN1_CHK_ADD(e, seq(&p, buf, e));
      list += e;
    }
    MBEDTLS_ASN1_CHK_ADD(list, seq(&p, buf, list));
    len += list;
  }
  // The CRL stays valid as long as the CA: an expired CRL would refuse every peer.
  MBEDTLS_ASN1_CHK_ADD(len, write_time(&p, buf, ca.crt.valid_to));
  MBEDTLS_ASN1_CHK_ADD(len, write_time(&p, buf, now));
  // The issuer exactly as the CA certificate spells its subject (mbedTLS compares bytes).
  MBEDTLS_ASN1_CHK_ADD(
      len, mbedtls_asn1_write_raw_buffer(&p, buf, ca.crt.subject_raw.p, ca.crt.subject_raw.len));
  MBEDTLS_ASN1_CHK_ADD(len, write_sig_alg(&p, buf, sig_type));
  MBEDTLS_ASN1_CHK_ADD(len, mbedtls_asn1_write_int(&p, buf, 1));  // v2
  MBEDTLS_ASN1_CHK_ADD(len, seq(&p, buf, len));
  *out = p;
  return static_cast<int>(len);
}

bool write_crl(const std::string& dir, const Crt& ca, Key* ca_key,
               const std::vector<Revoked>& revoked, Rng* rng, std::string* err) {
  const std::string path = dir + "/crl.pem";
  mbedtls_pk_type_t sig_type =
      mbedtls_pk_can_do(&ca_key->pk, MBEDTLS_PK_RSA) ? MBEDTLS_PK_RSA : MBEDTLS_PK_ECDSA;
  std::string tbs_buf(1024 + 64 * revoked.size(), '\0');
  auto* tb = reinterpret_cast<unsigned char*>(&tbs_buf[0]);
  unsigned char* tbs = nullptr;
  int n = crl_tbs(ca, sig_type, revoked, to_x509_time(time(nullptr)), tb, tbs_buf.size(), &tbs);
  if (n < 0) return fail(err, "encoding " + path, n);
  unsigned char hash[32];
  int rc =
      mbedtls_md(mbedtls_md_info_from_type(MBEDTLS_MD_SHA256), tbs, static_cast<size_t>(n), hash);
  unsigned char sig[MBEDTLS_PK_SIGNATURE_MAX_SIZE];
  size_t sig_len = 0;
  if (rc == 0)
    rc = mbedtls_pk_sign(&ca_key->pk, MBEDTLS_MD_SHA256, hash, 0, sig, &sig_len,
                         mbedtls_ctr_drbg_random, &rng->drbg);
  if (rc != 0) return fail(err, "signing " + path, rc);
  // CertificateList: SEQUENCE { tbsCertList, signatureAlgorithm, signatureValue BIT STRING }.
  std::string der_buf(static_cast<size_t>(n) + sizeof sig + 64, '\0');
  auto* db = reinterpret_cast<unsigned char*>(&der_buf[0]);
  unsigned char* p = db + der_buf.size();
  size_t len = 0;
  int ret = 0;
  auto outer = [&]() -> int {
    MBEDTLS_ASN1_CHK_ADD(len, mbedtls_asn1_write_bitstring(&p, db, sig, sig_len * 8));
    MBEDTLS_ASN1_CHK_ADD(len, write_sig_alg(&p, db, sig_type));
    MBEDTLS_ASN1_CHK_ADD(len, mbedtls_asn1_write_raw_buffer(&p, db, tbs, static_cast<size_t>(n)));
    MBEDTLS_ASN1_CHK_ADD(len, seq(&p, db, len));
    return 0;
  };
  if ((ret = outer()) < 0) return fail(err, "encoding " + path, ret);
  std::string pem(len * 2 + 128, '\0');
  size_t olen = 0;
  rc = mbedtls_pem_write_buffer("-----BEGIN X509 CRL-----\n", "-----END X509 CRL-----\n", p, len,
                                reinterpret_cast<unsigned char*>(&pem[0]), pem.size(), &olen);
  if (rc != 0) return fail(err, "encoding " + path, rc);
  pem.resize(olen > 0 && pem[olen - 1] == '\0' ? olen - 1 : olen);
  return core::write_file_atomic(path, pem, 0644, err);
}

}  // namespace

bool pki_role_valid(const std::string& role) {
  for (const char* r : kPkiRoles)
    if (role == r) return true;
  return false;
}

bool pki_init(const std::string& dir, const std::string& pool_name, int days, std::string* err) {
  if (!name_ok(pool_name, true)) {
    if (err) *err = "pool name '" + pool_name + "' must be 1-64 of A-Z a-z 0-9 . - _ @ space";
    return false;
  }
  if (days <= 0) {
    if (err) *err = "a CA needs a validity of at least one day";
    return false;
  }
  struct stat st;
  if (stat((dir + "/ca.key").c_str(), &st) == 0) {
    if (err) *err = dir + "/ca.key already exists (refusing to replace a pool CA)";
    return false;
  }
  if (!core::make_dirs(dir, 0700, err)) return false;
  Rng rng;
  if (!rng.ok) return fail(err, "seeding the random generator", -1);
  Key key;
  if (!gen_key(&rng, &key, err)) return false;
  time_t now = time(nullptr);
  CertSpec s{&key,
             &key,
             "CN=" + pool_name + " CA,O=" + pool_name,
             "CN=" + pool_name + " CA,O=" + pool_name,
             true,
             {},
             now - 3600,
             now + static_cast<time_t>(days) * 86400};
  if (!write_key(key, dir + "/ca.key", err)) return false;
  if (!write_cert(s, &rng, dir + "/ca.crt", err)) return false;
  Crt ca;
  if (!load_crt(dir + "/ca.crt", &ca, err)) return false;
  return write_crl(dir, ca, &key, {}, &rng, err);
}

bool pki_issue(const IssueRequest& req, std::string* err) {
  if (!pki_role_valid(req.role)) {
    if (err) *err = "role '" + req.role + "' is not one of agent, cm, admin, user";
    return false;
  }
  if (!name_ok(req.name, false)) {
    if (err) *err = "name '" + req.name + "' must be 1-64 of A-Z a-z 0-9 . - _ @";
    return false;
  }
  for (const std::string& s : req.sans) {
    if (!name_ok(s, false) || s.find('@') != std::string::npos) {
      if (err) *err = "SAN '" + s + "' is not a host name";
      return false;
    }
  }
  if (req.days < 0) {
    if (err) *err = "--days must be 0 or more";
    return false;
  }
  Key ca_key;
  Crt ca;
  if (!load_key(req.ca_dir + "/ca.key", &ca_key, err)) return false;
  if (!load_crt(req.ca_dir + "/ca.crt", &ca, err)) return false;
  char issuer[512];
  int rc = mbedtls_x509_dn_gets(issuer, sizeof issuer, &ca.crt.subject);
  if (rc < 0) return fail(err, req.ca_dir + "/ca.crt", rc);
  const std::string out = req.out_dir.empty() ? "." : req.out_dir;
  if (!core::make_dirs(out, 0755, err)) return false;
  Rng rng;
  if (!rng.ok) return fail(err, "seeding the random generator", -1);
  Key key;
  if (!gen_key(&rng, &key, err)) return false;
  std::vector<std::string> sans{req.name};
  for (const std::string& s : req.sans)
    if (s != req.name) sans.push_back(s);
  // The pool's organisation comes from the CA; --days 0 ends the validity a second ago.
  std::string org = dn_value(&ca.crt.subject, MBEDTLS_OID_AT_ORGANIZATION,
                             MBEDTLS_OID_SIZE(MBEDTLS_OID_AT_ORGANIZATION));
  std::string subject = "CN=" + req.name + ",OU=" + req.role;
  if (name_ok(org, true)) subject += ",O=" + org;
  time_t now = time(nullptr);
  time_t not_after = req.days == 0 ? now - 1 : now + static_cast<time_t>(req.days) * 86400;
  CertSpec s{&key, &ca_key, subject, issuer, false, sans, now - 3600, not_after};
  if (!write_key(key, out + "/" + req.name + ".key", err)) return false;
  return write_cert(s, &rng, out + "/" + req.name + ".crt", err);
}

bool pki_describe(const std::string& cert_file, std::string* out, std::string* err) {
  Crt c;
  if (!load_crt(cert_file, &c, err)) return false;
  char subject[512], issuer[512], serial[128];
  if (mbedtls_x509_dn_gets(subject, sizeof subject, &c.crt.subject) < 0) subject[0] = '\0';
  if (mbedtls_x509_dn_gets(issuer, sizeof issuer, &c.crt.issuer) < 0) issuer[0] = '\0';
  if (mbedtls_x509_serial_gets(serial, sizeof serial, &c.crt.serial) < 0) serial[0] = '\0';
  PeerIdentity id = identity_of(&c.crt);
  std::string sans;
  for (const std::string& s : id.sans) sans += (sans.empty() ? "" : ", ") + s;
  const char* status = mbedtls_x509_time_is_past(&c.crt.valid_to)       ? "expired"
                       : mbedtls_x509_time_is_future(&c.crt.valid_from) ? "not yet valid"
                                                                        : "valid";
  *out = std::string("Subject: ") + subject + "\nIssuer: " + issuer +
         "\nRole: " + (c.crt.ca_istrue ? "ca" : (id.role.empty() ? "(none)" : id.role)) +
         "\nSANs: " + (sans.empty() ? "(none)" : sans) +
         "\nNot before: " + human_time(c.crt.valid_from) +
         "\nNot after: " + human_time(c.crt.valid_to) + "\nSerial: " + serial +
         "\nStatus: " + status + "\n";
  return true;
}

bool pki_revoke(const std::string& ca_dir, const std::string& cert_file, std::string* err) {
  Key ca_key;
  Crt ca, victim;
  if (!load_key(ca_dir + "/ca.key", &ca_key, err)) return false;
  if (!load_crt(ca_dir + "/ca.crt", &ca, err)) return false;
  if (!load_crt(cert_file, &victim, err)) return false;
  // Signed by this CA (two pools may share a CA name); an expired certificate may be revoked.
  uint32_t flags = 0;
  mbedtls_x509_crt_verify(&victim.crt, &ca.crt, nullptr, nullptr, &flags, nullptr, nullptr);
  if (flags & ~static_cast<uint32_t>(MBEDTLS_X509_BADCERT_EXPIRED | MBEDTLS_X509_BADCERT_FUTURE |
                                     MBEDTLS_X509_BADCERT_CN_MISMATCH)) {
    if (err) *err = cert_file + " was not issued by the CA in " + ca_dir;
    return false;
  }
  std::vector<Revoked> revoked;
  const std::string crl_path = ca_dir + "/crl.pem";
  struct stat st;
  if (stat(crl_path.c_str(), &st) == 0) {
    mbedtls_x509_crl crl;
    mbedtls_x509_crl_init(&crl);
    int rc = mbedtls_x509_crl_parse_file(&crl, crl_path.c_str());
    if (rc != 0) {
      mbedtls_x509_crl_free(&crl);
      return fail(err, crl_path, rc);
    }
    for (const mbedtls_x509_crl_entry* e = &crl.entry; e; e = e->next) {
      if (e->serial.len == 0) continue;
      revoked.push_back({std::string(reinterpret_cast<const char*>(e->serial.p), e->serial.len),
                         e->revocation_date});
    }
    mbedtls_x509_crl_free(&crl);
  }
  std::string serial(reinterpret_cast<const char*>(victim.crt.serial.p), victim.crt.serial.len);
  for (const Revoked& r : revoked)
    if (r.serial == serial) return true;
  revoked.push_back({serial, to_x509_time(time(nullptr))});
  Rng rng;
  if (!rng.ok) return fail(err, "seeding the random generator", -1);
  return write_crl(ca_dir, ca, &ca_key, revoked, &rng, err);
}

}  // namespace kite::net
