// A pool on loopback for integration tests: a CA and certificates from `kite pki` (cm1, agents
// node-a and node-b, users alice and bob, admin root-admin), one `kite cm`, agents reporting to
// it, and the CLI run as any of those identities.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "agent/core/files.h"
#include "net_test_util.h"

namespace kite::test {

// A port nothing listens on now (the kernel's pick for an ephemeral bind).
inline int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    close(fd);
    return -1;
  }
  close(fd);
  return ntohs(a.sin_port);
}

// A pool: its CA and certificates, one `kite cm`, the agents that report to it.
class Pool {
 public:
  // `cm_role`: the role of the CM's certificate (another than cm only to test refusals).
  explicit Pool(const std::string& cm_extra = "", const std::string& cm_role = "cm")
      : port_(free_port()) {
    pool_.issue(cm_role, "cm1");
    for (const char* n : {"node-a", "node-b"}) pool_.issue("agent", n);
    pool_.issue("user", "alice");
    pool_.issue("user", "bob");
    pool_.issue("admin", "root-admin");
    conf_ = pool_.dir + "/cm.conf";
    std::string text = "COLLECTOR_HOST = 127.0.0.1:" + std::to_string(port_) +
                       "\nKITE_CA = " + pool_.ca() + "/ca.crt\nKITE_CERT = " + pool_.dir +
                       "/cm1.crt\nKITE_KEY = " + pool_.dir + "/cm1.key\nLOCAL_DIR = " + pool_.dir +
                       "/cm\nCM_LOG = " + pool_.dir + "/cm.log\n" + cm_extra + "\n";
    std::string err;
    EXPECT_TRUE(core::write_file_atomic(conf_, text, 0644, &err)) << err;
  }
  ~Pool() { kill_cm(); }

  // Starts the CM and waits until it takes connections (its port answers a query).
  bool start_cm() {
    std::vector<std::string> argv = kite_command();
    argv.insert(argv.end(), {"cm", "-c", conf_, "--foreground"});
    cm_ = spawn_bg(argv, pool_.dir + "/cm.out");
    return eventually([&] { return status({"-af", "Name"}, "root-admin").status == 0; }, 20000);
  }
  void kill_cm() {
    if (cm_ <= 0) return;
    kill(cm_, SIGKILL);
    wait_bg(cm_, 10000);
    cm_ = -1;
  }

  // An agent reporting as `machine` with `cert`'s certificate (two slots).
  bool start_agent(TestAgent* a, const std::string& machine, const std::string& cert,
                   std::string* err, const std::string& agent_extra = "") {
    std::string extra =
        "NUM_CPUS = 2\nNUM_SLOTS = 2\nNETWORK_HOSTNAME = " + machine +
        "\nCOLLECTOR_HOST = 127.0.0.1:" + std::to_string(port_) +
        "\nUPDATE_INTERVAL = 60\nKITE_CA = " + pool_.ca() + "/ca.crt\nKITE_CERT = " + pool_.dir +
        "/" + cert + ".crt\nKITE_KEY = " + pool_.dir + "/" + cert + ".key\n" + agent_extra + "\n";
    return a->start(extra, err);
  }

  // The CM, then agents node-a and node-b (each with its own certificate), once the CM holds
  // their four slots; false with `*err` saying what is missing.
  bool start_with_two_agents(TestAgent* a, TestAgent* b, std::string* err) {
    if (!start_cm()) {
      *err = "the CM does not answer:\n" + cm_log();
      return false;
    }
    if (!start_agent(a, "node-a", "node-a", err) || !start_agent(b, "node-b", "node-b", err))
      return false;
    if (eventually([&] { return names().size() == 4; }, 20000)) return true;
    *err = "the CM holds " + testing::PrintToString(names()) + "\n" + cm_log();
    return false;
  }

  // `kite status -pool` as the holder of `cert` (its files given by environment variables).
  CmdResult status(std::vector<std::string> args, const std::string& cert,
                   const std::string& ca_dir = "") const {
    return to_cm("status", std::move(args), cert, ca_dir);
  }

  // `kite COMMAND -pool THIS_CM ARGS...` as the holder of `cert`.
  CmdResult to_cm(const std::string& command, std::vector<std::string> args,
                  const std::string& cert, const std::string& ca_dir = "") const {
    std::vector<std::string> argv = {
        "env", "KITE_CA=" + (ca_dir.empty() ? pool_.ca() : ca_dir) + "/ca.crt",
        "KITE_CERT=" + pool_.dir + "/" + cert + ".crt",
        "KITE_KEY=" + pool_.dir + "/" + cert + ".key"};
    for (const std::string& w : kite_command()) argv.push_back(w);
    argv.insert(argv.end(), {command, "-pool", "127.0.0.1:" + std::to_string(port_)});
    argv.insert(argv.end(), args.begin(), args.end());
    return run_cmd(argv, 30000);
  }

  // `kite ARGS... -pool CM` as the holder of `cert` (the job tools, submit, q, history).
  CmdResult as(const std::string& cert, std::vector<std::string> args,
               int timeout_ms = 60000) const {
    std::vector<std::string> argv = {"env", "KITE_CA=" + pool_.ca() + "/ca.crt",
                                     "KITE_CERT=" + pool_.dir + "/" + cert + ".crt",
                                     "KITE_KEY=" + pool_.dir + "/" + cert + ".key"};
    for (const std::string& w : kite_command()) argv.push_back(w);
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"-pool", "127.0.0.1:" + std::to_string(port_)});
    return run_cmd(argv, timeout_ms);
  }

  // `kite CMD -pool THIS_CM ARGS...` as the holder of `cert`.
  CmdResult run_as(const std::string& cert, const std::string& cmd, std::vector<std::string> args,
                   const std::string& ca_dir = "") const {
    return to_cm(cmd, std::move(args), cert, ca_dir);
  }

  // The slot names the CM holds, as alice sees them (`-absent`: the absent ones).
  std::set<std::string> names(bool absent = false) const {
    std::vector<std::string> args = {"-af", "Name"};
    if (absent) args.insert(args.begin(), "-absent");
    CmdResult r = status(args, "alice");
    std::set<std::string> out;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) out.insert(line);
    return out;
  }

  std::string cm_log() const { return read_text(pool_.dir + "/cm.log"); }
  // The CM's LOCAL_DIR (its queue is queue.db there).
  std::string cm_dir() const { return pool_.dir + "/cm"; }
  int port() const { return port_; }
  TestPool& pki() { return pool_; }

 private:
  TestPool pool_;
  int port_;
  std::string conf_;
  pid_t cm_ = -1;
};

inline bool cm_available() {
  std::vector<std::string> argv = kite_command();
  argv.insert(argv.end(), {"cm", "--help"});
  return run_cmd(argv, 10000).status == 0;
}

#define REQUIRE_CM()                                                                      \
  do {                                                                                    \
    REQUIRE_AGENT_TESTS();                                                                \
    if (!cm_available()) GTEST_SKIP() << "this build has no central manager (node-only)"; \
  } while (0)

}  // namespace kite::test
