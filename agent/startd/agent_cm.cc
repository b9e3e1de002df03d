// Frames from the central manager over the collector link, handed to the part that owns their
// type; a type nobody owns is answered with an error frame.
#include "agent/core/log.h"
#include "agent/startd/agent.h"

namespace kite::agent {

namespace {

// Only a central manager (its certificate's role is cm) may claim slots or command the agent:
// COLLECTOR_HOST could name any peer the pool CA signed.
bool from_cm(const net::NetClient* cm) {
  return cm->conn() && cm->conn()->peer().role == "cm";
}

}  // namespace

void Agent::cm_frame(net::NetClient* cm, core::Json& msg) {
  // A command's refusal goes back in its own reply, so the admin who sent it reads why.
  if (msg.type() == "node-command") {
    cm_command_frame(cm, msg);
    return;
  }
  if (!from_cm(cm)) {
    KLOG_WARN("a '%s' frame from a peer that is not a central manager refused", msg.type().c_str());
    core::Json e = core::Json::message("error");
    e.set("error", "only a central manager (certificate role cm) may send '" + msg.type() + "'");
    collector_->send(cm, e);
    return;
  }
  if (cm_claim_frame(cm, msg) || cm_command_frame(cm, msg)) return;
  KLOG_WARN("central manager sent a frame of unknown type '%s'", msg.type().c_str());
  core::Json e = core::Json::message("error");
  e.set("error", "unknown frame type '" + msg.type() + "'");
  collector_->send(cm, e);
}

void Agent::cm_connected(net::NetClient* cm) {
  if (!from_cm(cm)) {
    KLOG_WARN("COLLECTOR_HOST %s is not a central manager (certificate role '%s'): no claims",
              cm->conn() ? cm->conn()->address().c_str() : "?",
              cm->conn() ? cm->conn()->peer().role.c_str() : "");
    return;
  }
  cm_claims_connected(cm);
}

void Agent::cm_disconnected(net::NetClient* cm) {
  cm_claims_disconnected(cm);
}

}  // namespace kite::agent
