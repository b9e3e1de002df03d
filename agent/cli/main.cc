// The multi-call `kite` binary: the first argument picks the role/subcommand.
#include <cstdio>
#include <cstring>

#include "agent/cli/commands.h"
#include "agent/starter/starter.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int argc, char** argv);
  const char* help;
};

int version_main(int, char**) {
  std::printf("kite %s\n", KITE_VERSION);
  return 0;
}

const Command kCommands[] = {
    {"version", version_main, "print the version"},
    {"classad", kite::cli::classad_main, "evaluate ClassAd expressions (eval, batch)"},
    {"config-val", kite::cli::config_val_main, "print configuration values"},
    {"policy", kite::cli::policy_main, "simulate startd policy scenarios (simulate FILE)"},
    {"hal", kite::cli::hal_main, "print the detected hardware as a machine ad"},
    {"starter", kite::starter::starter_main, "run one job (spawned by the agent)"},
};

void usage() {
  std::fprintf(stderr, "usage: kite COMMAND [ARGS...]\ncommands:\n");
  for (const Command& c : kCommands) std::fprintf(stderr, "  %-12s %s\n", c.name, c.help);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage();
    return 2;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name) == 0) return c.run(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "kite: unknown command '%s'\n", argv[1]);
  usage();
  return 2;
}
