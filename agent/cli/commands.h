// Entry points of the `kite` subcommands; each takes argv with argv[0] = its name.
#pragma once

namespace kite::cli {

int classad_main(int argc, char** argv);     // agent/cli/classad_cmd.cc
int config_val_main(int argc, char** argv);  // agent/cli/config_val_cmd.cc
// `config-val -set/-unset/-rset/-runset` on nodes through the CM (agent/cli/config_set_cmd.cc).
bool config_set_requested(int argc, char** argv);
int config_set_main(int argc, char** argv);
int policy_main(int argc, char** argv);  // agent/cli/policy_cmd.cc
int hal_main(int argc, char** argv);     // agent/cli/hal_cmd.cc
// The GPUs monitor, HTCondor's condor_gpu_utilization (agent/cli/gpu_utilization_cmd.cc).
int gpu_utilization_main(int argc, char** argv);
int agent_main(int argc, char** argv);  // agent/cli/agent_cmd.cc
// Local control of the node's agent (agent/cli/local_cmd.cc).
int status_main(int argc, char** argv);
int vacate_main(int argc, char** argv);
int drain_main(int argc, char** argv);
int off_main(int argc, char** argv);
int reconfig_main(int argc, char** argv);
int set_main(int argc, char** argv);
int run_main(int argc, char** argv);  // agent/cli/run_cmd.cc
/// Detaches from the terminal (agent/cli/agent_cmd.cc): the parent exits, the child leads a
/// new session with stdio on /dev/null. False when fork fails.
bool daemonize();
#if !KITE_NODE_ONLY
// Admin-side commands, left out of the node-only image (CMakeLists.txt, KITE_ADMIN_CLI_SOURCES).
int submit_main(int argc, char** argv);      // agent/cli/submit_cmd.cc
int pki_main(int argc, char** argv);         // agent/cli/pki_cmd.cc
int reschedule_main(int argc, char** argv);  // agent/cli/reschedule_cmd.cc
// Job tables from files, as condor_q -jobads / condor_history -file (agent/cm/jobs_cmd.cc).
int q_main(int argc, char** argv);
int history_main(int argc, char** argv);
int cm_main(int argc, char** argv);  // agent/cm/cm_cmd.cc: the central manager
// The job tools against the CM's queue (agent/cm/job_tools_cmd.cc).
int rm_main(int argc, char** argv);
int hold_main(int argc, char** argv);
int release_main(int argc, char** argv);
int prio_main(int argc, char** argv);
int vacate_job_main(int argc, char** argv);
int pool_main(int argc, char** argv);      // agent/cm/pool_cmd.cc: kite pool simulate
int userprio_main(int argc, char** argv);  // agent/cm/userprio_cmd.cc
#endif

}  // namespace kite::cli
