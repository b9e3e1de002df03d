// Built-in default values of the macros an HTCondor admin expects condor_config_val to print with
// an empty configuration (startd policy, timers, policy fragments), compiled into the binary.
// HTCONDOR: values of HTCondor 25's param table; startd.rst; ep-policy "Default policy settings".
#include <strings.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "policy/config/internal.h"

namespace kite::config::internal {
namespace {

// matchable=true: HTCondor's param table (a `NAME = <same text>` line keeps <Default>).
// matchable=false: Kite fallbacks for names HTCondor 25 leaves undefined but the startd needs
// (and that templates set): they never hide a template's assignment.
const Default kDefaults[] = {
    // Startd policy expressions (startd.rst, param table).
    {"START", "True", true},
    {"SUSPEND", "False", true},
    {"CONTINUE", "True", true},
    {"PREEMPT", "False", true},
    {"KILL", "False", true},
    {"WANT_SUSPEND", "False", true},
    {"WANT_VACATE", "True", true},
    {"IS_OWNER", "False", true},
    {"WANT_HOLD", "False", false},
    {"RANK", "0", false},
    {"MaxJobRetirementTime", "0", false},
    {"PERIODIC_CHECKPOINT",
     "((time() - LastPeriodicCheckpoint)/60.0) > (180.0 + $RANDOM_INTEGER(-30,30,1))", true},
    {"MachineMaxVacateTime", "$(MaxVacateTime)", true},
    {"PREEMPTION_REQUIREMENTS", "False", true},
    {"PREEMPTION_RANK",
     "(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime)",
     true},
    {"NEGOTIATOR_CONSIDER_PREEMPTION", "true", true},
    {"NEGOTIATOR_PRE_JOB_RANK",
     "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory",
     true},
    {"NEGOTIATOR_POST_JOB_RANK",
     "(RemoteOwner =?= UNDEFINED) * (ifthenElse(isUndefined(KFlops), 1000, Kflops) - SlotID - "
     "1.0e10*(Offline=?=True))",
     true},
    // Startd timers and sizes.
    {"CLAIM_WORKLIFE", "1200", true},
    {"MATCH_TIMEOUT", "120", true},
    {"KILLING_TIMEOUT", "30", true},
    {"UPDATE_INTERVAL", "300", true},
    {"POLLING_INTERVAL", "5", true},
    {"MAX_CLAIM_ALIVES_MISSED", "6", true},
    {"NUM_CPUS", "$(DETECTED_CPUS_LIMIT)", true},
    {"DETECTED_CPUS_LIMIT", "$(DETECTED_CPUS)", true},
    {"DETECTED_CPUS", "1", true},
    {"DETECTED_PHYSICAL_CPUS", "1", true},
    {"DETECTED_CORES", "1", true},
    {"COUNT_HYPERTHREAD_CPUS", "true", true},
    {"MAX_SLOT_TYPES", "10", true},
    {"SLOTS_CONNECTED_TO_CONSOLE", "0", true},
    {"SLOTS_CONNECTED_TO_KEYBOARD", "0", true},
    {"STARTD_ATTRS", "", true},
    {"STARTD_JOB_ATTRS", "", true},
    {"STARTD_LATCH_EXPRS", "", true},
    {"STARTD_CRON_JOBLIST", "", false},
    {"CONSUMPTION_POLICY", "false", true},
    {"NEGOTIATOR_USE_SLOT_WEIGHTS", "true", true},
    {"SYSTEM_JOB_MACHINE_ATTRS", "Cpus,SlotWeight", true},
    // File transfer plugins (starter.rst; sites append their own with
    // `FILETRANSFER_PLUGINS = $(FILETRANSFER_PLUGINS), ...`).
    {"FILETRANSFER_PLUGINS",
     "$(LIBEXEC)/curl_plugin, $(LIBEXEC)/data_plugin, $(LIBEXEC)/box_plugin.py, "
     "$(LIBEXEC)/gdrive_plugin.py, $(LIBEXEC)/onedrive_plugin.py, $(STASH_PLUGIN)",
     true},
    {"STASH_PLUGIN", "$(LIBEXEC)/stash_plugin", true},
    // Execution-point booleans the reference documents (startd.rst, starter.rst,
    // ep-configuration), spelled as the param table spells them: a file setting one to its
    // default in another case still prints this spelling.
    {"ASSIGN_CPU_AFFINITY", "false", true},
    {"CGROUP_IGNORE_CACHE_MEMORY", "true", true},
    {"CHECK_REACTIVATE_AFTER_CHECKPOINT", "true", true},
    {"CLAIM_PARTITIONABLE_LEFTOVERS", "$(NEGOTIATOR_USE_SLOT_WEIGHTS)", true},
    {"CONDOR_SSH_TO_JOB_FAKE_PASSWD_ENTRY", "true", true},
    {"CONTINUE_TO_ADVERTISE_BROKEN_DYNAMIC_SLOTS", "false", true},
    {"DOCKER_DROP_ALL_CAPABILITIES", "true", true},
    {"DOCKER_RUN_UNDER_INIT", "true", true},
    {"DOCKER_SKIP_IMAGE_ARCH_CHECK", "false", true},
    {"DOCKER_TRUST_LOCAL_IMAGES", "false", true},
    {"ENABLE_CHIRP", "true", true},
    {"ENABLE_CHIRP_DELAYED", "true", true},
    {"ENABLE_CHIRP_IO", "true", true},
    {"ENABLE_CHIRP_UPDATES", "true", true},
    {"ENABLE_CLAIMABLE_PARTITIONABLE_SLOTS", "false", true},
    {"ENABLE_URL_TRANSFERS", "true", true},
    {"JOB_INHERITS_STARTER_ENVIRONMENT", "false", true},
    {"LVM_USE_THIN_PROVISIONING", "false", true},
    {"MOUNT_PRIVATE_DEV_SHM", "true", true},
    {"MUST_MODIFY_REQUEST_EXPRS", "false", true},
    {"PER_JOB_NAMESPACES", "true", true},
    {"RUN_FILETRANSFER_PLUGINS_WITH_ROOT", "false", true},
    {"SINGULARITY_ADD_ROCM_FLAG", "false", true},
    {"SINGULARITY_JOB", "false", true},
    {"STARTD_ENFORCE_DISK_LIMITS", "false", true},
    {"STARTD_LEFTOVER_PROCS_BREAK_SLOTS", "false", true},
    {"STARTD_SHOULD_WRITE_CLAIM_ID_FILE", "true", true},
    {"STARTER_ALWAYS_HOLD_ON_OOM", "true", true},
    {"STARTER_HIDE_GPU_DEVICES", "true", true},
    {"USE_PID_NAMESPACES", "false", true},
    // Security and remote configuration (templates extend these).
    {"SETTABLE_ATTRS_CONFIG", "", true},
    {"TRUST_DOMAIN", "$(UID_DOMAIN)", true},
    {"ENABLE_BACKFILL", "false", true},
    {"GPU_MONITOR", "$(LIBEXEC)/condor_gpu_utilization", true},
    {"ENVIRONMENT_FOR_AssignedGPUs",
     "GPU_DEVICE_ORDINAL=/(CUDA|OCL)//  CUDA_VISIBLE_DEVICES=/CUDA//", true},
    {"ENVIRONMENT_VALUE_FOR_UnAssignedGPUs", "10000", true},
    // Constants and policy fragments (param table "Useful constants").
    {"MINUTE", "60", true},
    {"HOUR", "3600", true},
    {"StateTimer", "(time() - EnteredCurrentState)", true},
    {"ActivityTimer", "(time() - EnteredCurrentActivity)", true},
    {"STANDARD", "1", true},
    {"VANILLA", "5", true},
    {"MPI", "8", true},
    {"VM", "13", true},
    {"IsStandard", "(TARGET.JobUniverse == $(STANDARD))", true},
    {"IsVanilla", "(TARGET.JobUniverse == $(VANILLA))", true},
    {"IsMPI", "(TARGET.JobUniverse == $(MPI))", true},
    {"IsVM", "(TARGET.JobUniverse == $(VM))", true},
    {"BigJob", "(TARGET.ImageSize >= (50 * 1024))", true},
    {"MediumJob", "(TARGET.ImageSize >= (15 * 1024) && TARGET.ImageSize < (50 * 1024))", true},
    {"SmallJob", "(TARGET.ImageSize <  (15 * 1024))", true},
    {"BackgroundLoad", "0.3", true},
    {"HighLoad", "0.5", true},
    {"StartIdleTime", "15 * $(MINUTE)", true},
    {"ContinueIdleTime", "5 * $(MINUTE)", true},
    {"MaxSuspendTime", "10 * $(MINUTE)", true},
    {"MaxVacateTime", "10 * $(MINUTE)", true},
    // ep-policy's default fragments (HTCondor 25 only defines them via
    // FEATURE:POLICY_EXPR_FRAGMENTS; Kite provides them as fallbacks).
    {"ActivationTimer", "ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0)", false},
    {"NonCondorLoadAvg", "(LoadAvg - CondorLoadAvg)", false},
    {"KeyboardBusy", "(KeyboardIdle < $(MINUTE))", false},
    {"ConsoleBusy", "(ConsoleIdle  < $(MINUTE))", false},
    {"KeyboardNotBusy", "($(KeyboardBusy) == False)", false},
    {"CPUIdle", "($(NonCondorLoadAvg) <= $(BackgroundLoad))", false},
    {"CPUBusy", "($(NonCondorLoadAvg) >= $(HighLoad))", false},
    {"JustCPU", "($(CPUBusy) && ($(KeyboardBusy) == False))", false},
    {"MachineBusy", "($(CPUBusy) || $(KeyboardBusy))", false},
    {"LastCkpt", "(time() - LastPeriodicCheckpoint)", false},
    // Layout of Kite's own files.
    {"RELEASE_DIR", "/usr", true},
    {"LIBEXEC", "$(RELEASE_DIR)/libexec/kite", false},
    {"LOCAL_DIR", "/var/lib/kite", false},
    {"LOG", "$(LOCAL_DIR)/log", true},
    {"SPOOL", "$(LOCAL_DIR)/spool", true},
    {"EXECUTE", "$(LOCAL_DIR)/execute", true},
    {"LOCAL_CONFIG_DIR", "$(CONFIG_ROOT)/config.d", false},
    {"LOCAL_CONFIG_DIR_EXCLUDE_REGEXP",
     "^((\\..*)|(.*\\.pl)|(.*\\.py)|(.*\\.sh)|(.*~)|(#.*)|(.*\\.rpmsave)|(.*\\.rpmnew)|(.*\\.dpkg-"
     "old)|(.*\\.dpkg-dist)|(.*\\.cfsaved))$",
     true},
    {"UID_DOMAIN", "$(FULL_HOSTNAME)", true},
    {"FILESYSTEM_DOMAIN", "$(FULL_HOSTNAME)", true},
    {"COLLECTOR_HOST", "$(CONDOR_HOST)", true},
    {"DAEMON_LIST", "MASTER", true},
};

struct Index {
  std::vector<const Default*> sorted;
  Index() {
    for (const Default& d : kDefaults) sorted.push_back(&d);
    std::sort(sorted.begin(), sorted.end(),
              [](const Default* a, const Default* b) { return strcasecmp(a->name, b->name) < 0; });
  }
};

const Index& index() {
  static const Index idx;
  return idx;
}

}  // namespace

const Default* default_find(std::string_view name) {
  const auto& v = index().sorted;
  std::string key(name);
  auto it = std::lower_bound(v.begin(), v.end(), key, [](const Default* d, const std::string& k) {
    return strcasecmp(d->name, k.c_str()) < 0;
  });
  if (it != v.end() && strcasecmp((*it)->name, key.c_str()) == 0) return *it;
  return nullptr;
}

bool same_as_default(std::string_view dflt, std::string_view value) {
  if (dflt == value) return true;
  auto ieq = [](std::string_view a, const char* b) {
    return a.size() == std::strlen(b) && strncasecmp(a.data(), b, a.size()) == 0;
  };
  return (ieq(dflt, "true") && ieq(value, "true")) || (ieq(dflt, "false") && ieq(value, "false"));
}

const Default* defaults_all(int* count) {
  *count = static_cast<int>(sizeof kDefaults / sizeof kDefaults[0]);
  return kDefaults;
}

}  // namespace kite::config::internal
