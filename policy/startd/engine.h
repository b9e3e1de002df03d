// Internal to the startd core: the per-slot state (SlotImpl, its claim and job), the policy of a
// slot, and the Engine that moves slots. Split over files by job: policy_eval, retirement,
// triggers, transitions, slot_ad, claims, drain, shutdown, poll. Not for use outside policy/startd.
#pragma once

#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/classad/eval.h"
#include "policy/config/config.h"
#include "policy/startd/expr_template.h"
#include "policy/startd/job_hooks.h"
#include "policy/startd/startd.h"
#include "policy/startd/text_util.h"
#include "policy/util/double_to_int.h"

namespace kite::startd {

using classad::AdPtr;
using classad::ClassAd;
using classad::Expr;
using classad::ExprPtr;
using classad::Value;

constexpr int64_t kNever = INT64_MAX;
// The longest duration a job or the configuration may ask for (about 34,000 years): longer
// ones are cut to it, so that `now + duration` never overflows.
constexpr int64_t kLongestDuration = int64_t{1} << 40;

struct RequestAmounts;  // requests.h

inline bool truthy(const Value& v) {
  return classad::value_is_true(v);
}
// Explicitly false (a false boolean or a zero number); undefined is not false.
inline bool is_false(const Value& v) {
  if (v.is_boolean()) return !v.as_boolean();
  if (v.is_integer()) return v.as_integer() == 0;
  if (v.is_real()) return v.as_real() == 0;
  return false;
}
inline bool number(const Value& v, double* out) {
  if (v.is_integer()) {
    *out = static_cast<double>(v.as_integer());
    return true;
  }
  if (v.is_real()) {
    *out = v.as_real();
    return true;
  }
  if (v.is_boolean()) {
    *out = v.as_boolean() ? 1 : 0;
    return true;
  }
  return false;
}

// A figure as a whole number for an ad or a timer: toward zero, saturated at the int64 range,
// NaN as 0 (util::double_to_int64_clamped; never a bare cast).
inline int64_t whole(double v) {
  return util::double_to_int64_clamped(v, util::Round::kTowardZero, INT64_MIN, INT64_MAX, 0);
}
// A duration in seconds from a job or the configuration: not negative, at most
// kLongestDuration, NaN as 0.
inline int64_t duration(double v) {
  return util::double_to_int64_clamped(v, util::Round::kTowardZero, 0, kLongestDuration, 0);
}
// An integer attribute of a job ad: an integer as it is, a real only when finite and in range
// (toward zero, as ClassAd int()). False otherwise.
inline bool ad_int(const ClassAd& ad, std::string_view attr, int64_t* out) {
  Value v = ad.evaluate_attr(attr);
  if (v.is_integer()) {
    *out = v.as_integer();
    return true;
  }
  return v.is_real() &&
         util::double_to_int64(v.as_real(), util::Round::kTowardZero, INT64_MIN, INT64_MAX, out);
}

// Why a running job retires (and so where the slot goes when it is gone, and whether it may
// unretire: only kRank and kPriority, when the preempting claim goes away).
enum class Retire : uint8_t {
  kNone,
  kPreempt,
  kRank,
  kPriority,
  kVacate,
  kRelease,
  kDrain,
  kShutdown,
  kLease
};

const char* retire_text(Retire r);

/// Policy expressions of one slot, as configured for it (SLOT<N>_/SLOT_TYPE_<N>_ overrides).
struct Policy {
  ExprPtr start, is_owner, rank, mjrt, mmvt, runbench, start_backfill, evict_backfill;
  ExprPtr suspend[2], cont[2], preempt[2], kill[2], want_suspend[2], want_vacate[2];
  ExprPtr want_hold[2], want_hold_reason[2], want_hold_subcode[2];
  ExprPtr draining_start;
  ExprPtr hibernate;  // HIBERNATE (null: never)
  bool has_draining_start = false;
  JobHooks hooks;       // fetch-work hooks (job_hooks.h)
  ExprPtr fetch_delay;  // FetchWorkDelay
  int64_t claim_worklife = 1200;
  int64_t killing_timeout = 30;
  int64_t match_timeout = 120;
};

struct Claim {
  std::string id;
  AdPtr ad;
  double rank = 0;
  int64_t start = 0;
  int64_t lease = 1800;
  int64_t lease_expires = kNever;
  int activations = 0;
  bool by_priority = false;  // a preempting claim the negotiator sent for user priority
  bool fetched = false;      // created for work a fetch-work hook supplied
  AdPtr fetched_job;         // a fetched job that preempts by RANK: run once this claim is current
};

struct Job {
  AdPtr ad;
  bool vanilla = false;
  int64_t start = 0;
  int64_t suspended_total = 0;
  int64_t suspend_since = -1;
  bool starter_running = false;
  bool soft_killed = false;
  bool hard_killed = false;
  bool starter_sigkilled = false;
  int64_t mmvt = 600;  // MachineMaxVacateTime, evaluated when the job starts
  int64_t jmvt = -1;   // JobMaxVacateTime, -1 when the job has none
  std::string kill_sig = "SIGTERM";
  bool held = false;          // WANT_HOLD put it on hold
  double est_retirement = 0;  // MAXJOBRETIREMENTTIME as last evaluated (drain estimates)
};

struct SlotImpl {
  std::string name;  // "slot1", "slot1_2"
  int id = 0;        // SlotID
  int type_id = 0;
  bool partitionable = false;
  bool dynamic = false;
  int dslot_id = 0;
  SlotImpl* parent = nullptr;
  int next_dslot = 1;
  SlotResources res;    // what the slot owns (a pslot: what is left)
  SlotResources total;  // what the slot was given (TotalSlot*)
  State state = State::kOwner;
  Activity activity = Activity::kIdle;
  int64_t entered_state = 0;
  int64_t entered_activity = 0;
  AdPtr ad;
  Policy pol;
  std::vector<std::pair<std::string, std::string>> inputs;

  bool has_claim = false;
  Claim claim;
  bool has_preempting = false;
  Claim preempting;
  bool has_job = false;
  Job job;
  bool flag_ignores_softkill = false;
  bool flag_stuck = false;
  bool starter_cleaning = false;  // the job exited; its starter is still removing the sandbox

  // Pending requests, consumed by the transition they cause.
  bool match_pending = false;
  AdPtr match_ad;
  int64_t match_deadline = kNever;
  bool claim_pending = false;
  Claim pending_claim;
  bool activate_pending = false;
  int64_t adopt_start = -1;    // re-adopted job: its JobStart; no starter to spawn
  bool end_requested = false;  // vacate / release / lease / drain / shutdown on an idle claim
  bool fast = false;
  std::string end_cause;
  Retire retire = Retire::kNone;
  int64_t retire_end_override = kNever;  // drain graceful / shutdown graceful
  bool retire_infinite = false;          // shutdown peaceful
  int64_t vacate_deadline = kNever;
  int64_t kill_deadline = kNever;
  int64_t benchmark_end = kNever;
  bool bf_running = false;
  bool bf_evict_to_owner = false;
  std::string bf_cause;
  double last_benchmark = 0;
  bool benchmarked = false;
  bool accepted_while_draining = false;
  int64_t total_claim_run = 0, total_claim_suspend = 0;
  int64_t total_job_run = 0, total_job_suspend = 0;
  int64_t pair_time[7 * 8] = {};  // seconds accumulated per state/activity pair (TotalTime*)
  int64_t pub_drain_est[4] = {-1, -1, -1, -1};  // ExpectedMachine*Draining* in this ad
  bool res_dirty = true;                        // resources changed since set_resources()
  // Groups of attributes refresh() has put in the ad (so it removes them only once).
  bool pub_claim = true, pub_drain = true, pub_preempting = true, pub_job = true;
  // The numbers last put in the ad's time() totals (insert_made), per total; unset: none yet.
  int64_t pub_nums[5][2] = {};
  bool pub_set[5] = {};
  uint64_t pub_stats = 0;  // machine statistics version last published in this ad
  int64_t pub_total[6] = {-1, -1, -1, -1, -1, -1}, pub_recent[6] = {-1, -1, -1, -1, -1, -1};
  bool preempt_was_true = false;
  bool pslot_victim = false;   // a dynamic slot preempted for a claim of its partitionable slot
  bool pslot_pending = false;  // a partitionable slot waiting for its victims to go
  AdPtr pslot_claim_ad;        // ... with the claim it will carve for  // PREEMPT was true for the
                               // current job (WANT_HOLD applies)
  bool dead = false;           // dynamic slot deleted
  bool fetch_in_flight = false;  // the fetch-work hook is running for this slot
  int64_t next_fetch = 0;        // earliest next fetch (last one's end + FetchWorkDelay)
  double pub_badput = -1, pub_unclaimed = -1;  // last published drain totals
};

// The slot's starter process is there: running the job, or cleaning up after it.
inline bool starter_alive(const SlotImpl& s) {
  return (s.has_job && s.job.starter_running) || s.starter_cleaning;
}

/// Sets `n` to the literal `v`, unless the ad already holds that literal under that spelling:
/// then nothing changes (no allocation, and the ad's generation holds, by which the
/// negotiator's match cache knows an unchanged slot). slot_ad.cc.
void put_value(ClassAd& ad, const classad::InternedName& n, Value v);

/// The engine: everything that needs the Startd's private parts, for one call at time `now`.
// Machine-wide job statistics (stats.cc).
enum class Stat : uint8_t {
  kJobStarts,
  kJobPreemptions,
  kJobRankPreemptions,
  kJobUserPrioPreemptions,
  kClaimRequests,
  kActivationRequests
};

struct Engine {
  Startd& sd;
  Output* out;
  int64_t now;
  const Event* ev = nullptr;  // the event being handled, if any (re-adoption details)

  void act(SlotImpl& s, ActionKind k, std::string detail = "");
  ClassAd* target(SlotImpl& s);
  Value eval_with(SlotImpl& s, const Expr* e, ClassAd* t);
  Value eval_local(SlotImpl& s, const Expr* e) { return eval_with(s, e, nullptr); }
  Value eval_job(SlotImpl& s, const Expr* e) { return eval_with(s, e, target(s)); }
  int v(SlotImpl& s) { return s.has_job && s.job.vanilla ? 1 : 0; }
  bool want_suspend(SlotImpl& s) { return truthy(eval_job(s, s.pol.want_suspend[v(s)].get())); }
  bool suspend(SlotImpl& s) { return truthy(eval_job(s, s.pol.suspend[v(s)].get())); }
  bool cont(SlotImpl& s) { return truthy(eval_job(s, s.pol.cont[v(s)].get())); }
  bool preempt(SlotImpl& s) { return truthy(eval_job(s, s.pol.preempt[v(s)].get())); }
  bool kill(SlotImpl& s) { return truthy(eval_job(s, s.pol.kill[v(s)].get())); }
  bool want_vacate(SlotImpl& s) { return truthy(eval_job(s, s.pol.want_vacate[v(s)].get())); }
  const Expr* start_expr(SlotImpl& s);
  // START for a request ad (claim or job): must be true; also the resources must fit.
  bool start_for(SlotImpl& s, ClassAd* req);
  double rank_for(SlotImpl& s, ClassAd* req);
  // HTCONDOR: ep-policy "MAXJOBRETIREMENTTIME": machine expression in the job's context; the
  // job's own MaxJobRetirementTime may only take less.
  double max_retirement(SlotImpl& s);
  int64_t suspended_so_far(SlotImpl& s);
  // End of retirement: JobStart + retirement + suspension (suspension does not count).
  int64_t retirement_end(SlotImpl& s);
  // HTCONDOR: ep-policy "MachineMaxVacateTime ... retirement time will be converted into
  // vacating time, up to the amount of JobMaxVacateTime".
  int64_t vacate_time(SlotImpl& s, int64_t remaining);
  // The X at which the soft kill comes before the end of retirement.
  int64_t softkill_lead(SlotImpl& s) { return s.job.jmvt >= 0 ? s.job.jmvt : s.job.mmvt; }
  int64_t retirement_remaining(SlotImpl& s);
  bool retirement_over(SlotImpl& s);
  // HTCONDOR: ep-policy "Defragmenting Dynamic Slots": DEFRAG_DRAINING_START_EXPR / startd
  // DEFAULT_DRAINING_START_EXPR: while a job that was running when a graceful drain began is
  // still retiring, START is the draining expression; when the last one is done, the jobs
  // accepted while draining are evicted with no retirement.
  bool drain_admitting();
  void drain_evict_admitted();
  bool all_drained();
  bool worklife_over(SlotImpl& s);
  void note_preempt(SlotImpl& s);
  bool holds(Trigger t, SlotImpl& s);
  struct Ctx {
    Engine* e;
    SlotImpl* s;
  };
  static bool holds_cb(Trigger t, void* ctx);
  std::string cause_for(const TransitionRow& r, SlotImpl& s);
  void ins(SlotImpl& s, const char* name, Value v) {
    put_value(*s.ad, classad::intern_name(name), std::move(v));
  }
  void ins(SlotImpl& s, const classad::InternedName& name, Value v) {
    put_value(*s.ad, name, std::move(v));
  }
  // Time-dependent attributes are expressions of time() (set at transitions), so a poll only
  // has to touch the few literals that really changed.
  void refresh_time(SlotImpl& s);
  void insert_text(SlotImpl& s, const char* name, const std::string& text);
  // Total `k` of the slot ad, `name`, as `shape` with `nums` in its holes: made again only
  // when the numbers changed (or the attribute was removed meanwhile).
  void insert_made(SlotImpl& s, int k, const char* name, const ExprTemplate& shape, int64_t n0,
                   int64_t n1);
  // Total `k` leaves the ad (it is not above 0: HTCondor leaves such totals out).
  void drop_made(SlotImpl& s, int k, const char* name);
  void refresh_job_times(SlotImpl& s);
  void insert_expr(SlotImpl& s, const char* name, const Expr* e);
  void insert_expr(SlotImpl& s, const classad::InternedName& name, const Expr* e);
  void insert_policy(SlotImpl& s);
  void set_resources(SlotImpl& s);
  void refresh(SlotImpl& s);
  // HTCONDOR: startd ADVERTISE_PSLOT_ROLLUP_INFORMATION: the partitionable slot lists its
  // dynamic slots' Child* attributes.
  void refresh_rollup(SlotImpl& p);
  void publish_job_attrs(SlotImpl& s, ClassAd* job);
  // slot<N>_<attr> cross-slot attributes (STARTD_SLOT_ATTRS).
  void refresh_cross();
  void refresh_total_slots();
  void record(SlotImpl& s, State fs, Activity fa, int number, const std::string& cause);
  void end_job_accounting(SlotImpl& s, bool evicted);
  void clear_claim(SlotImpl& s, const char* why);
  void start_job(SlotImpl& s);
  void enter_preempting(SlotImpl& s);
  // WANT_HOLD (hold.cc): true when the job was put on hold instead of killed.
  bool hold_job(SlotImpl& s, bool soft);
  void resume(SlotImpl& s);
  // Moves `s` along `r`, running the entry/exit work of the move. Returns false when the
  // slot went away (a dynamic slot deleted on its way back to Owner).
  bool apply(SlotImpl& s, const TransitionRow& r);
  // The work of entering a row (state_table.h EntryWork), and its larger steps.
  void entry_work(SlotImpl& s, EntryWork w);
  void claim_take(SlotImpl& s);    // the pending claim becomes the slot's
  void claim_switch(SlotImpl& s);  // the preempting claim replaces the evicted one
  void claim_end(SlotImpl& s);     // the evicted claim is broken, the claimant told why
  void backfill_stop(SlotImpl& s);
  // The steps of apply(): the activity an eviction out of Claimed enters (WANT_VACATE), the
  // work of leaving the current pair for state `ts`, joining the backfill client, and the
  // start of an eviction (retirement cause, preemption statistics, signals).
  Activity eviction_activity(SlotImpl& s, const TransitionRow& r);
  void pair_leave(SlotImpl& s, State ts);
  void backfill_join(SlotImpl& s);
  void eviction_start(SlotImpl& s);
  void reset_eviction(SlotImpl& s);
  // Slots using the (single) backfill client, `except` aside.
  int backfill_users(const SlotImpl* except);
  void delete_dslot(SlotImpl& s);
  // Follows transitions of one slot until none applies.
  // A policy that flips back and forth (SUSPEND and CONTINUE both true) moves once per
  // evaluation: a chain stops before revisiting a state/activity it has left.
  void settle(SlotImpl& s);
  void killing_timeout(SlotImpl& s);
  // HTCONDOR: ep-policy "the request ... asks for draining to be automatically finalized once
  // all slots have finished draining" (transition 34).
  bool finalize_drain();
  void check_shutdown_done();
  void accounting();
  // STARTD_LATCH_EXPRS: <Name>Value is the sampled value, <Name>Time when it last changed.
  void latch(SlotImpl& s);
  void evaluate_all();
  // ---- statistics (stats.cc) ---------------------------------------------------------------
  void count_stat(Stat which);
  void expire_stats();
  void publish_stats(SlotImpl& s);
  void publish_on_read(SlotImpl& s);
  void noclaim_shutdown();
  // HIBERNATE at HIBERNATE_CHECK_INTERVAL (hibernate.cc).
  void hibernate_check();
  int hibernate_agreed();  // the level every live slot's HIBERNATE agrees on, 0: a veto
  // ExpectedMachine*Draining* (drain_estimate.cc), brought up to date when an ad is read.
  void drain_estimates(int64_t v[4]);
  void publish_drain_estimates(SlotImpl& s);
  // After a move out of (fs, fa), entered at `entered`: TotalTime* of both pairs.
  void publish_pair_times(SlotImpl& s, State fs, Activity fa, int64_t entered);
  void compact();

  // ---- requests and events (claims.cc, carve.cc, drain.cc, shutdown.cc) ----------------------
  SlotImpl* find_slot(const std::string& name);
  void refuse(SlotImpl& s, const std::string& why);
  // `copy`, when given, is a copy of `ad` already made (the claim keeps it: no second copy).
  Claim new_claim(SlotImpl& s, const ClassAd* ad, ClassAd* copy = nullptr);
  // Carves a dynamic slot for `ad` out of partitionable slot `p`; null (with why) when it does
  // not fit.
  SlotImpl* carve(SlotImpl& p, const ClassAd* ad, std::string* why);
  // The dynamic slot of `size` taken out of `p` (checked to fit), claimed by no one yet.
  SlotImpl* dslot_make(SlotImpl& p, const RequestAmounts& size);
  // A claim request on `t`: the slot claimed (a new dynamic slot for a pslot), or null when
  // refused (a refuse action says why).
  // `by_priority`: the negotiator preempts the current claim by user priority.
  SlotImpl* claim_request(SlotImpl& t, const ClassAd* ad, bool by_priority = false);
  bool request_fits(SlotImpl& s, ClassAd* req, std::string* why);
  void on_match(SlotImpl& s, const ClassAd* ad);
  void on_activate(SlotImpl& s, const ClassAd* ad);
  // deactivate, starter/backfill exited, alive, lease expired, withdraw
  void on_job_event(SlotImpl& s, const Event& ev);
  // release, vacate, fast vacate (a pslot: all its dynamic slots)
  void on_release(SlotImpl& s, EventKind kind);
  // Partitionable slot preemption (pslot_preempt.cc).
  bool pslot_preempt(SlotImpl& p, ClassAd* req, std::string* why);
  void pslot_claims();
  void on_drain(const Event& ev);
  void on_cancel_drain();
  void on_shutdown(const Event& ev);
  // Fetch-work hooks (fetch_work.cc): which slots want work now, when one next will, and
  // what to do with what a hook supplied.
  bool fetch_waiting(SlotImpl& s);
  void fetch_due();
  int64_t next_fetch_time();
  void on_fetched(SlotImpl& s, const ClassAd* job);
};

// Configuration helpers (policy_config.cc).
bool load_policy(const config::Config& cfg, int slot, int type, Policy* p, std::string* err);
// The ad of a new slot: identity, machine facts, time attributes, STARTD_ATTRS (slot_ad_build.cc).
void build_static_ad(Startd& sd, const config::Config& cfg, const MachineFacts& f, SlotImpl& s,
                     int64_t now, std::string* err, bool* ok);
// A partitionable slot with CONSUMPTION_POLICY advertises Consumption<resource> (the
// CONSUMPTION_<resource> expressions) for the negotiator (carve.cc).
void publish_consumption(const config::Config& cfg, const Layout& layout, SlotImpl& p);

}  // namespace kite::startd
