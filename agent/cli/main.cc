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
    {"gpu-utilization", kite::cli::gpu_utilization_main,
     "the GPUs monitor: GPU busy time and memory per interval (NVML)"},
    {"agent", kite::cli::agent_main, "run the node agent (startd)"},
    {"status", kite::cli::status_main, "show the slots (--local: this node's agent)"},
    {"vacate", kite::cli::vacate_main, "vacate jobs from slots (--local, or nodes through the CM)"},
    {"drain", kite::cli::drain_main, "drain the node (--local, or nodes through the CM)"},
    {"off", kite::cli::off_main, "shut the agent down (--local, or nodes through the CM)"},
    {"reconfig", kite::cli::reconfig_main,
     "make the agent re-read its configuration (--local, or nodes through the CM)"},
    {"set", kite::cli::set_main, "set input attributes in slot ads (--local)"},
    {"run", kite::cli::run_main, "run a command as a job on this node (--local)"},
#if !KITE_NODE_ONLY
    {"submit", kite::cli::submit_main, "submit jobs to the central manager (-dry-run: print)"},
    {"pki", kite::cli::pki_main, "the pool's TLS certificates (init, issue, show, revoke)"},
    {"reschedule", kite::cli::reschedule_main, "ask the central manager for a negotiation now"},
    {"q", kite::cli::q_main, "show jobs, as condor_q"},
    {"cm", kite::cli::cm_main, "run the central manager (the collector over mutual TLS)"},
    {"pool", kite::cli::pool_main, "simulate a pool's allocation policy (simulate FILE...)"},
    {"history", kite::cli::history_main, "show ended jobs, as condor_history"},
    {"rm", kite::cli::rm_main, "remove jobs from the queue, as condor_rm"},
    {"hold", kite::cli::hold_main, "hold jobs, as condor_hold"},
    {"release", kite::cli::release_main, "release held jobs, as condor_release"},
    {"prio", kite::cli::prio_main, "change jobs' priority, as condor_prio"},
    {"vacate-job", kite::cli::vacate_job_main, "stop running jobs and requeue them"},
    {"userprio", kite::cli::userprio_main, "user priorities, as condor_userprio"},
#endif
    {"starter", kite::starter::starter_main, "run one job (spawned by the agent)"},
};

#if KITE_NODE_ONLY
// Commands of the full build that a node never runs (CMakeLists.txt: the CM and the node-only
// exclusion list), named so a node-only binary can say where they are.
const char* const kFullBuildOnly[] = {"submit", "pki", "q", "cm", "history", "userprio"};
#endif

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
#if KITE_NODE_ONLY
  for (const char* name : kFullBuildOnly) {
    if (std::strcmp(argv[1], name) == 0) {
      std::fprintf(stderr, "kite: '%s' is not in this node-only build; use the full build\n", name);
      return 2;
    }
  }
#endif
  std::fprintf(stderr, "kite: unknown command '%s'\n", argv[1]);
  usage();
  return 2;
}
