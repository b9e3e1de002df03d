// Test helper for the CM's integration tests: one connection to a `kite cm` that sends update
// frames (whole ads or merges) and waits until the CM handled them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "net_test_util.h"
#include "pool_harness.h"

namespace kite::test {

// One agent connection to the CM that records the error frames it gets.
struct MergeAgent : net::NetClientHandler {
  std::unique_ptr<net::TlsContext> tls;
  std::unique_ptr<net::NetClient> client;
  std::vector<std::string> errors;
  int answers = 0;  // replies to barrier()
  bool up = false;

  MergeAgent(uv_loop_t* loop, Pool& pool, const std::string& cert) {
    tls = pool.pki().context(net::TlsContext::Role::kClient, cert);
    net::ClientOptions o;
    o.host = "127.0.0.1";
    o.port = pool.port();
    o.conn.name = cert;
    client = std::make_unique<net::NetClient>(loop, tls.get(), this, o);
    client->start();
  }
  void on_connected(net::NetClient*) override { up = true; }
  bool on_frame(net::NetClient*, core::Json& msg) override {
    if (msg.type() == "error") errors.push_back(msg.str("error"));
    if (msg.type() == "ads" && msg.flag("done")) ++answers;
    return true;
  }
  void on_disconnected(net::NetClient*, const std::string&) override { up = false; }

  void update(const std::string& ad_json, bool merge) {
    core::Json m = core::Json::message("update");
    m.set("ad_type", "Machine").set("ad", ad_json);
    if (merge) m.set_bool("merge", true);
    EXPECT_TRUE(client->send(m));
  }
  // A query answered after every frame sent before it was handled.
  void barrier(uv_loop_t* loop) {
    int before = answers;
    core::Json q = core::Json::message("query");
    q.set("ad_type", "Machine").set("constraint", "Name == \"none\"");
    ASSERT_TRUE(client->send(q));
    ASSERT_TRUE(run_until(loop, [&] { return answers > before; }));
  }
};

}  // namespace kite::test
