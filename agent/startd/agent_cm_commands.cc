// Remote commands from the central manager (drain, cancel, vacate, off, reconfig, config-val
// -set/-unset/-rset): a `node-command` frame carries the request, a request id and the levels
// the CM granted its sender; the agent takes it only from a peer with the cm role, runs the
// same handler as the control socket and answers `node-command-reply` with the same id.
#include "agent/core/log.h"
#include "agent/startd/agent.h"

namespace kite::agent {

bool Agent::cm_command_frame(net::NetClient* cm, core::Json& msg) {
  if (msg.type() != "node-command") return false;
  core::Json reply = core::Json::message("node-command-reply");
  reply.set("rid", msg.num("rid"));
  const net::TlsConn* conn = cm->conn();
  std::string role = conn ? conn->peer().role : "";
  core::Json result;
  std::optional<startd::ShutdownMode> off;
  if (role != "cm") {
    std::string who = conn ? role + "/" + conn->peer().cn : "?";
    KLOG_WARN("remote command refused: the peer %s does not hold a cm certificate", who.c_str());
    result = reply_error("refused: commands are taken only from a central manager (the peer is " +
                         who + ")");
  } else {
    core::Json request(cJSON_Duplicate(msg.child("request"), 1));
    std::vector<std::string> levels;
    const cJSON* l = nullptr;
    cJSON_ArrayForEach(l, msg.child("levels")) {
      if (cJSON_IsString(l)) levels.push_back(l->valuestring);
    }
    if (!request || !admin_command_type(request.type())) {
      result = reply_error("unknown command '" + (request ? request.type() : "") + "'");
    } else {
      KLOG_INFO("remote command %s from %s", request.type().c_str(), msg.str("by").c_str());
      result = admin_command(request, levels, &off);
    }
  }
  reply.set_bool("ok", result.type() == "ok");
  reply.set("message", result.str("message"));
  collector_->send(cm, reply);
  if (off) begin_shutdown(*off);
  return true;
}

}  // namespace kite::agent
