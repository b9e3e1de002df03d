// Remote node commands through the central manager: who may send them, which nodes they reach,
// and the relay of each node's answer (or "not connected", or a timeout).
#include "agent/cm/node_commands.h"

#include <set>

#include "agent/cm/collector_server.h"
#include "agent/core/log.h"
#include "policy/config/typed.h"

namespace kite::cm {
namespace {

constexpr uint64_t kTickMs = 250;

bool is_config_command(const std::string& type) {
  return type.compare(0, 7, "config-") == 0;
}

}  // namespace

NodeCommands::NodeCommands(CmContext* ctx) : ctx_(ctx) {
  int64_t secs = 20;
  if (ctx->cfg) config::read_int(*ctx->cfg, "NODE_COMMAND_TIMEOUT", &secs, nullptr, 1);
  timeout_ms_ = static_cast<uint64_t>(secs) * 1000;
  timer_ = new uv_timer_t;
  uv_timer_init(ctx->loop, timer_);
  timer_->data = this;
}

void NodeCommands::stop() {
  if (!timer_) return;
  uv_close(reinterpret_cast<uv_handle_t*>(timer_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  timer_ = nullptr;
}

bool NodeCommands::on_frame(net::TlsConn* c, core::Json& msg) {
  std::string type = msg.type();
  if (type == "node-command") {
    start(c, msg);
  } else if (type == "node-command-reply") {
    node_replied(c, msg);
  } else {
    return false;
  }
  return true;
}

void NodeCommands::start(net::TlsConn* client, core::Json& msg) {
  const cJSON* req = msg.child("request");
  std::string what = cJSON_IsObject(req) ? core::Json(cJSON_Duplicate(req, 1)).type() : "";
  if (what.empty()) {
    client->send_error("node-command: no request object with a type");
    return;
  }
  // Changing a node's configuration needs WRITE here; the node then applies its own
  // SETTABLE_ATTRS_<LEVEL> rules. Every other command needs ADMINISTRATOR.
  policy::AuthLevel need =
      is_config_command(what) ? policy::AuthLevel::kWrite : policy::AuthLevel::kAdministrator;
  if (!ctx_->collector->allowed(client, need, what)) return;
  if (outstanding_.count(client)) {
    client->send_error("node-command: a command of this connection is still running");
    return;
  }
  std::set<std::string> nodes;
  std::string constraint = msg.str("constraint");
  const cJSON* n = nullptr;
  cJSON_ArrayForEach(n, msg.child("names")) {
    if (cJSON_IsString(n) && n->valuestring[0]) nodes.insert(n->valuestring);
  }
  if (nodes.empty() && !constraint.empty()) {
    collector::QuerySpec spec;
    spec.type = "Machine";
    spec.constraint = constraint;
    spec.projection = {"Machine"};
    std::vector<classad::AdPtr> found;
    std::string err;
    if (!ctx_->collector->store().query(spec, &found, &err)) {
      client->send_error("node-command: constraint " + constraint + ": " + err);
      return;
    }
    for (const classad::AdPtr& ad : found) {
      std::string machine;
      if (ad->evaluate_string("Machine", machine) && !machine.empty()) nodes.insert(machine);
    }
  } else if (nodes.empty()) {
    client->send_error("node-command: neither node names nor a constraint");
    return;
  }
  std::string by = client->peer().role + "/" + client->peer().cn;
  core::Json levels(cJSON_CreateArray());
  for (int i = 0; i < policy::kAuthLevels; ++i) {
    auto l = static_cast<policy::AuthLevel>(i);
    if (ctx_->collector->has_level(client, l))
      cJSON_AddItemToArray(levels.get(), cJSON_CreateString(policy::auth_level_name(l)));
  }
  outstanding_[client] = static_cast<int>(nodes.size()) + 1;  // +1 until every node is sent
  for (const std::string& node : nodes) {
    net::TlsConn* agent = ctx_->collector->node(node);
    if (!agent) {
      answer(client, node, "", false, "node " + node + " is not connected");
      continue;
    }
    forward(client, agent, node, req, by, levels, nullptr);
  }
  answer(client, "", "", true, "");  // the +1: every node is on its way
}

void NodeCommands::forward(net::TlsConn* client, net::TlsConn* agent, const std::string& node,
                           const cJSON* req, const std::string& by, const core::Json& levels,
                           Done done) {
  int64_t rid = next_rid_++;
  core::Json fwd = core::Json::message("node-command");
  fwd.set("rid", rid);
  fwd.set("by", by);
  fwd.set_json("request", core::Json(cJSON_Duplicate(req, 1)));
  fwd.set_json("levels", core::Json(cJSON_Duplicate(levels.get(), 1)));
  agent->send(fwd);
  pending_[rid] = Pending{
      client, agent, node, agent->address(), uv_now(ctx_->loop) + timeout_ms_, std::move(done)};
  KLOG_INFO("node command %s from %s to %s (request %lld)",
            core::Json(cJSON_Duplicate(req, 1)).type().c_str(), by.c_str(), node.c_str(),
            static_cast<long long>(rid));
  if (timer_ && !uv_is_active(reinterpret_cast<uv_handle_t*>(timer_)))
    uv_timer_start(timer_, on_tick, kTickMs, kTickMs);
}

void NodeCommands::send_own(const std::string& node, const core::Json& request,
                            const std::string& by, Done done) {
  net::TlsConn* agent = ctx_->collector->node(node);
  if (!agent) {
    done(false, "node " + node + " is not connected");
    return;
  }
  core::Json levels(cJSON_CreateArray());
  for (int i = 0; i < policy::kAuthLevels; ++i) {
    auto l = static_cast<policy::AuthLevel>(i);
    cJSON_AddItemToArray(levels.get(), cJSON_CreateString(policy::auth_level_name(l)));
  }
  forward(nullptr, agent, node, request.get(), by, levels, std::move(done));
}

void NodeCommands::settle(const Pending& p, bool ok, const std::string& message) {
  if (p.done) {
    p.done(ok, message);
  } else {
    answer(p.client, p.node, p.address, ok, message);
  }
}

void NodeCommands::node_replied(net::TlsConn* agent, core::Json& msg) {
  auto it = pending_.find(msg.num("rid"));
  // Only the agent the request went to may answer it.
  if (it == pending_.end() || it->second.agent != agent) return;
  Pending p = it->second;
  pending_.erase(it);
  settle(p, msg.flag("ok"), msg.str("message"));
}

void NodeCommands::answer(net::TlsConn* client, const std::string& node, const std::string& address,
                          bool ok, const std::string& message) {
  auto it = outstanding_.find(client);
  if (it == outstanding_.end()) return;
  if (!node.empty()) {
    core::Json r = core::Json::message("node-reply");
    r.set("node", node);
    r.set("address", address);
    r.set_bool("ok", ok);
    r.set("message", message);
    client->send(r);
  }
  if (--it->second > 0) return;
  outstanding_.erase(it);
  client->send(core::Json::message("node-done"));
}

void NodeCommands::on_tick(uv_timer_t* t) {
  auto* self = static_cast<NodeCommands*>(t->data);
  uint64_t now = uv_now(t->loop);
  for (auto it = self->pending_.begin(); it != self->pending_.end();) {
    if (it->second.deadline_ms > now) {
      ++it;
      continue;
    }
    Pending p = it->second;
    it = self->pending_.erase(it);
    self->settle(p, false,
                 "no answer from node " + p.node + " within " +
                     std::to_string(self->timeout_ms_ / 1000) + " s");
  }
  if (self->pending_.empty()) uv_timer_stop(t);
}

void NodeCommands::on_closed(net::TlsConn* c) {
  outstanding_.erase(c);
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.client == c) {
      it = pending_.erase(it);
    } else if (it->second.agent == c) {
      // The node's connection went away before it answered.
      Pending p = it->second;
      it = pending_.erase(it);
      settle(p, false, "node " + p.node + " disconnected");
    } else {
      ++it;
    }
  }
}

}  // namespace kite::cm
