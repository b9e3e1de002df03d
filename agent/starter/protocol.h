// The contract between the agent and a starter: the files in the starter's directory and the
// frames on its socket. The agent writes job.json and spawns `kite starter --dir DIR`; the
// starter owns state.json and listens on DIR/sock; the agent connects (again after a restart).
#pragma once

// ## Files in DIR (one directory per running job: <LOCAL_STATE_DIR>/starters/<slot>)
//
// job.json  written by the agent before the spawn (atomically), read once by the starter:
//   {
//     "slot": "slot1_1",                 slot name (also the job cgroup's name under the base)
//     "claim_id": "<...>",
//     "job": { JSON ad },                the job ad, HTCondor JSON convention (policy/classad/json.h)
//     "machine": { JSON ad },            the slot's machine ad at activation (for _CONDOR_MACHINE_AD)
//     "cpus": 1.0,                       the slot's Cpus (cpu weight, OMP_NUM_THREADS)
//     "memory_mb": 512,                  the slot's Memory, MiB (memory limit)
//     "total_memory_mb": 24000,          the startd's whole memory, MiB (soft policy's hard limit)
//     "virtual_memory_kb": 0,            the slot's VirtualMemory, KiB (0 = no swap limit)
//     "cpu_list": [0, 1],                PUs to bind to (cpuset); empty/missing = no binding
//     "gpus": ["GPU-6a96bd13"],          assigned GPU ids; "gpu_env": {"CUDA_VISIBLE_DEVICES": "..."}
//     "gpu_env": { "NAME": "value" },    GPU visibility variables to set
//     "execute": "/var/lib/kite/execute",   EXECUTE: the sandbox goes in EXECUTE/dir_<starter pid>
//     "cgroup_base": "kite",             BASE_CGROUP ("" = no cgroups)
//     "cgroup_root": "/",                filesystem root the HAL reads (tests: "/")
//     "memory_policy": "hard",           CGROUP_MEMORY_LIMIT_POLICY: none|soft|hard
//     "disable_swap": false,             DISABLE_SWAP_FOR_JOB
//     "pids_max": 0,                     pids limit for the job cgroup (<= 0: none)
//     "slot_user": "nobody",             SLOT_USER / SLOT<N>_USER
//     "allow_root_jobs": false,          ALLOW_ROOT_JOBS
//     "use_pid_namespace": false,        USE_PID_NAMESPACES
//     "lease": 1800,                     claim lease, seconds: how long the job may outlive its agent
//     "update_interval": 300,            STARTER_UPDATE_INTERVAL
//     "initial_update_interval": 2,      STARTER_INITIAL_UPDATE_INTERVAL
//     "hooks": {                         <Keyword>_HOOK_* paths, resolved by the agent; absent = none
//       "prepare_job_before_transfer": "/path", "prepare_job": "/path",
//       "update_job_info": "/path", "job_exit": "/path" },
//     "hook_timeout": 120,               seconds a hook may run
//     "return_output": 65536             bytes of Out/Err to put in the exit frame (0 = none)
//   }
// state.json  written by the starter, atomically, on every change: the "hello" frame's body.
// sock        the starter's Unix socket (mode 0600).
// starter.log the starter's log.
//
// ## Frames (agent/core/frame.h), starter -> agent
//   {"type":"hello", "slot", "claim_id", "starter_pid", "state": "preparing"|"running"|
//      "suspended"|"exited", "job_pid", "start_time" (epoch s), "sandbox", and when exited the
//      "exit" object below}                 first frame on every connection
//   {"type":"started", "job_pid", "start_time"}
//   {"type":"usage", "RemoteUserCpu" (s), "RemoteSysCpu" (s), "ImageSize" (KiB),
//      "ResidentSetSize" (KiB), "MemoryUsage" (MiB), "NumPids"}
//   {"type":"suspended"} / {"type":"continued"}   after the cgroup is frozen / thawed
//   {"type":"exit", "exit": {
//      "outcome": "exit"|"hold"|"evict"|"remove",  exit: the job ended by itself; evict: killed
//                                                  on the agent's request; hold: OOM, refused to
//                                                  run, or a hook said so
//      "ExitCode": n | "ExitBySignal": true, "ExitSignal": n,
//      "JobDuration" (s, real), "RemoteUserCpu", "RemoteSysCpu", "MemoryUsage", ...
//      "HoldReason", "HoldReasonCode", "HoldReasonSubCode"   (outcome hold)
//      "stdout", "stderr"   (tails, when return_output > 0) }}
//   {"type":"error", "message"}
//
// ## Frames, agent -> starter
//   {"type":"suspend"} {"type":"continue"}
//   {"type":"soft-kill", "signal": n}   n optional: default the job ad's KillSig (else SIGTERM)
//   {"type":"hard-kill"}                SIGKILL to the whole job cgroup
//   {"type":"release"}                  the agent has the exit: clean up (sandbox, cgroup,
//                                       DIR) and exit 0
//
// A starter with no agent connected for longer than "lease" hard-kills its job, keeps the exit
// in state.json for one more lease, then cleans up and exits.

namespace kite::starter {

inline constexpr const char* kJobFile = "job.json";
inline constexpr const char* kStateFile = "state.json";
inline constexpr const char* kSocketFile = "sock";
inline constexpr const char* kLogFile = "starter.log";

}  // namespace kite::starter
