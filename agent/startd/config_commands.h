// The configuration's commands (`include : COMMAND |`) run for a reconfig on the agent's loop:
// each through the HookRunner (no shell, its own session, bounded in time and output), their
// outputs collected, then one callback. The configuration is then loaded from the outputs.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "agent/core/config_command.h"
#include "agent/startd/fetch_hook_runner.h"
#include "policy/config/config.h"

namespace kite::agent {

/// What one command gave: its output, or why it gave none (the error a load reports).
struct ConfigCommandOutput {
  config::Status status;
  std::string output;
};
using ConfigCommandOutputs = std::map<std::string, ConfigCommandOutput>;

/// Starts every command of `commands` at once; `done` gets all their outputs when the last has
/// ended (also when none could be started). When `hooks` closes first, `done` still comes (from
/// the loop's last run), so the callback checks whether the agent is stopping.
void run_config_commands(HookRunner* hooks, const std::vector<std::string>& commands,
                         uint64_t timeout_ms, std::function<void(ConfigCommandOutputs)> done);

/// A runner for config::Config that serves the outputs in `outputs` and notes every other
/// command in `missing` (those make the load fail: it is then loaded again once they ran).
config::Config::CommandRunner config_command_server(const ConfigCommandOutputs* outputs,
                                                    std::vector<std::string>* used,
                                                    std::vector<std::string>* missing);

}  // namespace kite::agent
