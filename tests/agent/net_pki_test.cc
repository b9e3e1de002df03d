// `kite pki` as operators run it: modes of the keys, what show prints, the CRL revoke writes
// (parsed back with mbedTLS's CRL parser), and clear errors. The command is in the full build
// only; a node-only suite checks the library's part (agent/net/pki.h) and skips the rest.
#include <mbedtls/x509_crl.h>
#include <mbedtls/x509_crt.h>
#include <sys/stat.h>

#include "net_test_util.h"

namespace kite::test {
namespace {

int mode_of(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 0777) : -1;
}

TEST(Pki, InitAndIssueWriteKeysOwnerOnly) {
  TestPool pool;
  EXPECT_EQ(mode_of(pool.ca() + "/ca.key"), 0600);
  EXPECT_EQ(mode_of(pool.ca() + "/ca.crt"), 0644);
  pool.issue("agent", "node7");
  EXPECT_EQ(mode_of(pool.dir + "/node7.key"), 0600);
  EXPECT_EQ(mode_of(pool.dir + "/node7.crt"), 0644);
  REQUIRE_PKI_COMMAND();
  // A second init over a CA refuses instead of replacing the pool's key.
  std::vector<std::string> argv = kite_command();
  argv.insert(argv.end(), {"pki", "init", pool.ca()});
  CmdResult r = run_cmd(argv);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
}

TEST(Pki, ShowPrintsSubjectIssuerSansRoleValiditySerial) {
  REQUIRE_PKI_COMMAND();
  TestPool pool;
  kite_ok({"pki", "issue", "--ca", pool.ca(), "--role", "cm", "cm.example.org", "--san", "cm-alias",
           "--out", pool.dir, "--days", "10"});
  CmdResult r = kite_ok({"pki", "show", pool.dir + "/cm.example.org.crt"});
  EXPECT_NE(r.out.find("Subject: CN=cm.example.org, OU=cm, O=Kite pool\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Issuer: CN=Kite pool CA, O=Kite pool\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Role: cm\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SANs: cm.example.org, cm-alias\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Not after: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Serial: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Status: valid\n"), std::string::npos) << r.out;
  // The validity is the asked ten days (not-after minus not-before is 10 days + the hour of
  // clock-skew allowance in not-before).
  mbedtls_x509_crt crt;
  mbedtls_x509_crt_init(&crt);
  ASSERT_EQ(mbedtls_x509_crt_parse_file(&crt, (pool.dir + "/cm.example.org.crt").c_str()), 0);
  auto days = [](const mbedtls_x509_time& t) {
    struct tm tm {};
    tm.tm_year = t.year - 1900;
    tm.tm_mon = t.mon - 1;
    tm.tm_mday = t.day;
    tm.tm_hour = t.hour;
    tm.tm_min = t.min;
    tm.tm_sec = t.sec;
    return static_cast<int64_t>(timegm(&tm));
  };
  EXPECT_EQ(days(crt.valid_to) - days(crt.valid_from), 10 * 86400 + 3600);
  EXPECT_EQ(crt.ca_istrue, 0);
  mbedtls_x509_crt_free(&crt);
  pool.issue("user", "old", 0);
  r = kite_ok({"pki", "show", pool.dir + "/old.crt"});
  EXPECT_NE(r.out.find("Status: expired\n"), std::string::npos) << r.out;
}

TEST(Pki, RevokeAddsTheSerialToASignedCrl) {
  REQUIRE_PKI_COMMAND();
  TestPool pool;
  pool.issue("agent", "a1");
  pool.issue("agent", "a2");
  pool.issue("agent", "a3");
  kite_ok({"pki", "revoke", "--ca", pool.ca(), pool.dir + "/a1.crt"});
  kite_ok({"pki", "revoke", "--ca", pool.ca(), pool.dir + "/a3.crt"});
  kite_ok({"pki", "revoke", "--ca", pool.ca(), pool.dir + "/a3.crt"});  // again: no change
  mbedtls_x509_crl crl;
  mbedtls_x509_crl_init(&crl);
  ASSERT_EQ(mbedtls_x509_crl_parse_file(&crl, (pool.ca() + "/crl.pem").c_str()), 0);
  EXPECT_EQ(crl.version, 2);
  int entries = 0;
  for (const mbedtls_x509_crl_entry* e = &crl.entry; e && e->serial.len; e = e->next) ++entries;
  EXPECT_EQ(entries, 2);
  mbedtls_x509_crt ca, a1, a2, a3;
  for (auto* c : {&ca, &a1, &a2, &a3}) mbedtls_x509_crt_init(c);
  ASSERT_EQ(mbedtls_x509_crt_parse_file(&ca, (pool.ca() + "/ca.crt").c_str()), 0);
  ASSERT_EQ(mbedtls_x509_crt_parse_file(&a1, (pool.dir + "/a1.crt").c_str()), 0);
  ASSERT_EQ(mbedtls_x509_crt_parse_file(&a2, (pool.dir + "/a2.crt").c_str()), 0);
  ASSERT_EQ(mbedtls_x509_crt_parse_file(&a3, (pool.dir + "/a3.crt").c_str()), 0);
  EXPECT_EQ(mbedtls_x509_crt_is_revoked(&a1, &crl), 1);
  EXPECT_EQ(mbedtls_x509_crt_is_revoked(&a2, &crl), 0);
  EXPECT_EQ(mbedtls_x509_crt_is_revoked(&a3, &crl), 1);
  // Verification with the CRL checks its signature by the CA: a1 fails as revoked, a2 passes.
  uint32_t flags = 0;
  EXPECT_NE(mbedtls_x509_crt_verify(&a1, &ca, &crl, nullptr, &flags, nullptr, nullptr), 0);
  EXPECT_TRUE(flags & MBEDTLS_X509_BADCERT_REVOKED);
  flags = 0;
  EXPECT_EQ(mbedtls_x509_crt_verify(&a2, &ca, &crl, nullptr, &flags, nullptr, nullptr), 0)
      << "flags " << flags;
  for (auto* c : {&ca, &a1, &a2, &a3}) mbedtls_x509_crt_free(c);
  mbedtls_x509_crl_free(&crl);
}

TEST(Pki, ErrorsAreClear) {
  REQUIRE_PKI_COMMAND();
  TestPool pool;
  std::vector<std::string> base = kite_command();
  auto run = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), args.begin(), args.end());
    return run_cmd(argv);
  };
  CmdResult r = run({"pki", "issue", "--ca", pool.ca(), "--role", "king", "x"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("role 'king'"), std::string::npos) << r.err;
  r = run({"pki", "issue", "--ca", pool.dir + "/nope", "--role", "agent", "x"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(pool.dir + "/nope/ca.key"), std::string::npos) << r.err;
  r = run({"pki", "issue", "--ca", pool.ca(), "--role", "agent", "bad,name"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("bad,name"), std::string::npos) << r.err;
  TestPool other;
  other.issue("agent", "foreign");
  r = run({"pki", "revoke", "--ca", pool.ca(), other.dir + "/foreign.crt"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("was not issued by"), std::string::npos) << r.err;
  r = run({"pki", "show", pool.dir + "/missing.crt"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("missing.crt"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kite::test
