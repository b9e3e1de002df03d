// The POLICY templates (and the FEATURE fragments they build on) Kite ships: each sets the same
// macros to the same raw values, on the same body line (the "+N" of condor_config_val -verbose),
// as HTCondor 25 does (tests/data/config/templates.tsv, templates-all.tsv).
// Bodies take arguments: $(0) all, $(0#) count, $(N), $(N?) non-empty, $(N+) from N on, $(N:def).
#include "policy/config/internal.h"

namespace kite::config::internal {
namespace {

// Line numbers matter: comments and blank lines count, so keep the layout when editing.
const Template kTemplates[] = {
    {"FEATURE", "POLICY_EXPR_FRAGMENTS",
     R"TPL(PolicyExprFragments=1
KeyboardBusy=(KeyboardIdle < $(MINUTE))
ConsoleBusy=(ConsoleIdle  < $(MINUTE))
KeyboardNotBusy=($(KeyboardBusy) == False)
JustCPU=($(CPUBusy) && ($(KeyboardBusy) == False))
MachineBusy=($(CPUBusy) || $(KeyboardBusy))
NonCondorLoadAvg=(LoadAvg - CondorLoadAvg)
CpuIdle=($(NonCondorLoadAvg) <= $(BackgroundLoad))
CpuBusy=($(NonCondorLoadAvg) >= $(HighLoad))
ActivationTimer=ifThenElse(JobStart =!= UNDEFINED, (time() - JobStart), 0)
LastCkpt=(time() - LastPeriodicCheckpoint))TPL"},

    {"POLICY", "DESKTOP",
     R"TPL(if ! defined PolicyExprFragments
use FEATURE : POLICY_EXPR_FRAGMENTS
endif
STARTD_LATCH_EXPRS = $(STARTD_LATCH_EXPRS) CpuBusy
CpuBusyTimer=IfThenElse(CpuBusyValue is 1, time() - CpuBusyTime, 0)
WANT_SUSPEND=($(SmallJob) || $(KeyboardNotBusy) || $(IsVanilla) ) && ( $(SUSPEND))
WANT_VACATE=$(ActivationTimer) > 600 || $(IsVanilla)
SUSPEND=($(KeyboardBusy) || ( ($(CpuBusyTimer) > 120) && $(ActivationTimer) > 90))
CONTINUE=($(CPUIdle) && ($(ActivityTimer) > 10) && (KeyboardIdle > $(ContinueIdleTime)))
PREEMPT=(((Activity == "Suspended") && ($(ActivityTimer) > $(MaxSuspendTime))) || (SUSPEND && (WANT_SUSPEND == False)))
START=((KeyboardIdle > $(StartIdleTime)) && ( $(CPUIdle) || (State != "Unclaimed" && State != "Owner")) )
KILL=False
MaxJobRetirementTime=0
CLAIM_WORKLIFE=
SLOTS_CONNECTED_TO_KEYBOARD=1000000
SLOTS_CONNECTED_TO_CONSOLE=1000000
IS_OWNER=(START =?= False))TPL"},

    {"POLICY", "ALWAYS_RUN_JOBS",
     R"TPL(WANT_SUSPEND=False
WANT_VACATE=True
SUSPEND=False
CONTINUE=True
PREEMPT=False
START=True
KILL=False
PREEMPTION_REQUIREMENTS=False
NEGOTIATOR_CONSIDER_PREEMPTION=False
MaxJobRetirementTime=2147483647
CLAIM_WORKLIFE=1200)TPL"},

    {"FEATURE", "TESTINGMODE_POLICY_VALUES",
     R"TPL(TESTINGMODE_WANT_SUSPEND=False
TESTINGMODE_WANT_VACATE=True
TESTINGMODE_START=True
TESTINGMODE_SUSPEND=False
TESTINGMODE_CONTINUE=True
TESTINGMODE_PREEMPT=False
TESTINGMODE_KILL=False
TESTINGMODE_PERIODIC_CHECKPOINT=False
TESTINGMODE_PREEMPTION_REQUIREMENTS=False
TESTINGMODE_PREEMPTION_RANK=0
TESTINGMODE_CLAIM_WORKLIFE=1200)TPL"},

    {"FEATURE", "UWCS_DESKTOP_POLICY_VALUES",
     R"TPL(if ! defined PolicyExprFragments
use FEATURE : POLICY_EXPR_FRAGMENTS
endif
STARTD_LATCH_EXPRS = $(STARTD_LATCH_EXPRS) CpuBusy
CpuBusyTimer=IfThenElse(CpuBusyValue is 1, time() - CpuBusyTime, 0)
UWCS_WANT_SUSPEND=( $(SmallJob) || $(KeyboardNotBusy) || $(IsVanilla) ) && ( $(SUSPEND) )
UWCS_WANT_VACATE=( $(ActivationTimer) > 10 * $(MINUTE) || $(IsVanilla) )
UWCS_START=( (KeyboardIdle > $(StartIdleTime)) && ( $(CPUIdle) || (State != "Unclaimed" && State != "Owner")) )
UWCS_SUSPEND=( $(KeyboardBusy) || ( ($(CpuBusyTimer) > 2 * $(MINUTE)) && $(ActivationTimer) > 90 ) )
UWCS_CONTINUE=( $(CPUIdle) && ($(ActivityTimer) > 10) && (KeyboardIdle > $(ContinueIdleTime)) )
UWCS_PREEMPT=( ((Activity == "Suspended") && ($(ActivityTimer) > $(MaxSuspendTime))) || (SUSPEND && (WANT_SUSPEND == False)) )
UWCS_MaxJobRetirementTime=0
UWCS_KILL=false
UWCS_PERIODIC_CHECKPOINT=$(LastCkpt) > (3 * $(HOUR) + $RANDOM_INTEGER(-30,30,1) * $(MINUTE) )
UWCS_NEGOTIATOR_PRE_JOB_RANK=(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory
UWCS_NEGOTIATOR_POST_JOB_RANK=(RemoteOwner =?= UNDEFINED) * (ifthenElse(isUndefined(KFlops), 1000, Kflops) - SlotID - 1.0e10*(Offline=?=True))
UWCS_PREEMPTION_REQUIREMENTS=((SubmitterGroup =?= RemoteGroup) && ($(StateTimer) > (1 * $(HOUR))) && (RemoteUserPrio > TARGET.SubmitterUserPrio * 1.2)) || (MY.NiceUser == True)
UWCS_PREEMPTION_RANK=(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime))TPL"},

    {"POLICY", "UWCS_DESKTOP",
     R"TPL(use FEATURE : UWCS_DESKTOP_POLICY_VALUES
WANT_SUSPEND=$(UWCS_WANT_SUSPEND)
WANT_VACATE=$(UWCS_WANT_VACATE)
SUSPEND=$(UWCS_SUSPEND)
CONTINUE=$(UWCS_CONTINUE)
PREEMPT=$(UWCS_PREEMPT)
START=$(UWCS_START)
KILL=$(UWCS_KILL)
PERIODIC_CHECKPOINT=$(UWCS_PERIODIC_CHECKPOINT)
PREEMPTION_REQUIREMENTS=$(UWCS_PREEMPTION_REQUIREMENTS)
PREEMPTION_RANK=$(UWCS_PREEMPTION_RANK)
NEGOTIATOR_PRE_JOB_RANK=$(UWCS_NEGOTIATOR_PRE_JOB_RANK)
NEGOTIATOR_POST_JOB_RANK=$(UWCS_NEGOTIATOR_POST_JOB_RANK)
MaxJobRetirementTime=$(UWCS_MaxJobRetirementTime)
CLAIM_WORKLIFE=$(UWCS_CLAIM_WORKLIFE)
SLOTS_CONNECTED_TO_KEYBOARD=1024*1024
IS_OWNER=(START =?= False))TPL"},

    {"POLICY", "LIMIT_JOB_RUNTIMES",
     R"TPL(MAX_JOB_RUNTIME=$(1:24*3600)
MaxJobRetirementTime=$(MAX_JOB_RUNTIME)+120
PREEMPT=(Activity == "Busy") && ((time() - EnteredCurrentActivity) > $(MAX_JOB_RUNTIME)))TPL"},

    {"POLICY", "PREEMPT_IF_RUNTIME_EXCEEDS",
     R"TPL(MAX_JOB_RUNTIME = $(1:24*3600)
PREEMPT_RUNTIME_EXCEEDS = (JobState == "Running") && ((time() - JobCurrentStartDate) > $(MAX_JOB_RUNTIME))
use policy : PREEMPT_IF( PREEMPT_RUNTIME_EXCEEDS ))TPL"},

    {"POLICY", "HOLD_IF_RUNTIME_EXCEEDS",
     R"TPL(MAX_JOB_RUNTIME = $(1:24*3600)
HOLD_REASON_RUNTIME_EXCEEDS = runtime exceeded maximum ($(MAX_JOB_RUNTIME) seconds)
HOLD_RUNTIME_EXCEEDS = (JobState == "Running") && ((time() - JobCurrentStartDate) > $(MAX_JOB_RUNTIME))
use policy : WANT_HOLD_IF( HOLD_RUNTIME_EXCEEDS, $(HOLD_SUBCODE_RUNTIME_EXCEEDS:103), $(HOLD_REASON_RUNTIME_EXCEEDS) ))TPL"},

    {"POLICY", "STARTD_PUBLISH_CpusUsage",
     R"TPL(#
# CpusUsage: how many cores the job keeps busy, averaged over the
# last minute (the startd samples the load every 5 seconds), for
# policies that compare it with the slot's Cpus.
#
#
CpusUsage = ifthenelse(TotalLoadAvg > 0.0 && Activity!="Idle", CondorLoadAvg/TotalLoadAvg*MIN({TotalLoadAvg, $(DETECTED_CORES)}), 0)
STARTD_ATTRS = $(STARTD_ATTRS) CpusUsage)TPL"},

    {"POLICY", "PREEMPT_IF_CPUS_EXCEEDED",
     R"TPL(use POLICY : STARTD_PUBLISH_CpusUsage
#
# A job that keeps more cores busy than the slot has (by more than
# 0.8 on average) is preempted at once, retirement time ignored.
#
#
CPU_EXCEEDED = (CpusUsage > Cpus + 0.8)
use POLICY : PREEMPT_IF(CPU_EXCEEDED))TPL"},

    {"POLICY", "HOLD_IF_CPUS_EXCEEDED",
     R"TPL(use POLICY : STARTD_PUBLISH_CpusUsage
#
# A job that keeps more cores busy than the slot has (by more than
# 0.8 on average) is put on hold at once, retirement time ignored.
#
#
CPU_EXCEEDED = (CpusUsage > Cpus + 0.8)
HOLD_REASON_CPU_EXCEEDED = CPU usage exceeded request_cpus
use POLICY : WANT_HOLD_IF( CPU_EXCEEDED, $(HOLD_SUBCODE_CPU_EXCEEDED:101), $(HOLD_REASON_CPU_EXCEEDED) ))TPL"},

    {"POLICY", "PREEMPT_IF_DISK_EXCEEDED",
     R"TPL(#
# A job whose scratch directory outgrows the slot's Disk is
# preempted at once, retirement time ignored. VM universe jobs
# cannot outgrow their disk, so they are left alone.
#
#
DISK_EXCEEDED = (JobUniverse != 13 && DiskUsage =!= UNDEFINED && DiskUsage > Disk)
use POLICY : PREEMPT_IF(DISK_EXCEEDED))TPL"},

    {"POLICY", "HOLD_IF_DISK_EXCEEDED",
     R"TPL(#
# A job whose scratch directory outgrows the slot's Disk is put
# on hold at once, retirement time ignored. VM universe jobs
# cannot outgrow their disk, so they are left alone.
#
#
DISK_EXCEEDED = (JobUniverse != 13 && DiskUsage =!= UNDEFINED && DiskUsage > Disk)
HOLD_REASON_DISK_EXCEEDED = disk usage exceeded allocated disk
use POLICY : WANT_HOLD_IF( DISK_EXCEEDED, $(HOLD_SUBCODE_DISK_EXCEEDED:104), $(HOLD_REASON_DISK_EXCEEDED) ))TPL"},

    {"POLICY", "PREEMPT_IF_MEMORY_EXCEEDED",
     R"TPL(#
# A job whose memory use grows past the slot's Memory is
# preempted at once, retirement time ignored. VM universe jobs
# cannot outgrow their memory, so they are left alone.
#
#
MEMORY_EXCEEDED = (JobUniverse != 13 && MemoryUsage =!= UNDEFINED && MemoryUsage > Memory)
use POLICY : PREEMPT_IF(MEMORY_EXCEEDED))TPL"},

    {"POLICY", "HOLD_IF_MEMORY_EXCEEDED",
     R"TPL(#
# A job whose memory use grows past the slot's Memory is put on
# hold at once, retirement time ignored. VM universe jobs cannot
# outgrow their memory, so they are left alone.
#
#
MEMORY_EXCEEDED = (JobUniverse != 13 && MemoryUsage =!= UNDEFINED && MemoryUsage > Memory)
HOLD_REASON_MEMORY_EXCEEDED = memory usage exceeded request_memory
use POLICY : WANT_HOLD_IF( MEMORY_EXCEEDED, $(HOLD_SUBCODE_MEMORY_EXCEEDED:102), $(HOLD_REASON_MEMORY_EXCEEDED) ))TPL"},

    {"POLICY", "PREEMPT_IF",
     R"TPL(if ! $(1?)
error : use POLICY : PREEMPT_IF needs one argument: the name of a macro holding the trigger expression
endif
if defined PREEMPT
PREEMPT = $($(1)) || $(PREEMPT)
else
PREEMPT = $($(1))
endif
MAXJOBRETIREMENTTIME = ifthenelse($($(1)),-1,$(MAXJOBRETIREMENTTIME:0))
if defined WANT_SUSPEND
WANT_SUSPEND = $($(1)) =!= true && $(WANT_SUSPEND)
else
WANT_SUSPEND = $($(1)) =!= true
endif)TPL"},

    {"POLICY", "WANT_HOLD_IF",
     R"TPL(use POLICY : PREEMPT_IF($(1))
if ! $(3?)
error : use POLICY : WANT_HOLD_IF needs 3 arguments: policy_variable, subcode, reason_text
endif
if defined WANT_HOLD
WANT_HOLD = (JobUniverse != 1 && $($(1))) || $(WANT_HOLD)
else
WANT_HOLD = (JobUniverse != 1 && $($(1)))
endif
WANT_HOLD_SUBCODE = ifThenElse($($(1)), $(2) , $(WANT_HOLD_SUBCODE:UNDEFINED))
WANT_HOLD_REASON = ifThenElse($($(1)), "$(3+)", $(WANT_HOLD_REASON:UNDEFINED)))TPL"},

    // Kite's own layout below (their line offsets are not observed): the same assignments.
    {"FEATURE", "POLICY_HOURS_TO_START",
     R"TPL(# Work hours in 24-hour time (fractions allowed): no new jobs from half an hour
# before the day begins, jobs leave ten minutes before it begins.
WorkdayBeginHour=$(1:8)
WorkdayEndHour=$(2:12+5)
WorkdayBeginMinuteStartJobs=($(WorkdayBeginHour))*60 - 29.5
WorkdayBeginMinuteStopJobs=($(WorkdayBeginHour))*60 - 9.5
WorkdayEndMinute=($(WorkdayEndHour))*60 + 0.5
RunJobsHours=ClockMin < $INT(WorkdayBeginMinuteStartJobs) || ClockMin > $INT(WorkdayEndMinute)
NoJobsHours=ClockMin > $INT(WorkdayBeginMinuteStopJobs) && ClockMin < $INT(WorkdayEndMinute)
# days of the work week, 0 = Sunday (only when given)
if $(3?)
WorkweekFirstDay=$(3:1)
WorkweekLastDay=$(4:5)
IsWeekend=ClockDay < $INT(WorkweekFirstDay) || ClockDay > $INT(WorkWeekLastDay)
IsWorkday=ClockDay >= $INT(WorkweekFirstDay) && ClockDay <= $INT(WorkWeekLastDay)
RunJobsHours=$(IsWeekend) || $(RunJobsHours)
NoJobsHours=$(IsWorkday) && $(NoJobsHours)
endif
RunJobsHours=($(RunJobsHours))
NoJobsHours=($(NoJobsHours)))TPL"},

    {"POLICY", "DESKTOP_IDLE",
     R"TPL(if $(1?)
use FEATURE : POLICY_HOURS_TO_START($(1+))
endif
NonCondorLoadAvg=(LoadAvg - CondorLoadAvg)
CpuBusy=($(NonCondorLoadAvg) >= $(HighLoad))
CpuIdle=($(NonCondorLoadAvg) <= $(BackgroundLoad))
STARTD_LATCH_EXPRS = $(STARTD_LATCH_EXPRS) CpuBusy
# CpuBusyValue (0 or 1) and CpuBusyTime (when it changed) come from the latch
CpuBusyTimer=(CpuBusyValue * (time() - CpuBusyTime))
# jobs leave on keyboard use or a busy CPU (and, with hours given, at work time)
PreemptKeyboardIdleTime=60
PreemptCpuBusyTime=120
PREEMPT=(KeyboardIdle < $(PreemptKeyboardIdleTime)) || ($(CpuBusyTimer) > $(PreemptCpuBusyTime))
if defined NoJobsHours
PREEMPT = ($(PREEMPT)) && ($(NoJobsHours))
endif
# jobs start on an idle keyboard and CPU (and, with hours given, out of work time)
START=(KeyboardIdle > $(StartIdleTime)) && $(CPUIdle)
if defined RunJobsHours
START = ($(START)) || ($(RunJobsHours))
endif
# vacate, never suspend
WANT_SUSPEND=False
WANT_VACATE=True
SUSPEND=False
CONTINUE=True
KILL=False
MaxJobRetirementTime=0
CLAIM_WORKLIFE=
SLOTS_CONNECTED_TO_KEYBOARD=1000000
SLOTS_CONNECTED_TO_CONSOLE=1000000
IS_OWNER=(START =?= False))TPL"},

    {"POLICY", "DESKTOP_HOURS",
     R"TPL(use FEATURE : POLICY_HOURS_TO_START($(1+))
# the CpuBusy latch and NonCondorLoadAvg, for policies that want them
NonCondorLoadAvg=(LoadAvg - CondorLoadAvg)
CpuBusy=($(NonCondorLoadAvg) >= $(HighLoad))
STARTD_LATCH_EXPRS = $(STARTD_LATCH_EXPRS) CpuBusy
CpuBusyTimer=(CpuBusyValue * (time() - CpuBusyTime))
PREEMPT = $(NoJobsHours)
START = $(RunJobsHours)
# vacate, never suspend
WANT_SUSPEND=False
WANT_VACATE=True
SUSPEND=False
CONTINUE=True
KILL=False
MaxJobRetirementTime=0
CLAIM_WORKLIFE=
SLOTS_CONNECTED_TO_KEYBOARD=1000000
SLOTS_CONNECTED_TO_CONSOLE=1000000
IS_OWNER=(START =?= False))TPL"},

    {"POLICY", "OnlyRegisteredCheckpointDestinations",
     R"TPL(TOOL_CLASSAD_USER_MAP_NAMES = $(TOOL_CLASSAD_USER_MAP_NAMES) checkpoint_destination_map
SCHEDD_CLASSAD_USER_MAP_NAMES = $(SCHEDD_CLASSAD_USER_MAP_NAMES) checkpoint_destination_map
CLASSAD_USER_MAPFILE_checkpoint_destination_map = $(CHECKPOINT_DESTINATION_MAPFILE)
CLASSAD_USER_MAP_PREFIX_checkpoint_destination_map = TRUE
# a job's checkpoint destination is valid when the map knows it
JOB_TRANSFORM_NAMES = $(JOB_TRANSFORM_NAMES) ValidateCheckpointDestination
JOB_TRANSFORM_ValidateCheckpointDestination @=end
  EVALSET CheckpointDestinationValid = ifthenelse(undefined =?= userMap("checkpoint_destination_map", CheckpointDestination), undefined, True)
@end
IMMUTABLE_JOB_ATTRS = $(IMMUTABLE_JOB_ATTRS) CheckpointDestinationValid
# and a job with an invalid one is refused at submit
SUBMIT_REQUIREMENT_NAMES = $(SUBMIT_REQUIREMENT_NAMES) RejectInvalidCheckpointDestination
SUBMIT_REQUIREMENT_RejectInvalidCheckpointDestination = CheckpointDestination =?= undefined || CheckpointDestinationValid =?= True
SUBMIT_REQUIREMENT_RejectInvalidCheckpointDestination_REASON = "You specified a checkpoint_destination this AP does not know how to clean up.  You may need to add a trailing / to the URL.")TPL"},
};

}  // namespace

TemplateTable policy_templates() {
  return {kTemplates, sizeof kTemplates / sizeof kTemplates[0]};
}

}  // namespace kite::config::internal
