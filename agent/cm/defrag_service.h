// The defrag of `kite cm` (condor_defrag): every DEFRAG_INTERVAL it runs the pure poll
// (policy/defrag/defrag.h) over the collector's Machine ads, sends each chosen machine a drain
// through the node-commands path, and keeps the Defrag ad in the collector.
#pragma once

#include <memory>
#include <string>

#include "agent/cm/cm_service.h"

namespace kite::cm {

class NodeCommands;

/// The defrag when the configuration asks for one (DEFRAG_INTERVAL set, or DEFRAG in
/// DAEMON_LIST), running already; else null. Null with `err` when a DEFRAG_* setting is wrong.
std::unique_ptr<CmService> make_defrag(CmContext* ctx, NodeCommands* nodes, std::string* err);

}  // namespace kite::cm
