// The negotiation cycle's decisions, pure: which idle job goes to which slot, in the order and
// with the rules of HTCondor's negotiator. `kite cm` runs it on the collector's slot ads and the
// queue's idle jobs; the pool simulator runs the same code on a virtual clock.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/config/config.h"
#include "policy/fairshare/concurrency_limits.h"
#include "policy/fairshare/group_quotas.h"

namespace kite::negotiator {

struct CycleSettings;  // cycle_settings.h
class MatchCache;      // match_cache.h

struct IdleJob {
  int32_t cluster = 0;
  int32_t proc = 0;
  classad::AdPtr ad;  // the full job ad: Requirements, Rank, Request*, JobPrio, QDate, ...
};

struct Submitter {
  std::string name;           // the accounting principal, "user@domain"
  double priority = 0.5;      // effective user priority (smaller is better)
  double usage = 0;           // slot weight it has in use now (SubmitterUserResourcesInUse)
  std::vector<IdleJob> jobs;  // its idle jobs in any order: the cycle sorts them
  double floor = 0;           // slot weight guaranteed (0 = none)
  double ceiling = -1;        // slot weight it may hold at most (< 0 = none)
  bool nice = false;          // nice-user: only what nobody else wants
  std::string group;          // its configured group; "" = from its name and GROUP_NAMES
};

/// A user's priority known to the accountant, for the ephemeral Remote* attributes of slots
/// claimed by users that have no idle jobs this cycle (submitters are looked up first).
struct UserPriority {
  std::string name;       // "user@domain", as the slot's RemoteUser names it
  double priority = 0.5;  // effective user priority
  double usage = 0;       // slot weight in use (RemoteUserResourcesInUse)
};

struct CycleInput {
  std::vector<Submitter> submitters;
  std::vector<UserPriority> other_users;  // optional: priorities of users with no idle jobs
  std::vector<classad::AdPtr> slots;      // Machine ads: static, partitionable and dynamic slots
  const config::Config* cfg =
      nullptr;  // NEGOTIATOR_*, PREEMPTION_*, GROUP_*, *_LIMIT; null = defaults
  std::vector<fairshare::LimitUse> limits_in_use;  // concurrency-limit units running jobs hold
  // The pie's slot weight when `slots` holds only the slots that may take a job (those that
  // cannot, e.g. claimed ones when nothing can preempt, still count); 0 = from `slots`.
  double pool_weight = 0;
  int64_t now = 0;
  // The settings read from `cfg` by read_cycle_settings(), for many cycles on one
  // configuration; null: each cycle reads them.
  std::shared_ptr<const CycleSettings> settings;
  // Match answers kept from earlier cycles for the unchanged idle slots (match_cache.h); null:
  // every pair is evaluated. Owned by the caller, for one pool.
  MatchCache* match_cache = nullptr;
};

struct Match {
  int32_t cluster = 0;
  int32_t proc = 0;
  std::string submitter;
  std::string slot;            // Name of the matched slot ad (a partitionable slot's own Name)
  std::string machine;         // its Machine
  bool partitionable = false;  // the agent carves a dynamic slot from `slot` for this job
  bool preempting = false;     // the slot's current claim is preempted for this job
  std::string preempted_user;  // RemoteUser of that claim
  // ALLOW_PSLOT_PREEMPTION: the dynamic slots of `slot` preempted so the job fits (Names).
  std::vector<std::string> preempted_slots;
  std::string reason;  // why this slot: "idle", "rank" or "priority" (for the log)
};

struct SubmitterOutcome {
  std::string name;
  int64_t matched = 0;
  int64_t rejected = 0;  // jobs (autoclusters) that found no slot this cycle
};

struct CycleResult {
  std::vector<Match> matches;
  std::vector<SubmitterOutcome> submitters;   // in the order they negotiated
  int64_t autoclusters = 0;                   // distinct job groups considered
  std::vector<fairshare::GroupQuota> quotas;  // this cycle's group quotas (<none> first)
  // Settings that did not read (an expression that does not parse counts as unset), each naming
  // the macro: "NEGOTIATOR_PRE_JOB_RANK: line 1, column 4: ...".
  std::vector<std::string> warnings;
};

/// Reads what a cycle needs of `cfg` (null: HTCondor 25's defaults) once, for CycleInput::settings.
std::shared_ptr<const CycleSettings> read_cycle_settings(const config::Config* cfg);

/// One cycle's matchmaking. Deterministic for the same input.
CycleResult negotiate(const CycleInput& in);

}  // namespace kite::negotiator
