// The CLI's connection to the node's agent: finds the control socket (--socket, else
// AGENT_SOCKET from the configuration), sends one request and reads the replies.
#pragma once

#include <string>

#include "agent/core/frame.h"

namespace kite::cli {

struct LocalTarget {
  std::string socket;       // --socket PATH
  std::string config_path;  // -c CONFIG
};

/// Consumes the options every local command takes (--local, --socket PATH, -c CONFIG) at
/// argv[*i]; true when it was one of them.
bool local_option(int argc, char** argv, int* i, LocalTarget* t, bool* local);

/// Connects to the agent. -1 with a message on stderr (prefixed with `cmd`) on failure.
int local_connect(const char* cmd, LocalTarget* t);

/// Sends `req` and waits for one reply; prints "error" replies as "<cmd>: message".
/// Returns 0 for ok, 1 for an error reply or a broken connection.
int local_request(const char* cmd, LocalTarget* t, const core::Json& req, core::Json* reply);

/// The message for commands given without --local (no central manager yet).
int needs_local(const char* cmd);

}  // namespace kite::cli
