// condor_defrag's decisions, pure: from the collector's Machine ads, the clock and what earlier
// polls left (the rate's credit, peaks, drain counts), which machines to drain now, and the
// Defrag ad (AvgDrainingBadput, AvgDrainingUnclaimed, WholeMachines, MachinesDraining, ...).
// HTCONDOR: central-manager "Defragmenting Dynamic Slots"; condor_defrag's DEFRAG_* macros.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/expr.h"
#include "policy/config/config.h"

namespace kite::defrag {

/// How a chosen machine is drained (condor_drain -graceful / -quick / -fast).
enum class Schedule { kGraceful, kQuick, kFast };
const char* schedule_name(Schedule s);

// Defaults as HTCondor's manual documents them (docs/admin-manual/configuration/defrag.rst,
// "Defrag Daemon Configuration Options"): DEFRAG_INTERVAL 600, DEFRAG_UPDATE_INTERVAL 300,
// DEFRAG_DRAINING_MACHINES_PER_HOUR 0, DEFRAG_MAX_WHOLE_MACHINES and
// DEFRAG_MAX_CONCURRENT_DRAINING -1, DEFRAG_REQUIREMENTS "all machines that are drainable" with
// `PartitionableSlot && Offline =!= true && Draining =!= true` always added,
// DEFRAG_WHOLE_MACHINE_EXPR `Cpus == TotalSlotCpus` (on partitionable slots),
// DEFRAG_CANCEL_REQUIREMENTS $(DEFRAG_WHOLE_MACHINE_EXPR), DEFRAG_RANK
// `-ExpectedMachineGracefulDrainingBadput`, DEFRAG_SCHEDULE graceful.
struct DefragConfig {
  int64_t interval = 600;                   // DEFRAG_INTERVAL, seconds between polls
  int64_t update_interval = 300;            // DEFRAG_UPDATE_INTERVAL: the Defrag ad's updates
  double per_hour = 0;                      // DEFRAG_DRAINING_MACHINES_PER_HOUR (0: never drain)
  int64_t max_concurrent = -1;              // DEFRAG_MAX_CONCURRENT_DRAINING (-1: no limit)
  int64_t max_whole = -1;                   // DEFRAG_MAX_WHOLE_MACHINES (-1: no limit)
  classad::ExprPtr requirements;            // DEFRAG_REQUIREMENTS (null: every drainable one)
  classad::ExprPtr whole_machine;           // DEFRAG_WHOLE_MACHINE_EXPR
  classad::ExprPtr cancel;                  // DEFRAG_CANCEL_REQUIREMENTS
  classad::ExprPtr rank;                    // DEFRAG_RANK (higher drains first)
  Schedule schedule = Schedule::kGraceful;  // DEFRAG_SCHEDULE
  std::string draining_start;               // DEFRAG_DRAINING_START_EXPR (graceful only; "" none)
  std::string name = "defrag";              // DEFRAG_NAME: the Defrag ad's Name
};

/// True when the configuration asks for the defrag (DEFRAG_INTERVAL set, or DEFRAG in
/// DAEMON_LIST).
bool wanted(const config::Config& cfg);
/// Reads the DEFRAG_* settings with their defaults; false with a message naming the setting.
bool read_config(const config::Config& cfg, DefragConfig* out, std::string* err);

/// What the daemon carries from one poll to the next.
struct DefragState {
  int64_t last_poll = 0;      // 0: none yet
  double credit = 0;          // drains the rate has allowed and that were not started yet
  int64_t drains = 0;         // DrainedMachines: drains started
  int64_t successes = 0;      // DrainSuccesses: drains the node accepted
  int64_t failures = 0;       // DrainFailures: drains refused or not delivered
  int64_t whole_peak = 0;     // WholeMachinesPeak
  int64_t draining_peak = 0;  // MachinesDrainingPeak
};

/// One poll's outcome.
struct Poll {
  std::vector<std::string> drain;   // machines to drain now, in order (best rank first)
  std::vector<std::string> cancel;  // draining machines whose drain is canceled now
  int64_t machines = 0;             // machines seen (by Machine)
  int64_t whole = 0;                // whole machines (DEFRAG_WHOLE_MACHINE_EXPR)
  int64_t draining = 0;             // machines with a slot that is Draining
  int64_t candidates = 0;    // machines DEFRAG_REQUIREMENTS allows, neither whole nor draining
  double avg_badput = 0;     // AvgDrainingBadput
  double avg_unclaimed = 0;  // AvgDrainingUnclaimed
  std::string why_none;      // when `drain` is empty: the reason, for the log
};

/// The poll at `now` over `slots` (every Machine ad the collector holds, offline ones too; the
/// expressions decide about those). Rules:
/// - A machine is every ad with its Machine. It is draining when one of its ads says
///   Draining (and is not Offline); whole when one of its partitionable slots meets
///   DEFRAG_WHOLE_MACHINE_EXPR and it is not draining, or its drain is the defrag's (DrainReason
///   "Defrag" or the DEFRAG_NAME); a candidate when one of its partitionable slots meets
///   `PartitionableSlot && Offline =!= true && Draining =!= true` and DEFRAG_REQUIREMENTS and it
///   is neither whole nor draining.
/// - A draining machine whose drain has no DrainReason, or is the defrag's, and one of whose
///   partitionable slots meets DEFRAG_CANCEL_REQUIREMENTS, has its drain canceled.
/// - The rate: DEFRAG_DRAINING_MACHINES_PER_HOUR rounded to whole machines a day ("A fractional
///   number of machines ... is rounded to the nearest whole number of machines on a per day
///   basis"; at least one a day when it is not 0). Each poll adds that rate x (seconds since the
///   last poll, or DEFRAG_INTERVAL at the first) / 3600 to the credit, which is capped at
///   max(1, one interval's worth) so time with nothing to drain does not pile up a burst;
///   whole drains are taken from it.
/// - Nothing is drained while whole machines >= DEFRAG_MAX_WHOLE_MACHINES or draining
///   machines >= DEFRAG_MAX_CONCURRENT_DRAINING (each when not -1), and a poll drains at most
///   as many as keep draining <= MAX_CONCURRENT and whole + draining <= MAX_WHOLE.
/// - Candidates are taken by DEFRAG_RANK (evaluated in the ad that met the requirements; the
///   best of the machine's), highest first; a rank that is not a number counts as lowest;
///   ties by Machine name.
/// - AvgDrainingBadput / AvgDrainingUnclaimed: the machines' TotalMachineDrainingBadput /
///   TotalMachineDrainingUnclaimedTime summed, over the CPU time their daemons have been up
///   (TotalCpus x (now - DaemonStartTime)), one ad per machine.
/// Updates `state` (last_poll, credit, drains, peaks).
Poll poll(const DefragConfig& cfg, const std::vector<classad::AdPtr>& slots, int64_t now,
          DefragState* state);

/// The Defrag ad after `p`: MyType "Defrag", Name, the counts and averages.
classad::AdPtr defrag_ad(const DefragConfig& cfg, const DefragState& state, const Poll& p,
                         int64_t now, int64_t daemon_start);

}  // namespace kite::defrag
