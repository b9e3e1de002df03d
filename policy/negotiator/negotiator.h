// The negotiation cycle's decisions, pure: which idle job goes to which slot, in the order and
// with the rules of HTCondor's negotiator. `kite cm` runs it on the collector's slot ads and the
// queue's idle jobs; the pool simulator runs the same code on a virtual clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/config/config.h"

namespace kite::negotiator {

struct IdleJob {
  int32_t cluster = 0;
  int32_t proc = 0;
  classad::AdPtr ad;  // the full job ad: Requirements, Rank, Request*, JobPrio, QDate, ...
};

struct Submitter {
  std::string name;        // the accounting principal, "user@domain"
  double priority = 0.5;   // effective user priority (smaller is better)
  double usage = 0;        // slot weight it has in use now (SubmitterUserResourcesInUse)
  std::vector<IdleJob> jobs;  // its idle jobs in any order: the cycle sorts them
};

struct CycleInput {
  std::vector<Submitter> submitters;
  std::vector<classad::AdPtr> slots;    // Machine ads: static, partitionable and dynamic slots
  const config::Config* cfg = nullptr;  // NEGOTIATOR_* and PREEMPTION_* settings; null = defaults
  int64_t now = 0;
};

struct Match {
  int32_t cluster = 0;
  int32_t proc = 0;
  std::string submitter;
  std::string slot;             // Name of the matched slot ad (a partitionable slot's own Name)
  std::string machine;          // its Machine
  bool partitionable = false;   // the agent carves a dynamic slot from `slot` for this job
  bool preempting = false;      // the slot's current claim is preempted for this job
  std::string preempted_user;   // RemoteUser of that claim
  std::string reason;           // why this slot: "idle", "rank" or "priority" (for the log)
};

struct SubmitterOutcome {
  std::string name;
  int64_t matched = 0;
  int64_t rejected = 0;  // jobs (autoclusters) that found no slot this cycle
};

struct CycleResult {
  std::vector<Match> matches;
  std::vector<SubmitterOutcome> submitters;  // in the order they negotiated
  int64_t autoclusters = 0;                  // distinct job groups considered
};

/// One cycle's matchmaking. Deterministic for the same input.
CycleResult negotiate(const CycleInput& in);

}  // namespace kite::negotiator
