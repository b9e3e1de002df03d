// The startd state machine as data: states, activities, the triggers that move a slot, and the
// one table of numbered transitions (1..37) of the reference, which step() walks in order.
// HTCONDOR: ep-policy "Machine States" .. "State/Activity Transition Expression Summary".
#pragma once

#include <cstdint>

namespace kite::startd {

#define KITE_STARTD_STATES(X) \
  X(Owner)                    \
  X(Unclaimed)                \
  X(Matched)                  \
  X(Claimed)                  \
  X(Preempting)               \
  X(Backfill)                 \
  X(Drained)

#define KITE_STARTD_ACTIVITIES(X) \
  X(Idle)                         \
  X(Benchmarking)                 \
  X(Busy)                         \
  X(Suspended)                    \
  X(Retiring)                     \
  X(Vacating)                     \
  X(Killing)                      \
  X(Cleaning)

enum class State : uint8_t {
#define X(n) k##n,
  KITE_STARTD_STATES(X)
#undef X
};

enum class Activity : uint8_t {
#define X(n) k##n,
  KITE_STARTD_ACTIVITIES(X)
#undef X
};

const char* state_name(State s);
const char* activity_name(Activity a);
bool state_parse(const char* s, int len, State* out);
bool activity_parse(const char* s, int len, Activity* out);

/// Why a slot may move. The engine answers "does this hold now?" for each; the table says where
/// the slot goes when it does. Conditions on policy expressions are evaluated lazily.
#define KITE_STARTD_TRIGGERS(X)                                  \
  X(IsOwnerFalse, "IS_OWNER is false")                           \
  X(IsOwnerTrue, "IS_OWNER is true")                             \
  X(DrainRequested, "draining")                                  \
  X(Shutdown, "shutdown")                                        \
  X(RunBenchmarks, "RunBenchmarks is true")                      \
  X(BenchmarkDone, "benchmarks completed")                       \
  X(ClaimAccepted, "claimed by schedd")                          \
  X(MatchAccepted, "matched by negotiator")                      \
  X(StartBackfill, "START_BACKFILL is true")                     \
  X(MatchEnds, "match ended")                                    \
  X(ClaimEnds, "claim ended")                                    \
  X(Activated, "claim activated")                                \
  X(StarterExited, "starter exited")                             \
  X(JobExited, "job exited, starter cleaning up")                \
  X(CleanedEvict, "starter cleaned up, claim being evicted")     \
  X(Cleaned, "starter cleaned up")                               \
  X(Suspend, "SUSPEND is true")                                  \
  X(FastEviction, "fast eviction")                               \
  X(Retire, "retiring")                                          \
  X(Continue, "CONTINUE is true")                                \
  X(ContinueRetiring, "CONTINUE is true, claim preempted")       \
  X(PreemptSuspended, "PREEMPT is true")                         \
  X(RetirementOver, "retirement over")                           \
  X(Unretire, "preempting claim withdrawn")                      \
  X(KillNow, "KILL is true or vacate time over")                 \
  X(GoneToOwner, "starter gone, claim broken")                   \
  X(GoneToNewClaim, "starter gone, preempting claim takes over") \
  X(BackfillSpawned, "backfill client running")                  \
  X(BackfillEvict, "backfill evicted")                           \
  X(BackfillExited, "backfill client exited")                    \
  X(BackfillToOwner, "backfill gone")                            \
  X(BackfillToClaimed, "backfill gone, claim waiting")           \
  X(BackfillToMatched, "backfill gone, match waiting")           \
  X(AllDrained, "all slots drained")                             \
  X(DrainCanceled, "draining canceled")                          \
  X(ClaimInOwner, "claim accepted in Owner state (START true for the job)")

enum class Trigger : uint8_t {
#define X(n, d) k##n,
  KITE_STARTD_TRIGGERS(X)
#undef X
};
const char* trigger_text(Trigger t);

/// The work a move does as the slot enters its new pair, beyond the move itself; the engine
/// carries out each one (transitions.cc, a switch with no default).
#define KITE_STARTD_ENTRY_WORK(X)                                 \
  X(None, "nothing")                                              \
  X(RunBenchmarks, "start the benchmarks")                        \
  X(TakeClaim, "the pending claim becomes the slot's claim")      \
  X(AwaitClaim, "wait up to MATCH_TIMEOUT for the claim")         \
  X(StartJob, "spawn the starter for the activated job")          \
  X(EndJob, "account the job that finished")                      \
  X(SuspendJob, "suspend the job")                                \
  X(Unretire, "the retirement is over: the job runs on")          \
  X(KillJob, "hard-kill the job")                                 \
  X(SwitchClaim, "the preempting claim replaces the evicted one") \
  X(EndClaim, "the evicted claim is broken")                      \
  X(StopBackfill, "stop (or let go of) the backfill client")      \
  X(ForgetBackfill, "the backfill eviction is over")

enum class EntryWork : uint8_t {
#define X(n, d) k##n,
  KITE_STARTD_ENTRY_WORK(X)
#undef X
};
const char* entry_work_text(EntryWork w);

/// One row: from (state, activity), when `trigger` holds, go to (state, activity) and do
/// `work`. `number` is the reference's transition number; 0 marks a move the reference
/// describes without a number. A `to_activity` of Vacating out of Claimed means "Vacating or
/// Killing as WANT_VACATE says". `revisits`: a chain of moves in one evaluation may come back
/// to a pair it has left through this row (a policy flipping back and forth may not).
struct TransitionRow {
  int number;
  State from_state;
  Activity from_activity;
  Trigger trigger;
  State to_state;
  Activity to_activity;
  EntryWork work;
  bool revisits;
};

/// The whole table, in priority order per source pair.
const TransitionRow* transition_table(int* count);

/// The pure step: the first row out of (s, a) whose trigger `holds` says is true, or null.
using TriggerFn = bool (*)(Trigger t, void* ctx);
const TransitionRow* transition_step(State s, Activity a, TriggerFn holds, void* ctx);

}  // namespace kite::startd
