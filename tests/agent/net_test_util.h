// Shared pieces of the network tests: a pool made by `kite pki`'s library (agent/net/pki.h, linked
// into the tests: the node-only binary has no `kite pki`) in a temp dir, a libuv loop run until a
// condition holds (with a deadline), and recording handlers.
#pragma once

#include <gtest/gtest.h>
#include <uv.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "agent/net/client.h"
#include "agent/net/pki.h"
#include "agent/net/server.h"
#include "agent/net/tls_context.h"
#include "agent_harness.h"
#include "scratch_dirs.h"

namespace kite::test {

inline std::string net_temp_dir() {
  return scratch_dir("kite-net");
}

/// Runs `kite ARGS...`; fails the test with its stderr when it exits non-zero.
inline CmdResult kite_ok(const std::vector<std::string>& args) {
  std::vector<std::string> argv = kite_command();
  argv.insert(argv.end(), args.begin(), args.end());
  CmdResult r = run_cmd(argv);
  EXPECT_EQ(r.status, 0) << "kite failed: " << r.err;
  return r;
}

/// The `kite pki` command is in the full build only (CMakeLists.txt, KITE_ADMIN_CLI_SOURCES).
#define REQUIRE_PKI_COMMAND()                                                     \
  do {                                                                            \
    if (KITE_NODE_ONLY) GTEST_SKIP() << "node-only build: no `kite pki` command"; \
  } while (0)

/// A pool CA in DIR/ca and certificates issued into DIR.
struct TestPool {
  std::string dir = net_temp_dir();
  std::string ca() const { return dir + "/ca"; }
  TestPool() {
    std::string err;
    EXPECT_TRUE(net::pki_init(ca(), "Kite pool", 3650, &err)) << err;
  }
  void issue(const std::string& role, const std::string& name, int days = 30) {
    net::IssueRequest r;
    r.ca_dir = ca();
    r.role = role;
    r.name = name;
    r.sans = {"localhost"};
    r.out_dir = dir;
    r.days = days;
    std::string err;
    EXPECT_TRUE(net::pki_issue(r, &err)) << err;
  }
  void revoke(const std::string& name) {
    std::string err;
    EXPECT_TRUE(net::pki_revoke(ca(), dir + "/" + name + ".crt", &err)) << err;
  }
  net::TlsFiles files(const std::string& name, bool with_crl = true) const {
    return {ca() + "/ca.crt", dir + "/" + name + ".crt", dir + "/" + name + ".key",
            with_crl ? ca() + "/crl.pem" : "", ""};
  }
  std::unique_ptr<net::TlsContext> context(net::TlsContext::Role role,
                                           const std::string& name) const {
    std::string err;
    auto c = net::TlsContext::load(role, files(name), &err);
    EXPECT_TRUE(c) << err;
    return c;
  }
};

/// Runs the loop until `pred()` or `timeout_ms` passes; true when pred held.
template <typename Pred>
bool run_until(uv_loop_t* loop, Pred pred, int timeout_ms = 10000) {
  uint64_t end = uv_hrtime() + static_cast<uint64_t>(timeout_ms) * 1000000;
  uv_timer_t tick;  // wakes the loop so the deadline is checked even when nothing happens
  uv_timer_init(loop, &tick);
  uv_timer_start(
      &tick, [](uv_timer_t*) {}, 10, 10);
  bool ok = pred();
  while (!ok && uv_hrtime() < end) {
    uv_run(loop, UV_RUN_ONCE);
    ok = pred();
  }
  uv_close(reinterpret_cast<uv_handle_t*>(&tick), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);
  return ok;
}

/// Server side: answers {"type":"echo"} with {"type":"echoed", same "n"}, records the rest.
struct EchoServer : net::TlsConnHandler {
  std::vector<net::TlsConn*> ready;
  std::vector<std::string> peers;  // role/CN of each ready connection
  std::vector<std::string> frames;
  int closed = 0;
  int resumed = 0;
  void on_ready(net::TlsConn* c) override {
    ready.push_back(c);
    peers.push_back(c->peer().role + "/" + c->peer().cn);
    if (c->resumed()) ++resumed;
  }
  bool on_frame(net::TlsConn* c, core::Json& msg) override {
    frames.push_back(msg.type());
    if (msg.type() != "echo") return false;  // error frames too: the transport must not answer
    core::Json r = core::Json::message("echoed");
    r.set("n", msg.num("n"));
    c->send(r);
    return true;
  }
  void on_closed(net::TlsConn* c, const std::string&) override {
    ++closed;
    for (size_t i = 0; i < ready.size(); ++i)
      if (ready[i] == c) ready.erase(ready.begin() + static_cast<long>(i));
  }
};

struct RecordingClient : net::NetClientHandler {
  int connected = 0, disconnected = 0;
  std::vector<int64_t> echoed;
  std::vector<std::string> frames;
  std::string last_error;
  std::vector<std::string> why;  // of each disconnect
  void on_connected(net::NetClient*) override { ++connected; }
  bool on_frame(net::NetClient*, core::Json& msg) override {
    frames.push_back(msg.type());
    if (msg.type() == "echoed") echoed.push_back(msg.num("n"));
    if (msg.type() == "error") last_error = msg.str("error");
    return true;
  }
  void on_disconnected(net::NetClient*, const std::string& w) override {
    ++disconnected;
    why.push_back(w);
  }
};

}  // namespace kite::test
