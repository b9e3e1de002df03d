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

    // Daemons and features of other roles (Kite runs none of them; the settings are kept so
    // that shared configuration files read the same as on HTCondor).
    {"FEATURE", "ADSTASH",
     R"TPL(ADSTASH_SCHEDD_HISTORY=True
DAEMON_LIST=$(DAEMON_LIST) ADSTASH)TPL"},
    {"FEATURE", "GANGLIA", "DAEMON_LIST=$(DAEMON_LIST) GANGLIAD"},
    {"FEATURE", "KRB",
     R"TPL(SEC_CREDENTIAL_DIRECTORY_KRB=/var/lib/condor/krb_credentials
DAEMON_LIST=$(DAEMON_LIST) CREDMON_KRB
SEC_CREDENTIAL_PRODUCER=$(LIBEXEC)/cred_producer_krb
SEC_CREDENTIAL_MONITOR_KRB_LOG=$(LOG)/CredMonKrbLog
AUTO_INCLUDE_CREDD_IN_DAEMON_LIST=True
USE_KEYRING_SESSIONS=True)TPL"},
    {"FEATURE", "OAUTH",
     R"TPL(SEC_CREDENTIAL_DIRECTORY_OAUTH=/var/lib/condor/oauth_credentials
CREDMON_OAUTH_LOG=$(LOG)/CredMonOAuthLog
DAEMON_LIST=$(DAEMON_LIST) CREDMON_OAUTH
AUTO_INCLUDE_CREDD_IN_DAEMON_LIST=True
TRUST_CREDENTIAL_DIRECTORY=True)TPL"},
    {"FEATURE", "LIBRARIAN",
     R"TPL(DAEMON_LIST=$(DAEMON_LIST) LIBRARIAN
USING_LIBRARIAN=True
LIBRARIAN_MAX_DATABASE_SIZE=$(1:2 * 1024 * 1024 * 1024)
LIBRARIAN_DATABASE=$(2:$(SPOOL)/library.db))TPL"},

    {"FEATURE", "PelicanCache",
     R"TPL(PELICANCACHE=/usr/bin/pelican
DAEMON_LIST=$(DAEMON_LIST) PELICANCACHE
PELICANCACHE_LOG=$(LOG)/PelicanCacheLog
PELICANCACHE_SIZE=$(1:256GB)
PELICANCACHE_RUNLOCATION=$(2:$(LOCAL_DIR)/localcache)
PELICANCACHE_FEDERATION=$(3:osg-htc.org)
PELICANCACHE_HIGHWATERMARKPERCENTAGE=95
PELICANCACHE_LOWWATERMARKPERCENTAGE=85
PELICANCACHE_ARGS=serve -d --module localcache -L $(PELICANCACHE_LOG) -f $(PELICANCACHE_FEDERATION)
# the cache daemon's environment, one VAR=value per line
PELICANCACHE_ENVIRONMENT @=end
  PELICAN_SERVER_ENABLEUI=false
  PELICAN_LOCALCACHE_SIZE=$(PELICANCACHE_SIZE)
  PELICAN_LOCALCACHE_RUNLOCATION=$(PELICANCACHE_RUNLOCATION)
  PELICAN_LOCALCACHE_HIGHWATERMARKPERCENTAGE=$(PELICANCACHE_HIGHWATERMARKPERCENTAGE)
  PELICAN_LOCALCACHE_LOWWATERMARKPERCENTAGE=$(PELICANCACHE_LOWWATERMARKPERCENTAGE)
@end
# jobs and transfer plugins find the cache through the startd's environment
STARTD_ENVIRONMENT=;NEAREST_CACHE=unix:/$(PELICANCACHE_RUNLOCATION)/cache.sock;$(STARTD_ENVIRONMENT))TPL"},

    {"FEATURE", "PelicanRetryPolicy",
     R"TPL(PelicanRetry_MaxRetries = 4
# wait 300 seconds and up to 300 more before a retry
PelicanRetry_MinimumDelay = 300
PelicanRetry_RandomDelay = 300
# the plugin's exit codes 11 (retriable) and 5 (stopped), shifted by 8
pelican_error_subcode_retriable = 2816
pelican_error_subcode_stopped = 1280
PelicanRetryCondition = ((VacateReasonCode == 12 || VacateReasonCode == 13) && ((VacateReasonSubCode == $(pelican_error_subcode_retriable)) || (VacateReasonSubCode == $(pelican_error_subcode_stopped)))) ?: false
JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) PelicanRetry
JOB_TRANSFORM_PelicanRetry @=jt
  REQUIREMENTS (stringListIMember("pelican",WantTransferPluginMethods) || stringListIMember("osdf",WantTransferPluginMethods) || stringListIMember("stash",WantTransferPluginMethods)) && isUndefined(PelicanRetryEnabled)
  EVALMACRO retry_delay = $(PelicanRetry_MinimumDelay) + random($(PelicanRetry_RandomDelay))
  SET PelicanRetryEnabled true
  SET PelicanRetryDelay $(retry_delay)
@jt
SYSTEM_ON_VACATE_COOL_DOWN = ((PelicanRetryEnabled?:false) && $(PelicanRetryCondition) && ((NumJobCoolDowns?:0) < $(PelicanRetry_MaxRetries)) ? PelicanRetryDelay : ($(SYSTEM_ON_VACATE_COOL_DOWN:0))))TPL"},

    {"FEATURE", "AssignAccountingGroup",
     R"TPL(if ! $(1?)
error : use FEATURE : AssignAccountingGroup requires a map_file argument
endif
use FEATURE : ScheddUsermapFile(AssignAccountingGroup, $(1))
JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) AssignAccountingGroup
JOB_TRANSFORM_AssignAccountingGroup @=end
  COPY Owner = AcctGroupUser
  COPY AcctGroup = RequestedAcctGroup
  EVALSET AcctGroup = usermap("AssignAccountingGroup",AcctGroupUser,AcctGroup)
  EVALSET AccountingGroup = join(".",AcctGroup,AcctGroupUser)
@end
# once set, users may not edit them
IMMUTABLE_JOB_ATTRS = $(IMMUTABLE_JOB_ATTRS) AcctGroup AcctGroupUser AccountingGroup
# a requested group must be one the map allows (unless the second argument is false)
if $(2:True)
SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) CheckRequestedGroup
SUBMIT_REQUIREMENT_CheckRequestedGroup = RequestedAcctGroup is undefined || RequestedAcctGroup == AcctGroup
SUBMIT_REQUIREMENT_CheckRequestedGroup_REASON = strcat("Permission denied setting accounting_group to ", RequestedAcctGroup)
endif
# and the owner must map to a group
SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) AssignAccountingGroup
SUBMIT_REQUIREMENT_AssignAccountingGroup = AcctGroup isnt undefined && AccountingGroup isnt undefined
SUBMIT_REQUIREMENT_AssignAccountingGroup_REASON = strcat("Submit requirement AssignAccountingGroup not met - Could not map '", Owner, "' to an accounting group ", RequestedAcctGroup))TPL"},

    {"FEATURE", "AssignProjectName",
     R"TPL(if ! $(1?)
error : use FEATURE : AssignProjectName requires a map_name argument
endif
use FEATURE : SetJobAttrFromUsermap(ProjectName, Owner, $(1+)))TPL"},

    {"FEATURE", "SetJobAttrFromUsermap",
     R"TPL(if ! $(3?)
error : use FEATURE : SetJobAttrFromUsermap requires at least 3 arguments: dest_attr, src_attr, map_name [,map_file]
endif
if $(4?)
use FEATURE : ScheddUsermapFile($(3), $(4))
endif
JOB_TRANSFORM_NAMES += Set$(1)
JOB_TRANSFORM_Set$(1) = EVALSET $(1) usermap("$(3)",$(2),$(1))
SUBMIT_REQUIREMENT_NAMES += Require$(1)
SUBMIT_REQUIREMENT_Require$(1) = $(1) isnt undefined
SUBMIT_REQUIREMENT_Require$(1)_REASON = strcat("Submit requirement Require$(1) not met - Could not map '", $(2)?:"undefined", "' to a $(1)"))TPL"},

    {"FEATURE", "DefaultCheckpointDestination",
     R"TPL(if ! defined DEFAULT_CHECKPOINT_DESTINATION
if defined DEFAULT_CHECKPOINT_DESTINATION_PREFIX
DEFAULT_CHECKPOINT_DESTINATION = "$(DEFAULT_CHECKPOINT_DESTINATION_PREFIX)/$(MY.Owner)"
else
warning: You must set DEFAULT_CHECKPOINT_DESTINATION_PREFIX or DEFAULT_CHECKPOINT_DESTINATION to use feature:DefaultCheckpointDestination.
endif
endif
if defined DEFAULT_CHECKPOINT_DESTINATION
EXTENDED_SUBMIT_COMMANDS @=end
  checkpoint_storage = "'default' or 'spool' or a checkpoint_destination"
  $(EXTENDED_SUBMIT_COMMANDS)
@end
# jobs that checkpoint and name no destination get the default one; checkpoint_storage
# picks "spool", "default" or a destination of its own
JOB_TRANSFORM_CheckpointStorage @=end
  REQUIREMENTS (MY.CheckpointDestination =?= undefined) && (MY.SuccessCheckpointExitCode =!= undefined)
  ShouldSetCheckpointDestination = TRUE
  SetCheckpointDestination = $(DEFAULT_CHECKPOINT_DESTINATION)
  if defined MY.checkpoint_storage
    EVALMACRO IsSpool (checkpoint_storage == "spool")
    EVALMACRO IsDefault (checkpoint_storage == "default")
    if $(IsSpool)
      ShouldSetCheckpointDestination = FALSE
    elif ! $(IsDefault)
      SetCheckpointDestination = checkpoint_storage
    endif
  endif
  if $(ShouldSetCheckpointDestination)
    EVALSET CheckpointDestination $(SetCheckpointDestination)
  endif
@end
# before the validity check of other transforms
JOB_TRANSFORM_NAMES = CheckpointStorage $(JOB_TRANSFORM_NAMES)
endif)TPL"},

    {"FEATURE", "HPC_ANNEX",
     R"TPL(HPC_ANNEX_ENABLED = true
# a personal pool's collector (either spelling) is not reachable by annex EPs
ispersonal = "127.0.0.1:0"=="$(COLLECTOR_HOST)"
if $INT(ispersonal)
COLLECTOR_HOST = $(FULL_HOSTNAME):$(COLLECTOR_PORT)
endif
ispersonal = "$(FULL_HOSTNAME):0"=="$(COLLECTOR_HOST)"
if $INT(ispersonal)
COLLECTOR_HOST = $(FULL_HOSTNAME):$(COLLECTOR_PORT)
endif
# the AP collector the annex EPs report to, on a fixed shared-port id
AP_COLLECTOR = $(COLLECTOR)
AP_COLLECTOR.COLLECTOR_LOG = $(LOG)/AP_Collector.log
AP_COLLECTOR.CCB_RECONNECT_FILE = $(SPOOL)/AP_Collector.ccb_reconnect
DAEMON_LIST = $(DAEMON_LIST) AP_COLLECTOR
AP_COLLECTOR_ARGS = -f -local-name AP_COLLECTOR -sock ap_collector
ANNEX_COLLECTOR = $(TCP_FORWARDING_HOST:$(FULL_HOSTNAME)):$(SHARED_PORT_PORT)?sock=ap_collector
AP_COLLECTOR.ALLOW_ADVERTISE_STARTD = $(ALLOW_ADVERTISE_STARTD) $(ALLOW_WRITE)
AP_COLLECTOR.ALLOW_ADVERTISE_MASTER = $(ALLOW_ADVERTISE_MASTER) $(ALLOW_WRITE)
if defined COLLECTOR_HOST
SCHEDD.COLLECTOR_HOST = $(COLLECTOR_HOST) $(ANNEX_COLLECTOR)
else
SCHEDD.COLLECTOR_HOST = $(ANNEX_COLLECTOR)
endif
ANNEX_TOKEN_KEY_NAME = $(SEC_TOKEN_AP_SIGNING_KEY_NAME)
ANNEX_TOKEN_DOMAIN = $(UID_DOMAIN)
# jobs that name an annex run only there, as their owner
JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) AssignAnnex
JOB_TRANSFORM_AssignAnnex @=end
  REQUIREMENTS TargetAnnexName =!= undefined
  my_identity = "$(MY.Owner)@$(ANNEX_TOKEN_DOMAIN)"
  addl_reqs = ifThenElse(TARGET.AuthenticatedIdentity is undefined, true, $(my_identity) == TARGET.AuthenticatedIdentity) && (MY.TargetAnnexName == TARGET.AnnexName)
  if defined MY.JobMachineAttrs
    SET JobMachineAttrs "$(MY.JobMachineAttrs),AnnexName"
  else
    SET JobMachineAttrs "AnnexName"
  endif
  if defined MY.Requirements
    SET Requirements $(addl_reqs) && ($(MY.Requirements))
  else
    SET Requirements $(addl_reqs)
  endif
@end
# optionally, jobs that name no annex stay off annex EPs
if $(ANNEX_JOBS_EXCLUSIVELY:FALSE)
JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) AnnexJobsExclusively
JOB_TRANSFORM_AnnexJobsExclusively @=end
  REQUIREMENTS TargetAnnexName =?= undefined
  addl_reqs = ifThenElse(TARGET.AuthenticatedIdentity is undefined, true, regexp("^condor(_pool)?@.*$", TARGET.AuthenticatedIdentity))
  if defined MY.Requirements
    SET Requirements $(addl_reqs) && ($(MY.Requirements))
  else
    SET Requirements $(addl_reqs)
  endif
@end
endif)TPL"},
};

}  // namespace

TemplateTable feature_templates() {
  return {kTemplates, sizeof kTemplates / sizeof kTemplates[0]};
}

}  // namespace kite::config::internal
