// Entry points of the `kite` subcommands; each takes argv with argv[0] = its name.
#pragma once

namespace kite::cli {

int classad_main(int argc, char** argv);     // agent/cli/classad_cmd.cc
int config_val_main(int argc, char** argv);  // agent/cli/config_val_cmd.cc
int policy_main(int argc, char** argv);      // agent/cli/policy_cmd.cc
int hal_main(int argc, char** argv);         // agent/cli/hal_cmd.cc

}  // namespace kite::cli
