// Claims and job activations from the central manager (the claiming protocol): not built yet,
// so no frame is taken here.
#include "agent/startd/agent.h"

namespace kite::agent {

bool Agent::cm_claim_frame(net::NetClient*, core::Json&) {
  return false;
}

void Agent::cm_claims_connected(net::NetClient*) {}

void Agent::cm_claims_disconnected(net::NetClient*) {}

}  // namespace kite::agent
