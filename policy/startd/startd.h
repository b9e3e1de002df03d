// The startd core: slots and their machine ads, the policy expressions, claims, jobs, draining
// and shutdown, driven by events and a Clock and answering with actions. Pure: no sockets, no
// processes, no real time; the agent (and `kite policy simulate`) executes the actions.
// HTCONDOR: ep-policy "condor_startd Policy Configuration" through the multi-core sections.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/eval_env.h"
#include "policy/config/config.h"
#include "policy/startd/clock.h"
#include "policy/startd/machine.h"
#include "policy/startd/slot_layout.h"
#include "policy/startd/state_table.h"

namespace kite::startd {

#define KITE_STARTD_ACTIONS(X)                                                       \
  X(SpawnStarter, "spawn-starter")     /* start a starter for the activated job */   \
  X(Suspend, "suspend")                /* freeze the job */                          \
  X(Continue, "continue")              /* thaw the job */                            \
  X(SoftKill, "soft-kill")             /* job's KillSig (detail) */                  \
  X(HardKill, "hard-kill")             /* SIGKILL the job */                         \
  X(KillStarter, "kill-starter")       /* KILLING_TIMEOUT: SIGKILL starter + kids */ \
  X(NotifyClaimant, "notify-claimant") /* claim broken / refused (detail) */         \
  X(PublishAds, "publish-ads")         /* send the slot's ad to the collector */     \
  X(SpawnBackfill, "spawn-backfill")   /* start the backfill client */               \
  X(KillBackfill, "kill-backfill")     /* kill the backfill client */                \
  X(RunBenchmarks, "run-benchmarks")   /* measure Mips/KFlops */                     \
  X(CreateSlot, "create-slot")         /* dynamic slot carved (detail: resources) */ \
  X(DeleteSlot, "delete-slot")         /* dynamic slot gone, resources returned */   \
  X(Refuse, "refuse")                  /* a request the slot would not take */       \
  X(Exit, "exit")                      /* shutdown complete */                       \
  X(HoldJob, "hold-job")               /* WANT_HOLD: put the job on hold (detail) */ \
  X(Hibernate, "hibernate")            /* every slot agrees: sleep (detail: "S3") */ \
  X(FetchWork, "fetch-work")           /* run the slot's fetch-work hook */          \
  X(ReplyFetch, "reply-fetch")         /* fetched job taken or not (detail) */       \
  X(EvictClaim, "evict-claim")         /* a fetched claim ended (detail: why) */

enum class ActionKind : uint8_t {
#define X(n, s) k##n,
  KITE_STARTD_ACTIONS(X)
#undef X
};
const char* action_name(ActionKind k);
/// The action named `name` (as action_name prints it, any case); false when there is none.
bool action_parse(const std::string& name, ActionKind* out);

struct Action {
  int64_t time = 0;
  ActionKind kind;
  std::string slot;
  std::string detail;
};

/// One state/activity change and why.
struct TransitionRecord {
  int64_t time = 0;
  std::string slot;
  State from_state;
  Activity from_activity;
  State to_state;
  Activity to_activity;
  int number = 0;     // reference transition number, 0 when unnumbered
  std::string cause;  // "starter exited", "PREEMPT is true", ...
};

/// What one call produced, in order.
struct Output {
  std::vector<TransitionRecord> transitions;
  std::vector<Action> actions;
  // Interleaved order: each entry indexes transitions (>= 0) or actions (~index).
  std::vector<int> order;
};

enum class DrainMode : uint8_t { kGraceful, kQuick, kFast };
enum class ShutdownMode : uint8_t { kPeaceful, kGraceful, kFast };

#define KITE_STARTD_EVENTS(X) \
  X(Match)                    \
  X(Claim)                    \
  X(Activate)                 \
  X(Deactivate)               \
  X(Release)                  \
  X(Vacate)                   \
  X(VacateFast)               \
  X(Drain)                    \
  X(CancelDrain)              \
  X(StarterExited)            \
  X(JobExited)                \
  X(StarterCleaned)           \
  X(BackfillExited)           \
  X(Alive)                    \
  X(LeaseExpired)             \
  X(Withdraw)                 \
  X(FetchedWork)              \
  X(Shutdown)

enum class EventKind : uint8_t {
#define X(n) k##n,
  KITE_STARTD_EVENTS(X)
#undef X
};

/// An event from the world. `slot` names a slot ("slot1", "slot1_2"); empty for machine-wide
/// events (drain, cancel drain, shutdown). `ad` is the match/claim/job ad where one applies.
/// kFetchedWork: the slot's fetch-work hook finished; `ad` is its job, null for no work.
struct Event {
  EventKind kind;
  std::string slot;
  const classad::ClassAd* ad = nullptr;
  int exit_code = 0;
  DrainMode drain = DrainMode::kGraceful;
  bool drain_resume = false;  // condor_drain -resume-on-completion: finalize when drained
  std::string drain_reason;   // condor_drain -reason (DrainReason); empty: none given
  std::string drain_start;    // condor_drain -start: START while draining; empty: the default
  ShutdownMode shutdown = ShutdownMode::kGraceful;
  // Re-adoption (kActivate only): a job a starter kept running across an agent restart. The
  // claim and job are restored under `adopt_slot` (the dynamic slot's old name) with claim id
  // `adopt_claim_id` and JobStart `adopt_job_start`; no starter is spawned.
  std::string adopt_slot;
  std::string adopt_claim_id;
  int64_t adopt_job_start = -1;
  // Claim of a Claimed slot: the negotiator preempts the current claim for a user of better
  // priority (it has applied PREEMPTION_REQUIREMENTS); accepted unless RANK is lower.
  bool priority_preemption = false;
};

/// Snapshot of one slot for callers and tests.
struct SlotView {
  std::string name;
  State state;
  Activity activity;
  bool dynamic = false;
  bool partitionable = false;
  bool starter_running = false;
  bool starter_cleaning = false;  // the job exited; its starter has not gone yet
  bool job_ignores_softkill = false;
  bool starter_stuck = false;
  const classad::ClassAd* ad = nullptr;
};

struct SlotImpl;

class Startd {
 public:
  Startd(const config::Config& cfg, const MachineFacts& facts, const Clock& clock);
  ~Startd();
  Startd(const Startd&) = delete;
  Startd& operator=(const Startd&) = delete;

  /// Lays out the slots (all Owner/Idle) and parses the policy. False with a message on an
  /// impossible layout or an expression that does not parse.
  bool init(std::string* err);

  /// Re-reads the policy expressions (START, RANK, SUSPEND, ...) of every slot from the
  /// configuration object given at construction, which the caller has replaced in place
  /// (reconfig). The slot layout is kept. False with a message when an expression does not
  /// parse; the old policy then stays.
  bool reload_policy(std::string* err);

  /// Applies one event at clock.now(), then follows the consequences on the slots it touched.
  /// False (with a message) when the event names no such slot; a refused request is an
  /// action, not an error.
  bool handle(const Event& ev, Output* out, std::string* err);

  /// Sets input attributes (KeyboardIdle=..., any expression) on one slot or, with an empty
  /// slot name, on every slot. `assignments` are (name, expression text) pairs.
  bool set_inputs(const std::string& slot,
                  const std::vector<std::pair<std::string, std::string>>& assignments,
                  std::string* err);

  /// Takes new samples from the HAL: TotalLoadAvg, per-slot LoadAvg (owner load handed out at
  /// most 1.0 per slot, Owner slots first), and KeyboardIdle/ConsoleIdle for the slots
  /// connected by SLOTS_CONNECTED_TO_KEYBOARD/_CONSOLE; the others report the time since the
  /// startd began plus DISCONNECTED_KEYBOARD_IDLE_BOOST (default 1200).
  void update_facts(const MachineFacts& facts);

  /// Evaluates the policy of every slot at clock.now(), following chains until stable, and
  /// fires the timers due now.
  void evaluate(Output* out);

  /// The next second at which a timer (MATCH_TIMEOUT, retirement, vacate, KILLING_TIMEOUT,
  /// lease, CLAIM_WORKLIFE, benchmarks) falls due, or INT64_MAX.
  int64_t next_timer() const;
  /// POLLING_INTERVAL and UPDATE_INTERVAL, seconds.
  int64_t polling_interval() const { return polling_interval_; }
  int64_t update_interval() const { return update_interval_; }

  /// Slots in ad order (static/partitionable by id, dynamic after their parent).
  std::vector<SlotView> slots() const;
  bool slot(const std::string& name, SlotView* out) const;
  /// Marks the current (or next) job of a slot, for the simulator's world model.
  bool set_job_flags(const std::string& slot, bool ignores_softkill, bool stuck, std::string* err);
  bool shut_down() const { return shut_down_; }
  /// The machine is back from the sleep a hibernate action asked for (level 1..5): as in
  /// HTCondor, HIBERNATE is not checked again for an hour unless the sleep was S5 (shutdown).
  void resumed_from_sleep(int level);
  /// The level every slot's HIBERNATE agrees on right now (0: some slot vetoes), outside the
  /// check interval: the agent asks again just before it sleeps.
  int hibernate_level_now() const;
  /// HIBERNATE_CHECK_INTERVAL, seconds (0: power management off).
  int64_t hibernate_interval() const { return hibernate_interval_; }

  const Layout& layout() const { return layout_; }
  /// What the startd's evaluations read for time() and CurrentTime (its Clock) and random().
  const classad::EvalEnv& eval_env() const { return eval_env_; }

  /// The resource invariant: no slot has a negative amount of anything; each static or
  /// partitionable slot's free resources plus its dynamic slots' equal what it was given; the
  /// slots together have no more than the machine. False with what does not add up; true with
  /// the figures ("Cpus 2 of 2, Memory 1000 of 1000, ...").
  bool resources_balance(std::string* report) const;

 private:
  friend struct Engine;
  const config::Config& cfg_;
  MachineFacts facts_;
  const Clock& clock_;
  classad::EvalEnv eval_env_;
  Layout layout_;
  std::vector<std::unique_ptr<SlotImpl>> slots_;
  std::vector<std::pair<std::string, std::string>> machine_inputs_;
  int64_t polling_interval_ = 5;
  int64_t update_interval_ = 300;
  int64_t start_time_ = 0;
  int64_t next_update_ = 0;  // next periodic ad update (UPDATE_INTERVAL)
  bool draining_ = false;
  DrainMode drain_mode_ = DrainMode::kGraceful;
  bool drain_resume_ = false;
  bool drain_finalized_ = false;
  int64_t drain_start_ = 0;
  double drain_badput_ = 0;
  double drain_unclaimed_ = 0;
  int64_t acct_time_ = 0;
  bool shutting_down_ = false;
  ShutdownMode shutdown_mode_ = ShutdownMode::kGraceful;
  int64_t shutdown_start_ = 0;
  bool shut_down_ = false;
  int64_t claim_counter_ = 0;
  // ALIVE_INTERVAL and MAX_CLAIM_ALIVES_MISSED (a claim's lease), read with the policy.
  int64_t claim_alive_ = 300, claim_missed_ = 6;
  void read_claim_lease();
  std::vector<std::string> slot_attrs_;   // STARTD_SLOT_ATTRS
  std::vector<std::string> latch_exprs_;  // STARTD_LATCH_EXPRS
  bool enable_backfill_ = false;
  // Machine-wide job statistics (stats.cc): totals, events of the last 20 minutes counted per
  // second (at most 1,200 entries, however many jobs a second start), a version that tells
  // slot ads to republish.
  static constexpr int kStatCount = 6;
  struct StatSecond {
    int64_t at;
    uint32_t n[kStatCount];
  };
  int64_t stat_total_[kStatCount] = {};
  int64_t stat_recent_n_[kStatCount] = {};
  std::deque<StatSecond> stat_recent_;
  uint64_t stat_version_ = 1;
  std::vector<std::string> job_attrs_;     // STARTD_JOB_ATTRS
  bool pslot_rollup_ = true;               // ADVERTISE_PSLOT_ROLLUP_INFORMATION
  std::vector<std::string> rollup_attrs_;  // STARTD_PARTITIONABLE_SLOT_ATTRS
  int64_t drain_requests_ = 0;             // DrainingRequestId counter
  int64_t last_drain_start_ = 0, last_drain_stop_ = 0;
  std::string drain_reason_;
  classad::ExprPtr drain_start_expr_;  // condor_drain -start of the drain under way, else null
  int64_t noclaim_shutdown_ = 0;       // STARTD_NOCLAIM_SHUTDOWN, 0: never
  int64_t last_claim_time_ = 0;        // when some slot last had a claim (or the start)
  std::string shutdown_why_;

  int64_t hibernate_interval_ = 0;  // HIBERNATE_CHECK_INTERVAL, 0: never
  int64_t next_hibernate_ = 0;      // the next HIBERNATE check

  // ExpectedMachine*Draining* as last computed (drain_estimate.cc), at drain_est_time_ after
  // drain_est_at_ of the drain_est_changes_ (slot ad refreshes) so far.
  int64_t drain_est_[4] = {};
  int64_t drain_est_time_ = -1;
  uint64_t drain_est_changes_ = 0, drain_est_at_ = 0;
};

/// HIBERNATE's value in one slot as a sleep level 0..5: the names of the reference's table in
/// any case ("NONE", "S3", "RAM", "DISK", "3", ...) or an integer 0..5; anything else is 0
/// (NONE). HTCONDOR: startd HIBERNATE.
int hibernate_level(const classad::Value& v);
/// The level's name as HibernationState publishes it: "NONE", "S1".."S5".
const char* hibernate_level_name(int level);
/// The machine's decision from every slot's level: 0 when any slot says 0 (a veto) or there is
/// no slot, else the largest.
int hibernate_decision(const std::vector<int>& levels);

/// Parses an ISO 8601 UTC time ("2024-03-04T08:00:00Z", or a date) into seconds since the epoch.
bool iso8601_parse(const std::string& text, int64_t* out);

}  // namespace kite::startd
