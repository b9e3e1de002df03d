// The remote forms of `kite drain|vacate|off|reconfig|config-val -set`: the request goes to the
// central manager, which forwards it to the agent of each node named (or of each machine whose
// ads match -constraint) and relays every node's answer.
#pragma once

#include <string>
#include <vector>

#include "agent/core/frame.h"

namespace kite::cli {

struct RemoteTarget {
  std::string pool;                // -pool HOST[:PORT]; empty: COLLECTOR_HOST of the configuration
  std::vector<std::string> names;  // -name NODE (or NODE as an argument)
  std::string constraint;          // -constraint EXPR
  std::string config_path;         // -c CONFIG (where COLLECTOR_HOST is read)
};

/// Consumes -pool, -name and -constraint (with their values) at argv[*i]; true when it was one
/// of them. A missing value sets *err.
bool remote_option(int argc, char** argv, int* i, RemoteTarget* t, std::string* err);

struct NodeAnswer {
  std::string node;
  std::string address;  // the agent's connection as the CM sees it ("" when not connected)
  bool ok = false;
  std::string message;
};

/// Prints the line for a node that carried the command out (what the HTCondor tool prints).
using NodeOkPrinter = void (*)(const NodeAnswer& a, const core::Json& request);

/// Sends `request` (a frame the agent's admin commands take) to the target's nodes and prints
/// each answer: `ok_line` for a success, "kite CMD: NODE: message" on stderr for a failure.
/// Exit code: 0 when every node carried it out, 1 otherwise (a node refused, was not
/// connected or did not answer; no node matched; the CM could not be asked).
int run_node_command(const char* cmd, RemoteTarget t, const core::Json& request,
                     NodeOkPrinter ok_line);

}  // namespace kite::cli
