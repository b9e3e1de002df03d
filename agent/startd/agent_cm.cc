// Frames from the central manager over the collector link, handed to the part that owns their
// type; a type nobody owns is answered with an error frame.
#include "agent/core/log.h"
#include "agent/startd/agent.h"

namespace kite::agent {

void Agent::cm_frame(net::NetClient* cm, core::Json& msg) {
  if (cm_claim_frame(cm, msg) || cm_command_frame(cm, msg)) return;
  KLOG_WARN("central manager sent a frame of unknown type '%s'", msg.type().c_str());
  core::Json e = core::Json::message("error");
  e.set("message", "unknown frame type '" + msg.type() + "'");
  collector_->send(cm, e);
}

void Agent::cm_connected(net::NetClient* cm) {
  cm_claims_connected(cm);
}

void Agent::cm_disconnected(net::NetClient* cm) {
  cm_claims_disconnected(cm);
}

}  // namespace kite::agent
