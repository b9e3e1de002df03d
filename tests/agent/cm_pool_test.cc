// `kite cm` with real agents on loopback: certificates from `kite pki`, every slot of two
// agents seen by `kite status -pool`, an agent refused for another machine's ads, a READ-less
// identity refused, and the fleet back within 5 s of the CM being killed and restarted.
#include <chrono>
#include <cstdio>
#include <regex>
#include <set>

#include "agent/core/files.h"
#include "pool_harness.h"

namespace kite::test {
namespace {

const std::set<std::string> kAllSlots = {"slot1@node-a", "slot2@node-a", "slot1@node-b",
                                         "slot2@node-b"};

TEST(CmPool, StatusShowsEverySlotAndTheFleetReturnsAfterKill9) {
  REQUIRE_CM();
  Pool pool;
  TestAgent a, b;
  std::string err;
  ASSERT_TRUE(pool.start_with_two_agents(&a, &b, &err)) << err;
  EXPECT_EQ(pool.names(), kAllSlots);

  // The default table, as condor_status prints it, lists every slot with its totals.
  CmdResult t = pool.status({}, "alice");
  EXPECT_EQ(t.status, 0) << t.err;
  for (const std::string& s : kAllSlots) EXPECT_NE(t.out.find(s), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("Total     4     0       0         4"), std::string::npos) << t.out;

  // A constraint is applied by the CM (and the table); one that does not parse is an error.
  CmdResult c = pool.status({"-constraint", "Machine == \"node-b\"", "-af", "Name"}, "alice");
  EXPECT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.out, "slot1@node-b\nslot2@node-b\n");
  c = pool.status({"-constraint", "Machine ==", "-af", "Name"}, "alice");
  EXPECT_NE(c.status, 0);
  EXPECT_NE(c.err.find("Machine =="), std::string::npos) << c.err;

  pool.kill_cm();
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  auto restarted = std::chrono::steady_clock::now();
  EXPECT_TRUE(eventually([&] { return pool.names() == kAllSlots; }, 20000))
      << "CM holds: " << testing::PrintToString(pool.names());
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - restarted).count();
  std::printf("fleet back %.2f s after the CM restarted\n", secs);
  EXPECT_LT(secs, 5.0) << "the agents took " << secs << " s to bring their ads back";
}

// `text` with its d+hh:mm:ss durations masked: the slots' MyCurrentTime is time(), evaluated when
// each command runs.
std::string clockless(const std::string& text) {
  static const std::regex kDuration("[0-9]+\\+[0-9]{2}:[0-9]{2}:[0-9]{2}");
  return std::regex_replace(text, kDuration, "d+hh:mm:ss");
}

// The CM sends only what a form prints (projected rows, counted totals); every form must print
// what the whole ads print. The whole ads are `-l` before and after the forms (equal: nothing
// changed in between), read back by `kite status -ads`.
TEST(CmPool, StatusFormsPrintWhatTheWholeAdsPrint) {
  REQUIRE_CM();
  Pool pool;
  TestAgent a, b;
  std::string err;
  ASSERT_TRUE(pool.start_with_two_agents(&a, &b, &err)) << err;
  const std::vector<std::vector<std::string>> forms = {
      {},
      {"-total"},
      {"-avail"},
      {"-avail", "-total"},
      {"-server", "-total"},
      {"-state", "-total"},
      {"-af", "Name", "Memory", "Cpus"},
      {"-constraint", "Cpus > 0", "-af", "Name", "State"},
      {"node-b"},
      {"-total", "node-a"},
      {"-total", "-af", "Name", "OpSys"},
      {"-claimed", "-total"},
      {"-state", "-total", "-json"},
  };
  std::string file = pool.pki().dir + "/whole.ads";
  bool compared = false;
  for (int attempt = 0; attempt < 5 && !compared; ++attempt) {
    CmdResult before = pool.status({"-l"}, "alice");
    ASSERT_EQ(before.status, 0) << before.err;
    std::vector<CmdResult> got;
    for (const auto& f : forms) got.push_back(pool.status(f, "alice"));
    if (pool.status({"-l"}, "alice").out != before.out) continue;  // an update came between
    ASSERT_TRUE(core::write_file_atomic(file, before.out, 0644, &err)) << err;
    for (size_t i = 0; i < forms.size(); ++i) {
      std::vector<std::string> argv = kite_command();
      argv.insert(argv.end(), {"status", "-ads", file});
      argv.insert(argv.end(), forms[i].begin(), forms[i].end());
      CmdResult want = run_cmd(argv, 30000);
      EXPECT_EQ(got[i].status, 0) << got[i].err;
      EXPECT_EQ(clockless(got[i].out), clockless(want.out)) << testing::PrintToString(forms[i]);
    }
    compared = true;
    EXPECT_NE(got[0].out.find("slot2@node-b"), std::string::npos) << got[0].out;
  }
  EXPECT_TRUE(compared) << "the ads kept changing";
}

TEST(CmPool, AnAgentMayAdvertiseOnlyItsOwnMachine) {
  REQUIRE_CM();
  Pool pool;
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  TestAgent liar, honest;
  std::string err;
  // node-a's certificate, claiming to be node-b.
  ASSERT_TRUE(pool.start_agent(&liar, "node-b", "node-a", &err)) << err;
  ASSERT_TRUE(pool.start_agent(&honest, "node-a", "node-a", &err)) << err;
  EXPECT_TRUE(eventually(
      [&] {
        return pool.cm_log().find("agent node-a may not advertise for machine 'node-b'") !=
               std::string::npos;
      },
      20000))
      << pool.cm_log();
  EXPECT_TRUE(eventually(
      [&] {
        return pool.names() == std::set<std::string>{"slot1@node-a", "slot2@node-a"};
      },
      20000))
      << testing::PrintToString(pool.names());
}

TEST(CmPool, QueriesNeedReadAndATrustedCertificate) {
  REQUIRE_CM();
  // WRITE implies READ: users, who write by default (submit), are left out of both.
  Pool pool("ALLOW_READ = admin/*, agent/*\nALLOW_WRITE = admin/*");
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  CmdResult r = pool.status({}, "alice");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("not authorized"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("user/alice lacks READ"), std::string::npos) << r.err;
  EXPECT_NE(pool.cm_log().find("refused user/alice"), std::string::npos) << pool.cm_log();
  EXPECT_EQ(pool.status({"-af", "Name"}, "root-admin").status, 0);

  // A certificate from another CA: the CM refuses it; and a CA that did not sign the CM's
  // certificate makes the client refuse the CM.
  TestPool other;
  other.issue("user", "mallory");
  auto as_mallory = [&](const std::string& ca) {
    std::vector<std::string> argv = {"env", "KITE_CA=" + ca + "/ca.crt",
                                     "KITE_CERT=" + other.dir + "/mallory.crt",
                                     "KITE_KEY=" + other.dir + "/mallory.key"};
    for (const std::string& w : kite_command()) argv.push_back(w);
    argv.insert(argv.end(), {"status", "-pool", "127.0.0.1:" + std::to_string(pool.port())});
    return run_cmd(argv);
  };
  CmdResult m = as_mallory(pool.pki().ca());
  EXPECT_EQ(m.status, 1);
  EXPECT_NE(m.err.find("did not trust your certificate"), std::string::npos) << m.err;
  m = as_mallory(other.ca());
  EXPECT_EQ(m.status, 1);
  EXPECT_NE(m.err.find("certificate is not trusted by your KITE_CA"), std::string::npos) << m.err;

  // Nothing listening: the CM is unreachable.
  pool.kill_cm();
  CmdResult u = pool.status({}, "root-admin");
  EXPECT_EQ(u.status, 1);
  EXPECT_NE(u.err.find("cannot reach the central manager at 127.0.0.1:"), std::string::npos)
      << u.err;
  EXPECT_NE(u.err.find("connection refused"), std::string::npos) << u.err;
}

TEST(CmPool, BadConfigurationIsNamed) {
  REQUIRE_CM();
  TestPool pki;
  pki.issue("cm", "cm1");
  auto run_cm = [&](const std::string& text) {
    std::string conf = pki.dir + "/bad.conf", err;
    EXPECT_TRUE(
        core::write_file_atomic(conf, "LOCAL_DIR = " + pki.dir + "/cm\n" + text, 0644, &err));
    std::vector<std::string> argv = kite_command();
    argv.insert(argv.end(), {"cm", "-c", conf, "--foreground"});
    return run_cmd(argv, 20000);
  };
  std::string tls = "KITE_CA = " + pki.ca() + "/ca.crt\nKITE_CERT = " + pki.dir +
                    "/cm1.crt\nKITE_KEY = " + pki.dir + "/cm1.key\n";
  CmdResult r = run_cm("KITE_CA = " + pki.ca() + "/ca.crt\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("KITE_CERT is not set"), std::string::npos) << r.err;
  r = run_cm(tls + "COLLECTOR_HOST = 127.0.0.1:99999\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("COLLECTOR_HOST: '127.0.0.1:99999': the port must be"), std::string::npos)
      << r.err;
  r = run_cm("KITE_CA = " + pki.ca() + "/ca.crt\nKITE_CERT = " + pki.dir +
             "/missing.crt\nKITE_KEY = " + pki.dir + "/cm1.key\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("missing.crt"), std::string::npos) << r.err;
  r = run_cm(tls + "CLASSAD_LIFETIME = soon\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("CLASSAD_LIFETIME"), std::string::npos) << r.err;
}

TEST(CmPool, AnAgentWithoutItsCertificateSaysWhichFile) {
  REQUIRE_CM();
  Pool pool;
  TestAgent a;
  std::string err;
  EXPECT_FALSE(pool.start_agent(&a, "node-c", "node-c", &err));  // never issued
  EXPECT_NE(err.find("configuration error: certificate " + pool.pki().dir + "/node-c.crt"),
            std::string::npos)
      << err;
}

TEST(CmPool, AbsentAdsOutliveTheMachineAndTheCmRestart) {
  REQUIRE_CM();
  Pool pool("CLASSAD_LIFETIME = 3\nABSENT_REQUIREMENTS = true");
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(pool.start_agent(&a, "node-a", "node-a", &err)) << err;
  const std::set<std::string> slots = {"slot1@node-a", "slot2@node-a"};
  ASSERT_TRUE(eventually([&] { return pool.names() == slots; }, 20000))
      << testing::PrintToString(pool.names());
  a.kill9();  // no goodbye: the ads expire and, as ABSENT_REQUIREMENTS holds, become absent
  EXPECT_TRUE(eventually([&] { return pool.names(true) == slots; }, 20000))
      << testing::PrintToString(pool.names(true)) << "\n"
      << pool.cm_log();
  EXPECT_TRUE(pool.names().empty());  // absent ads show only when asked for
  pool.kill_cm();
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  EXPECT_EQ(pool.names(true), slots) << pool.cm_log();
}

}  // namespace
}  // namespace kite::test
