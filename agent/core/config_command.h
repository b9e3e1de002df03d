// Runs the commands of the configuration's `include : COMMAND |` for config::Config (the CLI
// and the agent load configurations; the configuration language itself runs no process).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "policy/config/config.h"

namespace kite::agent {

/// The bounds on one configuration command: its output, and how long it may run.
constexpr size_t kConfigCommandMaxOutput = 16u << 20;
constexpr uint64_t kConfigCommandTimeoutMs = 60000;

/// HTCondor's way (config.cpp Open_macro_source, ArgList::AppendArgsV1RawOrV2Quoted): the
/// command is split into arguments, V2 when it is a double-quoted string, else at blanks.
config::Status config_command_argv(const std::string& command, std::vector<std::string>* args);

/// How a configuration command ended, as the error a configuration load reports (Ok: it exited
/// 0). `code`: its exit code, or 128 + the signal that ended it.
struct ConfigCommandEnd {
  bool started = true;
  bool timed_out = false;
  bool too_big = false;
  int code = 0;
  bool wrote_nothing = false;
  uint64_t timeout_ms = kConfigCommandTimeoutMs;
};
config::Status config_command_status(const ConfigCommandEnd& end);

/// Runs it without a shell (blocking) and collects its standard output; an error when it
/// cannot run, exits non-zero, writes more than kConfigCommandMaxOutput or runs longer than
/// kConfigCommandTimeoutMs.
config::Status run_config_command(const std::string& command, std::string* output);

/// Writes the cache file of `include command into FILE : ...` (mode 0644, atomically).
config::Status write_config_cache(const std::string& path, const std::string& text);

}  // namespace kite::agent
