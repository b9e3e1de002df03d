// The contract between the agent and a starter: the files in the starter's directory and the
// frames on its socket. The agent writes job.json and spawns `kite starter --dir DIR`; the
// starter owns state.json and listens on DIR/sock; the agent connects (again after a restart).
#pragma once

// (The contract below is laid out as tables, kept as written.)
// clang-format off
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
//   Field notes: "job" and "machine" are read from their raw text (HTCondor's JSON reader
//   needs the escaped slashes of "\/Expr(...)\/"). In the job ad the starter uses Cmd
//   (absolute, or relative to Iwd), Arguments (new syntax) or Args (old), Environment (new)
//   or Env (old), Iwd (absolute or relative to the sandbox; unset = the sandbox), In/Out/Err
//   (relative to Iwd; unset = /dev/null), KillSig (name or number). A bad field makes the
//   starter exit 1 with "job.json: field 'x': why" on stderr, in starter.log and in
//   state.json ("error", see below).
// state.json  written by the starter, atomically, on every change: the "hello" frame's body.
//             While it exists no second starter runs in DIR (exit 1: "refusing to run the job
//             twice"); while a starter lives it holds flock(LOCK_EX) on job.json (a second
//             concurrent starter exits 1). The agent must not flock job.json itself.
// sock        the starter's Unix socket (mode 0600); peers other than root or the starter's
//             own uid are refused.
// starter.log the starter's log (rotated at 1 MiB).
// The sandbox is <execute>/dir_<starter pid> (0700, owned by the slot user) with .job.ad and
// .machine.ad; the job cgroup is <cgroup_base>/<slot> in every hierarchy the node has.
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
//   {"type":"error", "message"}                reply to a frame that is bad or not possible now
//                                              (3 bad frames close the connection)
//   Additions to the above (all optional for a reader):
//   - hello: "error" (why the starter could not start; then state "exited" and the exit says
//     outcome "evict" with VacateReasonCode 1007 StarterError).
//   - exit: "ExitReason" (text), "JobStartDate", "ImageSize", "ResidentSetSize", "NumPids";
//     outcome "evict" carries "VacateReason" (and, when the job never started,
//     "VacateReasonCode" 1003 JobNotStarted + "VacateReasonSubCode", e.g. a PREPARE hook's
//     HookStatusCode >= 300). "stdout"/"stderr" are at most 64 KiB each (UTF-8 cleaned).
//   - HoldReasonCode values used: 6 FailedToCreateProcess (subcode errno), 7 output file,
//     8 input file, 14 Iwd, 19 PREPARE hook failed (subcode: its status, -signal, 0 when it
//     could not run or printed no ClassAd), 23 slot user unknown or root refused, 34 memory
//     limit ("Job has gone over memory limit of N megabytes. Peak usage: M megabytes.").
//
// ## Frames, agent -> starter
//   {"type":"suspend"} {"type":"continue"}
//   {"type":"soft-kill", "signal": n}   n optional: default the job ad's KillSig (else SIGTERM)
//   {"type":"hard-kill"}                SIGKILL to the whole job cgroup
//   {"type":"release"}                  the agent has the exit: clean up (sandbox, cgroup,
//                                       DIR) and exit 0 (an error frame before the exit)
//   {"type":"status"}                   (addition) the starter answers with a hello
//
// Semantics: "suspended"/"continued" also answer a suspend/continue that finds the job already
// so. A soft kill of a suspended job continues it first (a "continued" frame). Any soft or
// hard kill makes the outcome "evict" (unless the job was OOM-killed: "hold"); one during
// preparation stops it (a running PREPARE hook is killed) and the job never starts. When the
// job's main process exits, what is left of it is killed; then the JOB_EXIT hook runs (argv:
// exit|hold|evict), and only after it the exit is published. SIGTERM/SIGINT to the starter
// hard-kill the job (outcome "evict"); SIGHUP and SIGPIPE are ignored.
//
// A starter with no agent connected for longer than "lease" hard-kills its job, keeps the exit
// in state.json for one more lease (counted from the exit when that came later), then cleans
// up and exits 0.
// clang-format on

namespace kite::starter {

inline constexpr const char* kJobFile = "job.json";
inline constexpr const char* kStateFile = "state.json";
inline constexpr const char* kSocketFile = "sock";
inline constexpr const char* kLogFile = "starter.log";

}  // namespace kite::starter
