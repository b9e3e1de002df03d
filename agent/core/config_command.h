// Runs the commands of the configuration's `include : COMMAND |` for config::Config (the CLI
// and the agent load configurations; the configuration language itself runs no process).
#pragma once

#include <string>

#include "policy/config/config.h"

namespace kite::agent {

/// HTCondor's way (config.cpp Open_macro_source, ArgList::AppendArgsV1RawOrV2Quoted,
/// my_popen): the command is split into arguments (V2 when it is a double-quoted string, else
/// at blanks) and run without a shell; its standard output is the text. An error when it
/// cannot run, exits non-zero, writes more than 16 MiB or runs longer than 60 seconds.
config::Status run_config_command(const std::string& command, std::string* output);

}  // namespace kite::agent
