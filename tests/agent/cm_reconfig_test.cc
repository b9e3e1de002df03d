// `kite reconfig` re-reads COLLECTOR_HOST on a node: with two real central managers on
// loopback, an agent reporting to CM A is told to report to A and B (B gets its ads, A keeps
// its one connection), then to B alone (A loses the ads, the connection closes, and commands
// now come through B); a reconfig that changes nothing keeps the connection, a renewed
// certificate makes a new one; a COLLECTOR_HOST that does not read is refused and changes
// nothing.
#include <string>

#include "pool_harness.h"

namespace kite::test {
namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A second central manager in the pool's PKI (the same CM certificate), on its own port.
class SecondCm {
 public:
  explicit SecondCm(Pool* pool) : pool_(pool), port_(free_port()) {
    dir_ = pool->pki().dir;
    std::string text = "COLLECTOR_HOST = 127.0.0.1:" + std::to_string(port_) +
                       "\nKITE_CA = " + pool->pki().ca() + "/ca.crt\nKITE_CERT = " + dir_ +
                       "/cm1.crt\nKITE_KEY = " + dir_ + "/cm1.key\nLOCAL_DIR = " + dir_ +
                       "/cmb\nCM_LOG = " + dir_ + "/cmb.log\n";
    std::string err;
    EXPECT_TRUE(core::write_file_atomic(dir_ + "/cmb.conf", text, 0644, &err)) << err;
  }
  ~SecondCm() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    wait_bg(pid_, 10000);
  }
  bool start() {
    std::vector<std::string> argv = kite_command();
    argv.insert(argv.end(), {"cm", "-c", dir_ + "/cmb.conf", "--foreground"});
    pid_ = spawn_bg(argv, dir_ + "/cmb.out");
    return eventually([&] { return to_cm("status", {"-af", "Name"}).status == 0; }, 20000);
  }
  CmdResult to_cm(const std::string& command, std::vector<std::string> args) const {
    std::vector<std::string> argv = {"env", "KITE_CA=" + pool_->pki().ca() + "/ca.crt",
                                     "KITE_CERT=" + dir_ + "/root-admin.crt",
                                     "KITE_KEY=" + dir_ + "/root-admin.key"};
    for (const std::string& w : kite_command()) argv.push_back(w);
    argv.insert(argv.end(), {command, "-pool", "127.0.0.1:" + std::to_string(port_)});
    argv.insert(argv.end(), args.begin(), args.end());
    return run_cmd(argv, 30000);
  }
  std::string names() const { return to_cm("status", {"-af", "Name"}).out; }
  std::string log() const { return read_text(dir_ + "/cmb.log"); }
  int port() const { return port_; }

 private:
  Pool* pool_;
  int port_;
  std::string dir_;
  pid_t pid_ = -1;
};

// Rewrites the agent's COLLECTOR_HOST line and runs `kite reconfig` on the node.
CmdResult point_agent_at(const TestAgent& a, int old_port, const std::string& hosts) {
  std::string conf = read_text(a.config());
  std::string line = "COLLECTOR_HOST = 127.0.0.1:" + std::to_string(old_port) + "\n";
  size_t at = conf.find("COLLECTOR_HOST = ");
  EXPECT_NE(at, std::string::npos) << conf;
  if (at == std::string::npos) return {};
  conf.replace(at, conf.find('\n', at) + 1 - at, "COLLECTOR_HOST = " + hosts + "\n");
  std::string err;
  EXPECT_TRUE(core::write_file_atomic(a.config(), conf, 0644, &err)) << err;
  return a.kite({"reconfig", "--local"});
}

const char kBothSlots[] = "slot1@node-a\nslot2@node-a\n";

TEST(CmReconfig, ReconfigMovesTheAgentFromOneCentralManagerToAnother) {
  REQUIRE_CM();
  Pool pool;
  ASSERT_TRUE(pool.start_cm()) << pool.cm_log();
  SecondCm b(&pool);
  ASSERT_TRUE(b.start()) << b.log();
  TestAgent a;
  std::string err;
  ASSERT_TRUE(pool.start_agent(&a, "node-a", "node-a", &err)) << err;
  ASSERT_TRUE(eventually([&] { return pool.names().size() == 2; }, 20000));
  EXPECT_EQ(b.names(), "");
  const std::string connected = "collector: agent/node-a connected from";
  EXPECT_EQ(count_of(pool.cm_log(), connected), 1u) << pool.cm_log();

  // A and B: B hears the ads; A keeps its connection.
  std::string a_host = "127.0.0.1:" + std::to_string(pool.port());
  std::string b_host = "127.0.0.1:" + std::to_string(b.port());
  CmdResult r = point_agent_at(a, pool.port(), a_host + ", " + b_host);
  ASSERT_EQ(r.status, 0) << r.err << a.log();
  EXPECT_TRUE(eventually([&] { return b.names() == kBothSlots; }, 20000)) << b.names() << a.log();
  EXPECT_EQ(pool.names().size(), 2u);
  EXPECT_EQ(count_of(pool.cm_log(), connected), 1u) << pool.cm_log();
  EXPECT_EQ(count_of(pool.cm_log(), "collector: agent/node-a disconnected"), 0u);

  // B alone: A loses the ads and the connection; B keeps its own.
  r = point_agent_at(a, pool.port(), b_host);
  ASSERT_EQ(r.status, 0) << r.err << a.log();
  EXPECT_TRUE(eventually([&] { return pool.names().empty(); }, 20000))
      << testing::PrintToString(pool.names());
  EXPECT_TRUE(eventually(
      [&] { return count_of(pool.cm_log(), "collector: agent/node-a disconnected") == 1; }, 20000))
      << pool.cm_log();
  EXPECT_EQ(b.names(), kBothSlots);
  EXPECT_EQ(count_of(b.log(), connected), 1u) << b.log();
  // Commands for node-a now travel through B; A no longer reaches it.
  r = pool.run_as("root-admin", "drain", {"-name", "node-a"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "kite drain: node-a: node node-a is not connected\n");
  r = b.to_cm("drain", {"-name", "node-a"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(eventually(
      [&] {
        return b.to_cm("status", {"-af", "State"}).out == "Drained\nDrained\n";
      },
      20000))
      << b.to_cm("status", {"-af", "State"}).out;

  // A reconfig that changes nothing keeps the connection; a renewed certificate (same files,
  // new contents) dials again with it.
  r = point_agent_at(a, b.port(), b_host);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count_of(b.log(), connected), 1u) << b.log();
  pool.pki().issue("agent", "node-a");
  r = point_agent_at(a, b.port(), b_host);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(eventually([&] { return count_of(b.log(), connected) == 2; }, 20000)) << b.log();
  EXPECT_TRUE(eventually([&] { return b.names() == kBothSlots; }, 20000)) << b.names();

  // A COLLECTOR_HOST that does not read: the reconfig is refused and B keeps the node.
  r = point_agent_at(a, b.port(), "127.0.0.1:notaport");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("COLLECTOR_HOST"), std::string::npos) << r.err;
  EXPECT_EQ(b.names(), kBothSlots);
  EXPECT_EQ(count_of(b.log(), connected), 2u) << b.log();
}

}  // namespace
}  // namespace kite::test
