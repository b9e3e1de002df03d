// The CM's "node commands" service: `kite drain|vacate|off|reconfig|config-val -set ...` from
// an administrator, forwarded to the agent of each node named (or of each machine whose ads
// match a constraint) over that agent's own connection, and each node's answer relayed back.
#pragma once

#include <uv.h>

#include <cstdint>
#include <functional>
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
  /// Sends `request` to the agent of `node` for the CM itself (`by` names the part, e.g.
  /// "cm/defrag"), with every level; `done` hears the node's answer, or that it is not
  /// connected, went away or did not answer in time.
  using Done = std::function<void(bool ok, const std::string& message)>;
  void send_own(const std::string& node, const core::Json& request, const std::string& by,
                Done done);

 private:
  struct Pending {
    net::TlsConn* client;  // null: the CM's own request (`done` hears the answer)
    net::TlsConn* agent;   // the connection the request went out on
    std::string node;
    std::string address;
    uint64_t deadline_ms;
    Done done;
  };
  /// Sends `req` to `agent`, remembered under a new request id.
  void forward(net::TlsConn* client, net::TlsConn* agent, const std::string& node, const cJSON* req,
               const std::string& by, const core::Json& levels, Done done);
  /// A pending request's outcome, to its client or its `done`.
  void settle(const Pending& p, bool ok, const std::string& message);
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
