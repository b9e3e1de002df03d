// The FEATURE templates Kite ships (slots, GPUs, cron hooks, usermaps, daemons of other
// roles): each sets the same macros to the same raw values as HTCondor 25 does
// (tests/data/config/templates-all.tsv).
#include "policy/config/internal.h"

namespace kite::config::internal {
namespace {

// Line numbers matter: comments and blank lines count, so keep the layout when editing.
const Template kTemplates[] = {
    {"FEATURE", "GPUs",
     R"TPL(MACHINE_RESOURCE_INVENTORY_GPUs=$(LIBEXEC)/condor_gpu_discovery $(1) -properties $(GPU_DISCOVERY_EXTRA)
ENVIRONMENT_FOR_AssignedGPUs=GPU_DEVICE_ORDINAL=/(CUDA|OCL)//  CUDA_VISIBLE_DEVICES=/CUDA//
ENVIRONMENT_VALUE_FOR_UnAssignedGPUs=10000

use feature : GPUsMonitor)TPL"},

    {"FEATURE", "GPUsMonitor",
     R"TPL(use feature : Monitor( GPUs, WaitForExit, 300, $(GPU_MONITOR), SUM:GPUs, PEAK:GPUsMemory )
STARTD_CRON_GPUs_MONITOR_CONDITION = TotalGPUs > 0 && OpSys =!= "WINDOWS"
STARTD_JOB_ATTRS = $(STARTD_JOB_ATTRS) GPUsUsage GPUsMemoryUsage)TPL"},

    {"FEATURE", "Monitor",
     R"TPL(if ! $(5?)
error : use FEATURE : Monitor needs at least five arguments: name, mode, period, executable, metric[, metric...]
endif
STARTD_CRON_JOBLIST = $(STARTD_CRON_JOBLIST) $(1)_MONITOR
STARTD_CRON_$(1)_MONITOR_MODE = $(2)
STARTD_CRON_$(1)_MONITOR_PERIOD = $(3)
STARTD_CRON_$(1)_MONITOR_EXECUTABLE = $(4)
STARTD_CRON_$(1)_MONITOR_METRICS = $(5+))TPL"},

    {"FEATURE", "PartitionableSlot",
     R"TPL(NUM_SLOTS_TYPE_$(1:1)=1
SLOT_TYPE_$(1:1)_PARTITIONABLE=true
SLOT_TYPE_$(1:1)=$(2+:100%))TPL"},

    {"FEATURE", "StaticSlots",
     R"TPL(NUM_SLOTS_TYPE_$(1:1)=$(2:$(NUM_CPUS))
SLOT_TYPE_$(1:1)_PARTITIONABLE=false
# without an allocation the slots share the machine evenly
SLOT_TYPE_$(1:1)=$(3+))TPL"},

    {"FEATURE", "REMOTE_RUNTIME_CONFIG",
     R"TPL(ENABLE_RUNTIME_CONFIG=True
ALLOW_CONFIG=$(ALLOW_ADMINISTRATOR)
# the names given as arguments may be set remotely
if $(0#)
SETTABLE_ATTRS_CONFIG=$(SETTABLE_ATTRS_CONFIG) $(0)
endif)TPL"},

    {"FEATURE", "REMOTE_CONFIG",
     R"TPL(ENABLE_PERSISTENT_CONFIG=True
PERSISTENT_CONFIG_DIR=$(SPOOL)
use FEATURE : REMOTE_RUNTIME_CONFIG($(0)))TPL"},

    {"FEATURE", "OneShotCronHook",
     R"TPL(if ! $(3?)
error : use FEATURE : OneShotCronHook needs at least 3 arguments: STARTD_CRON | SCHEDD_CRON, tag, hook_exe [,hook_args]
endif
$(1)_JOBLIST=$($(1)_JOBLIST) $(2)
$(1)_$(2)_MODE=OneShot
$(1)_$(2)_KILL=true
$(1)_$(2)_RECONFIG_RERUN=true
$(1)_$(2)_EXECUTABLE=$(3)
if $(4?)
$(1)_$(2)_ARGS=$(4)
endif)TPL"},

    {"FEATURE", "PeriodicCronHook",
     R"TPL(if ! $(4?)
error : use FEATURE : PeriodicCronHook needs at least 4 arguments: STARTD_CRON | SCHEDD_CRON, tag, period, hook_exe [,hook_args]
endif
$(1)_JOBLIST=$($(1)_JOBLIST) $(2)
$(1)_$(2)_MODE=Periodic
$(1)_$(2)_PERIOD=$(3)
$(1)_$(2)_EXECUTABLE=$(4)
if $(5?)
$(1)_$(2)_ARGS=$(5)
endif)TPL"},

    {"FEATURE", "ContinuousCronHook",
     R"TPL(if ! $(3?)
error : use FEATURE : ContinuousCronHook needs at least 3 arguments: STARTD_CRON | SCHEDD_CRON, tag, hook_exe [,hook_args]
endif
$(1)_JOBLIST=$($(1)_JOBLIST) $(2)
$(1)_$(2)_MODE=WaitForExit
$(1)_$(2)_PERIOD=0
$(1)_$(2)_EXECUTABLE=$(3)
if $(4?)
$(1)_$(2)_ARGS=$(4)
endif)TPL"},

    {"FEATURE", "StartdCronPeriodic", "use FEATURE : PeriodicCronHook(STARTD_CRON, $(0))"},
    {"FEATURE", "ScheddCronPeriodic", "use FEATURE : PeriodicCronHook(SCHEDD_CRON, $(0))"},
    {"FEATURE", "StartdCronOneShot", "use FEATURE : OneShotCronHook(STARTD_CRON, $(0))"},
    {"FEATURE", "ScheddCronOneShot", "use FEATURE : OneShotCronHook(SCHEDD_CRON, $(0))"},
    {"FEATURE", "StartdCronContinuous", "use FEATURE : ContinuousCronHook(STARTD_CRON, $(0))"},
    {"FEATURE", "ScheddCronContinuous", "use FEATURE : ContinuousCronHook(SCHEDD_CRON, $(0))"},

    {"FEATURE", "ScheddUsermapFile",
     R"TPL(if ! $(2?)
error : use FEATURE : ScheddUsermapFile needs 2 arguments: map_name, map_file
endif
SCHEDD_CLASSAD_USER_MAP_NAMES = $(SCHEDD_CLASSAD_USER_MAP_NAMES) $(1)
CLASSAD_USER_MAPFILE_$(1) = $(2))TPL"},

    {"FEATURE", "ChildCollector",
     R"TPL(COLLECTOR$(1)=$(COLLECTOR)
if $(2?)
COLLECTOR$(1)_ARGS= -p $(2)
else
COLLECTOR$(1)_ARGS= -sock collector$(1)
endif
COLLECTOR$(1).COLLECTOR_NAME=Collector$(1)
COLLECTOR$(1).CONDOR_VIEW_HOST=$(TOP_COLLECTOR_HOST)
COLLECTOR$(1).CCB_RECONNECT_FILE=$(SPOOL)/Collector$(1).ccb_reconnect
DAEMON_LIST=$(DAEMON_LIST) COLLECTOR$(1)
# point every child at another top-level collector by changing this
TOP_COLLECTOR_HOST=$(COLLECTOR_HOST))TPL"},

    {"FEATURE", "CommonCloudAttributesGoogle",
     R"TPL(use FEATURE : StartdCronOneShot(cloud, $(LIBEXEC)/common-cloud-attributes-google.py, $(0))
STARTD_CRON_cloud_PREFIX = Cloud)TPL"},
    {"FEATURE", "CommonCloudAttributesAWS",
     R"TPL(use FEATURE : StartdCronOneShot(cloud, $(LIBEXEC)/common-cloud-attributes-aws.py, $(0))
STARTD_CRON_cloud_PREFIX = Cloud)TPL"},
    {"FEATURE", "JobsHaveInstanceIDs",
     "SYSTEM_JOB_MACHINE_ATTRS = $(SYSTEM_JOB_MACHINE_ATTRS) CloudInstanceID"},
};

}  // namespace

TemplateTable feature_templates() {
  return {kTemplates, sizeof kTemplates / sizeof kTemplates[0]};
}

}  // namespace kite::config::internal
