// Remote node commands through `kite cm` with real agents on loopback: who may drain (READ may
// not, ADMINISTRATOR may), -constraint reaching every matching node once, `kite config-val
// -set` changing START at once and across an agent restart (WRITE limited by SETTABLE_ATTRS),
// and an agent refusing commands from a peer whose certificate is not a CM's.
#include <set>
#include <sstream>

#include "pool_harness.h"

namespace kite::test {
namespace {

// `-af Name State` lines for the slots of `machine`, as the CM holds them.
std::string states(const Pool& pool, const std::string& machine) {
  return pool
      .status({"-constraint", "Machine == \"" + machine + "\"", "-af", "Name", "State"}, "alice")
      .out;
}

std::string attr_of(const Pool& pool, const std::string& machine, const std::string& attr) {
  return pool.status({"-constraint", "Machine == \"" + machine + "\"", "-af", attr}, "alice").out;
}

const char* kDrainTail =
    ". This only affects the single startd; any other startds running on the same host will not "
    "be drained.\n";

TEST(CmCommands, ReadCannotDrainAndAnAdministratorDrainsThroughTheCm) {
  REQUIRE_CM();
  Pool pool;
  TestAgent a, b;
  std::string err;
  ASSERT_TRUE(pool.start_with_two_agents(&a, &b, &err)) << err;

  // alice holds READ only: refused by the CM, nothing reaches the node.
  CmdResult r = pool.run_as("alice", "drain", {"-name", "node-a"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("not authorized: user/alice lacks ADMINISTRATOR"), std::string::npos)
      << r.err;
  EXPECT_EQ(states(pool, "node-a"), "slot1@node-a Unclaimed\nslot2@node-a Unclaimed\n");

  r = pool.run_as("root-admin", "drain", {"-start", "Cpus >", "node-a"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("kite drain: node-a: drain: -start Cpus >: "), std::string::npos) << r.err;

  r = pool.run_as("root-admin", "drain",
                  {"-graceful", "-reason", "maintenance", "-start", "Cpus > 100", "node-a"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Sent request to drain the startd <127.0.0.1:", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("?alias=node-a> with node-a" + std::string(kDrainTail)), std::string::npos)
      << r.out;
  EXPECT_TRUE(eventually(
      [&] { return states(pool, "node-a") == "slot1@node-a Drained\nslot2@node-a Drained\n"; },
      20000))
      << states(pool, "node-a");
  EXPECT_EQ(attr_of(pool, "node-a", "DrainReason"), "maintenance\nmaintenance\n");
  EXPECT_EQ(states(pool, "node-b"), "slot1@node-b Unclaimed\nslot2@node-b Unclaimed\n");

  r = pool.run_as("root-admin", "drain", {"-cancel", "-name", "node-a"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Sent request to cancel draining on node-a\n");
  EXPECT_TRUE(eventually(
      [&] { return states(pool, "node-a") == "slot1@node-a Unclaimed\nslot2@node-a Unclaimed\n"; },
      20000))
      << states(pool, "node-a");

  // A node the CM does not know, beside one it does: one line each, exit 1.
  r = pool.run_as("root-admin", "vacate", {"-name", "node-z", "-name", "node-b"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "kite vacate: node-z: node node-z is not connected\n");
  EXPECT_EQ(r.out, "Sent \"Vacate-All-Claims\" command to startd node-b\n");
}

TEST(CmCommands, ConstraintReachesEveryMatchingNodeOnce) {
  REQUIRE_CM();
  Pool pool;
  TestAgent a, b;
  std::string err;
  ASSERT_TRUE(pool.start_with_two_agents(&a, &b, &err)) << err;

  // Two slots per node match: each node hears the command once.
  CmdResult r = pool.run_as("root-admin", "reconfig", {"-constraint", "SlotID >= 1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "Sent \"Reconfig\" command to startd node-a\n"
            "Sent \"Reconfig\" command to startd node-b\n");
  EXPECT_NE(a.log().find("remote command reconfig from admin/root-admin"), std::string::npos)
      << a.log();

  r = pool.run_as("root-admin", "drain", {"-quick", "-constraint", "Machine != \"node-b\""});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("with node-a"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("node-b"), std::string::npos) << r.out;
  EXPECT_TRUE(eventually(
      [&] { return states(pool, "node-a") == "slot1@node-a Drained\nslot2@node-a Drained\n"; },
      20000))
      << states(pool, "node-a");
  EXPECT_EQ(states(pool, "node-b"), "slot1@node-b Unclaimed\nslot2@node-b Unclaimed\n");

  r = pool.run_as("root-admin", "drain", {"-constraint", "Machine == \"nowhere\""});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "kite drain: no machine matches the constraint Machine == \"nowhere\"\n");

  r = pool.run_as("root-admin", "off", {"-fast", "-name", "node-b"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Sent \"Kill-Daemon-Fast\" command to startd node-b\n");
  EXPECT_EQ(b.wait_exit(20000), 0) << b.log();
}

TEST(CmCommands, ConfigSetChangesStartAtOnceAndAcrossARestart) {
  REQUIRE_CM();
  Pool pool("ALLOW_WRITE = user/*");
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  TestAgent a;
  std::string err;
  std::string persist = a.dir() + "/persist";
  ASSERT_TRUE(pool.start_agent(&a, "node-a", "node-a", &err,
                               "ENABLE_PERSISTENT_CONFIG = true\nPERSISTENT_CONFIG_DIR = " +
                                   persist + "\nSETTABLE_ATTRS_WRITE = RANK, MY_*"))
      << err;
  ASSERT_TRUE(eventually([&] { return pool.names().size() == 2; }, 20000))
      << testing::PrintToString(pool.names());
  std::string start_before = attr_of(pool, "node-a", "Start");
  ASSERT_NE(start_before, "false\nfalse\n");

  // alice holds WRITE: the CM forwards, the node's SETTABLE_ATTRS_WRITE does not name START.
  CmdResult r = pool.run_as("alice", "config-val", {"-name", "node-a", "-set", "START = false"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("kite config-val: node-a: -set: not authorized to set START"),
            std::string::npos)
      << r.err;
  // ... but RANK it names.
  r = pool.run_as("alice", "config-val", {"-name", "node-a", "-set", "RANK = 7"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(eventually([&] { return attr_of(pool, "node-a", "Rank") == "7\n7\n"; }, 20000))
      << attr_of(pool, "node-a", "Rank");

  r = pool.run_as("root-admin", "config-val", {"-name", "node-a", "-set", "START = false"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Successfully set configuration \"START = false\" on startd node-a "
                        "<127.0.0.1:",
                        0),
            0u)
      << r.out;
  EXPECT_TRUE(
      eventually([&] { return attr_of(pool, "node-a", "Start") == "false\nfalse\n"; }, 20000))
      << attr_of(pool, "node-a", "Start");
  EXPECT_NE(read_text(persist + "/.config.startd").find("START = false\n"), std::string::npos);

  // A value the node cannot load is refused and undone.
  r = pool.run_as("root-admin", "config-val",
                  {"-name", "node-a", "-set", "AGENT_MAX_CONNECTIONS = many"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("does not load"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(persist + "/.config.startd").find("AGENT_MAX_CONNECTIONS"),
            std::string::npos);

  // -rset needs ENABLE_RUNTIME_CONFIG, which this node leaves false.
  r = pool.run_as("root-admin", "config-val", {"-name", "node-a", "-rset", "START = true"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("ENABLE_RUNTIME_CONFIG is false"), std::string::npos) << r.err;

  // The setting outlives the agent.
  a.kill9();
  ASSERT_TRUE(a.restart(&err)) << err;
  EXPECT_EQ(a.slot_attr("slot1", "Start"), "false");
  EXPECT_EQ(a.slot_attr("slot1", "Rank"), "7");

  r = pool.run_as("root-admin", "config-val", {"-name", "node-a", "-unset", "START"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Successfully unset configuration \"START\" on startd node-a <", 0), 0u)
      << r.out;
  EXPECT_TRUE(eventually([&] { return attr_of(pool, "node-a", "Start") == start_before; }, 20000))
      << attr_of(pool, "node-a", "Start");
}

TEST(CmCommands, AnAgentRefusesCommandsFromAPeerThatIsNotACm) {
  REQUIRE_CM();
  Pool pool("", "user");  // the "CM" holds a user certificate
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(pool.start_agent(&a, "node-a", "node-a", &err)) << err;
  ASSERT_TRUE(eventually([&] { return pool.names().size() == 2; }, 20000))
      << testing::PrintToString(pool.names());
  CmdResult r = pool.run_as("root-admin", "drain", {"-name", "node-a"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("kite drain: node-a: refused: commands are taken only from a central "
                       "manager (the peer is user/cm1)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(a.log().find("does not hold a cm certificate"), std::string::npos) << a.log();
  EXPECT_EQ(a.slot_state("slot1"), "Unclaimed/Idle");
}

}  // namespace
}  // namespace kite::test
