// The CM's "node commands" service: `kite drain|vacate|off|reconfig|config-val -set ...` from
// an administrator, forwarded to the agent of each node named (or of each machine whose ads
// match a constraint) over that agent's own connection, and each node's answer relayed back.
#pragma once

#include <uv.h>

#include <cstdint>
#include <map>
#include <string>

#include "agent/cm/cm_service.h"

namespace kite::cm {

class NodeCommands final : public CmService {
 public:
  explicit NodeCommands(CmContext* ctx);
  bool on_frame(net::TlsConn* c, core::Json& msg) override;
  void on_closed(net::TlsConn* c) override;
  void stop() override;

 private:
  struct Pending {
    net::TlsConn* client;
    net::TlsConn* agent;  // the connection the request went out on
    std::string node;
    std::string address;
    uint64_t deadline_ms;
  };
  void start(net::TlsConn* client, core::Json& msg);
  void node_replied(net::TlsConn* agent, core::Json& msg);
  /// One node's answer to the client; the last one is followed by `node-done`.
  void answer(net::TlsConn* client, const std::string& node, const std::string& address, bool ok,
              const std::string& message);
  static void on_tick(uv_timer_t* t);

  CmContext* ctx_;
  uint64_t timeout_ms_;
  std::map<int64_t, Pending> pending_;        // by request id
  std::map<net::TlsConn*, int> outstanding_;  // per client: node answers still due
  int64_t next_rid_ = 1;
  uv_timer_t* timer_ = nullptr;
};

}  // namespace kite::cm
