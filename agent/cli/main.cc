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
    {"agent", kite::cli::agent_main, "run the node agent (startd)"},
    {"status", kite::cli::status_main, "show the slots (--local: this node's agent)"},
    {"vacate", kite::cli::vacate_main, "vacate jobs from slots (--local)"},
    {"drain", kite::cli::drain_main, "drain the node (--local)"},
    {"off", kite::cli::off_main, "shut the agent down (--local)"},
    {"reconfig", kite::cli::reconfig_main, "make the agent re-read its configuration (--local)"},
    {"set", kite::cli::set_main, "set input attributes in slot ads (--local)"},
    {"run", kite::cli::run_main, "run a command as a job on this node (--local)"},
    {"submit", kite::cli::submit_main, "print the job ads of a submit file (-dry-run FILE)"},
    {"pki", kite::cli::pki_main, "the pool's TLS certificates (init, issue, show, revoke)"},
#if !KITE_NODE_ONLY
    {"q", kite::cli::q_main, "show jobs, as condor_q (-jobads FILE)"},
    {"cm", kite::cli::cm_main, "run the central manager (the collector over mutual TLS)"},
    {"pool", kite::cli::pool_main, "simulate a pool's allocation policy (simulate FILE...)"},
    {"history", kite::cli::history_main, "show ended jobs, as condor_history (-file FILE)"},
#endif
    {"starter", kite::starter::starter_main, "run one job (spawned by the agent)"},
};

void usage() {
  std::fprintf(stderr, "usage: kite COMMAND [ARGS...]\ncommands:\n");
  for (const Command& c : kCommands) std::fprintf(stderr, "  %-12s %s\n", c.name, c.help);
}

}  // namespace

int main(int argc, char** argv) {
  // Installed as `kited` (a link to kite), the binary is the agent.
  const char* base = argc > 0 ? std::strrchr(argv[0], '/') : nullptr;
  base = base ? base + 1 : (argc > 0 ? argv[0] : "");
  if (std::strcmp(base, "kited") == 0) return kite::cli::agent_main(argc, argv);
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
