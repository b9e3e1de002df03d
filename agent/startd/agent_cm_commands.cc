// Remote commands from the central manager (drain, vacate, off, reconfig, ...): not built yet,
// so no frame is taken here.
#include "agent/startd/agent.h"

namespace kite::agent {

bool Agent::cm_command_frame(net::NetClient*, core::Json&) {
  return false;
}

}  // namespace kite::agent
