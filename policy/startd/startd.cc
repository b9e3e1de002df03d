// The startd core (see startd.h): slot ads, policy evaluation, claims, jobs, timers, draining,
// shutdown. Moves go through transition_step() over the numbered table in state_table.cc.
#include "policy/startd/startd.h"
#include "policy/startd/text_util.h"

#include <strings.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "policy/classad/eval.h"
#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::startd {

using classad::AdPtr;
using classad::ClassAd;
using classad::Expr;
using classad::ExprPtr;
using classad::Value;

namespace {

const Clock* g_clock = nullptr;
int64_t clock_now_fn() { return g_clock->now(); }

const char* const kActionNames[] = {
#define X(n, s) s,
    KITE_STARTD_ACTIONS(X)
#undef X
};

constexpr int64_t kNever = INT64_MAX;

bool truthy(const Value& v) { return classad::value_is_true(v); }
bool is_false(const Value& v) {
  if (v.is_boolean()) return !v.as_boolean();
  if (v.is_integer()) return v.as_integer() == 0;
  if (v.is_real()) return v.as_real() == 0;
  return false;
}
bool number(const Value& v, double* out) {
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

}  // namespace

void clock_install(const Clock* clock) {
  g_clock = clock;
  classad::EvalContext::set_time_source(clock ? clock_now_fn : nullptr);
}

const char* action_name(ActionKind k) { return kActionNames[static_cast<int>(k)]; }

bool iso8601_parse(const std::string& text, int64_t* out) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, used = 0;
  std::string t = trim(text);
  int n = std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%d%n", &y, &mo, &d, &h, &mi, &s, &used);
  int64_t offset = 0;
  if (n == 6) {
    // Zone: Z, +HH:MM, -HH:MM (or nothing: UTC).
    std::string z = t.substr(static_cast<size_t>(used));
    if (!z.empty() && z[0] == '.') {  // fractional seconds are ignored
      size_t k = 1;
      while (k < z.size() && z[k] >= '0' && z[k] <= '9') ++k;
      z = z.substr(k);
    }
    if (z == "Z" || z.empty()) {
      offset = 0;
    } else if ((z[0] == '+' || z[0] == '-') && z.size() == 6 && z[3] == ':') {
      int zh = std::atoi(z.substr(1, 2).c_str()), zm = std::atoi(z.substr(4, 2).c_str());
      if (zh > 23 || zm > 59) return false;
      offset = (zh * 3600 + zm * 60) * (z[0] == '-' ? -1 : 1);
    } else {
      return false;
    }
  } else if (n == 3) {
    int consumed = 0;
    if (std::sscanf(t.c_str(), "%*d-%*d-%*d%n", &consumed) != 0 || consumed != static_cast<int>(t.size()))
      return false;
  } else {
    return false;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 ||
      s > 60)
    return false;
  // Days from civil (proleptic Gregorian), UTC.
  int yy = y - (mo <= 2);
  int era = (yy >= 0 ? yy : yy - 399) / 400;
  int yoe = yy - era * 400;
  int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = static_cast<int64_t>(era) * 146097 + doe - 719468;
  *out = days * 86400 + h * 3600 + mi * 60 + s - offset;
  return true;
}

// ---------------------------------------------------------------------------------------------

enum class Retire : uint8_t { kNone, kPreempt, kRank, kVacate, kRelease, kDrain, kShutdown, kLease };

const char* retire_text(Retire r) {
  switch (r) {
    case Retire::kNone: return "";
    case Retire::kPreempt: return "PREEMPT is true";
    case Retire::kRank: return "preempted by a claim of higher RANK";
    case Retire::kVacate: return "vacate";
    case Retire::kRelease: return "claim released";
    case Retire::kDrain: return "draining";
    case Retire::kShutdown: return "shutdown";
    case Retire::kLease: return "claim lease expired";
  }
  return "";
}

/// Policy expressions of one slot, as configured for it (SLOT<N>_/SLOT_TYPE_<N>_ overrides).
struct Policy {
  ExprPtr start, is_owner, rank, mjrt, mmvt, runbench, start_backfill, evict_backfill;
  ExprPtr suspend[2], cont[2], preempt[2], kill[2], want_suspend[2], want_vacate[2];
  ExprPtr draining_start;
  bool has_draining_start = false;
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

  // Pending requests, consumed by the transition they cause.
  bool match_pending = false;
  AdPtr match_ad;
  int64_t match_deadline = kNever;
  bool claim_pending = false;
  Claim pending_claim;
  bool activate_pending = false;
  int64_t adopt_start = -1;  // re-adopted job: its JobStart; no starter to spawn
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
  int job_starts = 0;
  int64_t total_claim_run = 0, total_claim_suspend = 0;
  int64_t total_job_run = 0, total_job_suspend = 0;
  bool dead = false;  // dynamic slot deleted
  double pub_badput = -1, pub_unclaimed = -1;  // last published drain totals
};

/// The engine: everything that needs the Startd's private parts.
struct Engine {
  Startd& sd;
  Output* out;
  int64_t now;

  void act(SlotImpl& s, ActionKind k, std::string detail = "") {
    Action a;
    a.time = now;
    a.kind = k;
    a.slot = s.name;
    a.detail = std::move(detail);
    out->order.push_back(~static_cast<int>(out->actions.size()));
    out->actions.push_back(std::move(a));
  }

  // ---- expression evaluation --------------------------------------------------------------

  ClassAd* target(SlotImpl& s) {
    if (s.has_job && s.job.ad) return s.job.ad.get();
    if (s.has_claim && s.claim.ad) return s.claim.ad.get();
    return nullptr;
  }

  Value eval_with(SlotImpl& s, const Expr* e, ClassAd* t) {
    if (!e) return Value::undefined();
    if (!t) return s.ad->evaluate_expr(e);
    classad::MatchPair mp(*s.ad, *t);
    return mp.evaluate_left(e);
  }
  Value eval_local(SlotImpl& s, const Expr* e) { return eval_with(s, e, nullptr); }
  Value eval_job(SlotImpl& s, const Expr* e) { return eval_with(s, e, target(s)); }
  int v(SlotImpl& s) { return s.has_job && s.job.vanilla ? 1 : 0; }

  bool want_suspend(SlotImpl& s) { return truthy(eval_job(s, s.pol.want_suspend[v(s)].get())); }
  bool suspend(SlotImpl& s) { return truthy(eval_job(s, s.pol.suspend[v(s)].get())); }
  bool cont(SlotImpl& s) { return truthy(eval_job(s, s.pol.cont[v(s)].get())); }
  bool preempt(SlotImpl& s) { return truthy(eval_job(s, s.pol.preempt[v(s)].get())); }
  bool kill(SlotImpl& s) { return truthy(eval_job(s, s.pol.kill[v(s)].get())); }
  bool want_vacate(SlotImpl& s) { return truthy(eval_job(s, s.pol.want_vacate[v(s)].get())); }

  const Expr* start_expr(SlotImpl& s) {
    if (sd.draining_) return s.pol.draining_start.get();
    return s.pol.start.get();
  }

  // START for a request ad (claim or job): must be true; also the resources must fit.
  bool start_for(SlotImpl& s, ClassAd* req) {
    return truthy(eval_with(s, start_expr(s), req));
  }

  double rank_for(SlotImpl& s, ClassAd* req) {
    double r = 0;
    if (!number(eval_with(s, s.pol.rank.get(), req), &r)) r = 0;
    return r;
  }

  // ---- retirement and vacate time math ------------------------------------------------------

  // HTCONDOR: ep-policy "MAXJOBRETIREMENTTIME": machine expression in the job's context; the
  // job's own MaxJobRetirementTime may only take less.
  double max_retirement(SlotImpl& s) {
    double m = 0;
    if (!number(eval_job(s, s.pol.mjrt.get()), &m)) m = 0;
    if (s.has_job && s.job.ad) {
      const Expr* je = s.job.ad->lookup("MaxJobRetirementTime");
      if (je) {
        double j;
        if (number(s.job.ad->evaluate_expr(je), &j) && j < m) m = j;
      }
    }
    return m < 0 ? 0 : m;
  }

  int64_t suspended_so_far(SlotImpl& s) {
    int64_t t = s.job.suspended_total;
    if (s.job.suspend_since >= 0) t += now - s.job.suspend_since;
    return t;
  }

  // End of retirement: JobStart + retirement + suspension (suspension does not count).
  int64_t retirement_end(SlotImpl& s) {
    if (s.retire_infinite) return kNever;
    int64_t end;
    if (s.retire == Retire::kLease || (s.retire == Retire::kDrain && sd.drain_mode_ == DrainMode::kQuick)) {
      end = s.retire_end_override == kNever ? now : s.retire_end_override;
      return end;
    }
    double m = max_retirement(s);
    double e = static_cast<double>(s.job.start) + m + static_cast<double>(suspended_so_far(s));
    end = e > 9e18 ? kNever : static_cast<int64_t>(e);
    if (s.retire_end_override != kNever) {
      if (s.retire == Retire::kDrain) return s.retire_end_override;  // common end
      if (s.retire_end_override < end) end = s.retire_end_override;
    }
    return end;
  }

  // HTCONDOR: ep-policy "MachineMaxVacateTime ... retirement time will be converted into
  // vacating time, up to the amount of JobMaxVacateTime".
  int64_t vacate_time(SlotImpl& s, int64_t remaining) {
    int64_t m = s.job.mmvt;
    int64_t j = s.job.jmvt;
    if (j < 0) return m;
    if (j <= m) return j;
    if (remaining > m) return remaining < j ? remaining : j;
    return m;
  }
  // The X at which the soft kill comes before the end of retirement.
  int64_t softkill_lead(SlotImpl& s) { return s.job.jmvt >= 0 ? s.job.jmvt : s.job.mmvt; }

  int64_t retirement_remaining(SlotImpl& s) {
    int64_t end = retirement_end(s);
    if (end == kNever) return kNever;
    return end - now;
  }

  bool retirement_over(SlotImpl& s) {
    int64_t r = retirement_remaining(s);
    if (r == kNever) return false;
    return r <= vacate_time(s, r);
  }

  // ---- triggers ----------------------------------------------------------------------------

  // HTCONDOR: ep-policy "Defragmenting Dynamic Slots": DEFRAG_DRAINING_START_EXPR / startd
  // DEFAULT_DRAINING_START_EXPR: while a job that was running when a graceful drain began is
  // still retiring, START is the draining expression; when the last one is done, the jobs
  // accepted while draining are evicted with no retirement.
  bool drain_admitting() {
    if (!sd.draining_ || sd.drain_mode_ != DrainMode::kGraceful || sd.slots_.empty()) return false;
    if (!sd.slots_[0]->pol.has_draining_start) return false;
    for (auto& p : sd.slots_) {
      if (!p->dead && p->has_job && p->retire == Retire::kDrain && !p->accepted_while_draining)
        return true;
    }
    return false;
  }

  void drain_evict_admitted() {
    if (!sd.draining_ || drain_admitting()) return;
    for (auto& p : sd.slots_) {
      SlotImpl& t = *p;
      if (t.dead || !t.accepted_while_draining || t.state != State::kClaimed) continue;
      if (t.activity == Activity::kIdle) {
        t.end_requested = true;
        t.end_cause = "draining";
      } else if (t.retire != Retire::kDrain) {
        t.retire = Retire::kDrain;
        t.retire_end_override = now;
      }
    }
  }

  bool all_drained() {
    for (auto& p : sd.slots_) {
      SlotImpl& o = *p;
      if (o.dead) continue;
      if (o.dynamic) return false;
      if (o.state != State::kDrained) return false;
    }
    return true;
  }

  bool holds(Trigger t, SlotImpl& s) {
    switch (t) {
      case Trigger::kIsOwnerFalse:
        return !sd.shutting_down_ && !truthy(eval_local(s, s.pol.is_owner.get()));
      case Trigger::kIsOwnerTrue:
        return truthy(eval_local(s, s.pol.is_owner.get()));
      case Trigger::kDrainRequested:
        // With a draining START expression, idle slots keep taking (interruptible) jobs until
        // the last job retiring for the drain is done.
        return sd.draining_ && !sd.shutting_down_ && !drain_admitting();
      case Trigger::kShutdown:
        return sd.shutting_down_;
      case Trigger::kRunBenchmarks:
        // HTCONDOR: ep-policy "If RUNBENCHMARKS is defined and set to something other than
        // FALSE, the startd will automatically run one set of benchmarks when it first starts"
        if (sd.shutting_down_ || !s.pol.runbench || s.dynamic) return false;
        return !s.benchmarked || truthy(eval_local(s, s.pol.runbench.get()));
      case Trigger::kBenchmarkDone:
        return now >= s.benchmark_end;
      case Trigger::kClaimAccepted:
      case Trigger::kClaimInOwner:
        return s.claim_pending;
      case Trigger::kMatchAccepted:
        return s.match_pending;
      case Trigger::kStartBackfill: {
        if (sd.shutting_down_ || s.dynamic || s.partitionable || !sd.enable_backfill_) return false;
        return truthy(eval_local(s, s.pol.start_backfill.get()));
      }
      case Trigger::kMatchEnds:
        if (s.end_requested) return true;
        if (now >= s.match_deadline) {
          s.end_cause = "MATCH_TIMEOUT expired";
          return true;
        }
        if (is_false(eval_local(s, start_expr(s)))) {
          s.end_cause = "START is false";
          return true;
        }
        return false;
      case Trigger::kClaimEnds:
        if (s.end_requested) return true;
        if (s.has_preempting) {
          s.end_cause = "preempted by a claim of higher RANK";
          return true;
        }
        if (s.claim.lease_expires <= now) {
          s.end_cause = "claim lease expired";
          return true;
        }
        if (s.claim.activations > 0 && s.pol.claim_worklife >= 0 &&
            now - s.claim.start > s.pol.claim_worklife) {
          s.end_cause = "CLAIM_WORKLIFE expired";
          return true;
        }
        if (is_false(eval_with(s, start_expr(s), s.claim.ad.get()))) {
          s.end_cause = "START is false";
          return true;
        }
        return false;
      case Trigger::kActivated:
        return s.activate_pending;
      case Trigger::kStarterExited:
        return !s.job.starter_running;
      case Trigger::kFastEviction:
        return s.fast;
      case Trigger::kSuspend:
        return want_suspend(s) && suspend(s);
      case Trigger::kRetire:
        if (s.retire != Retire::kNone) return true;
        if (s.claim.lease_expires <= now) {
          s.retire = Retire::kLease;
          return true;
        }
        // HTCONDOR: ep-policy "If WANT_SUSPEND is any value other than TRUE, then the startd
        // will evaluate the PREEMPT expression"
        if (!want_suspend(s) && preempt(s)) {
          s.retire = Retire::kPreempt;
          return true;
        }
        return false;
      case Trigger::kContinue:
        return cont(s);
      case Trigger::kContinueRetiring:
        return s.retire != Retire::kNone && cont(s);
      case Trigger::kPreemptSuspended:
        if (preempt(s)) {
          s.retire = Retire::kPreempt;
          return true;
        }
        return false;
      case Trigger::kRetirementOver:
        // HTCONDOR: ep-policy "The Claimed State and Leases": an expired lease evicts the job.
        if (s.has_claim && s.claim.lease_expires <= now && s.retire != Retire::kLease) {
          s.retire = Retire::kLease;
          s.retire_end_override = kNever;
        }
        return s.retire != Retire::kNone && retirement_over(s);
      case Trigger::kUnretire:
        return (s.retire == Retire::kRank && !s.has_preempting) ||
               (s.retire == Retire::kDrain && !sd.draining_);
      case Trigger::kKillNow:
        if (now >= s.vacate_deadline) {
          s.end_cause = "vacate time expired";
          return true;
        }
        if (kill(s)) {
          s.end_cause = "KILL is true";
          return true;
        }
        return false;
      case Trigger::kGoneToNewClaim:
        return !s.job.starter_running && s.has_preempting && !sd.draining_ && !sd.shutting_down_;
      case Trigger::kGoneToOwner:
        return !s.job.starter_running;
      case Trigger::kBackfillSpawned:
        return s.bf_running;
      case Trigger::kBackfillEvict:
        if (s.claim_pending || s.match_pending || s.end_requested || sd.shutting_down_ ||
            sd.draining_)
          return true;
        if (truthy(eval_local(s, s.pol.evict_backfill.get()))) {
          s.bf_evict_to_owner = true;
          s.bf_cause = "EVICT_BACKFILL is true";
          return true;
        }
        return false;
      case Trigger::kBackfillExited:
        return !s.bf_running;
      case Trigger::kBackfillToOwner:
        return s.bf_evict_to_owner || sd.shutting_down_ || sd.draining_ || s.end_requested;
      case Trigger::kBackfillToClaimed:
        return s.claim_pending;
      case Trigger::kBackfillToMatched:
        return s.match_pending;
      case Trigger::kAllDrained:
        return all_drained();
      case Trigger::kDrainCanceled:
        return !sd.draining_ || sd.shutting_down_;
    }
    return false;
  }

  struct Ctx {
    Engine* e;
    SlotImpl* s;
  };
  static bool holds_cb(Trigger t, void* ctx) {
    Ctx* c = static_cast<Ctx*>(ctx);
    return c->e->holds(t, *c->s);
  }

  std::string cause_for(const TransitionRow& r, SlotImpl& s) {
    switch (r.trigger) {
      case Trigger::kMatchEnds:
      case Trigger::kClaimEnds:
      case Trigger::kKillNow:
        return s.end_cause.empty() ? trigger_text(r.trigger) : s.end_cause;
      case Trigger::kRetire:
      case Trigger::kPreemptSuspended:
        return retire_text(s.retire);
      case Trigger::kFastEviction:
        return s.end_cause.empty() ? "fast eviction" : s.end_cause;
      case Trigger::kRetirementOver:
        if (s.retire == Retire::kLease) return "claim lease expired";
        return "retirement over (soft kill before its end)";
      case Trigger::kDrainRequested:
        return "draining";
      case Trigger::kDrainCanceled:
        if (sd.shutting_down_) return "shutdown";
        return sd.drain_finalized_ ? "draining finalized" : "draining canceled";
      case Trigger::kBackfillEvict:
      case Trigger::kBackfillToOwner:
        return s.bf_cause.empty() ? trigger_text(r.trigger) : s.bf_cause;
      default:
        return trigger_text(r.trigger);
    }
  }

  // ---- ads ---------------------------------------------------------------------------------

  void ins(SlotImpl& s, const char* name, Value v) { s.ad->insert_value(name, std::move(v)); }

  // Time-dependent attributes are expressions of time() (set at transitions), so a poll only
  // has to touch the few literals that really changed.
  void refresh_time(SlotImpl& s) {
    if (s.pub_badput != sd.drain_badput_ || s.pub_unclaimed != sd.drain_unclaimed_) {
      s.pub_badput = sd.drain_badput_;
      s.pub_unclaimed = sd.drain_unclaimed_;
      ins(s, "TotalMachineDrainingBadput", Value::integer(static_cast<int64_t>(sd.drain_badput_)));
      ins(s, "TotalMachineDrainingUnclaimedTime",
          Value::integer(static_cast<int64_t>(sd.drain_unclaimed_)));
    }
  }

  void insert_text(SlotImpl& s, const char* name, const std::string& text) {
    ExprPtr e = classad::parse_expr(text);
    if (e) s.ad->insert(name, e.release());
  }

  void refresh_job_times(SlotImpl& s) {
    char buf[256];
    if (s.has_job) {
      std::snprintf(buf, sizeof buf,
                    "%lld + ifThenElse(Activity == \"Suspended\", time() - %lld, 0)",
                    static_cast<long long>(s.job.suspended_total),
                    static_cast<long long>(s.job.suspend_since >= 0 ? s.job.suspend_since : now));
      insert_text(s, "TotalJobSuspendTime", buf);
      std::snprintf(buf, sizeof buf, "time() - %lld - TotalJobSuspendTime",
                    static_cast<long long>(s.job.start));
      insert_text(s, "TotalJobRunTime", buf);
      int64_t r = retirement_remaining(s);
      ins(s, "RetirementTimeRemaining", Value::integer(r == kNever ? INT32_MAX : (r < 0 ? 0 : r)));
    }
    if (s.has_claim) {
      std::snprintf(buf, sizeof buf, "%lld + ifThenElse(JobStart =!= undefined, TotalJobRunTime, 0)",
                    static_cast<long long>(s.total_claim_run));
      insert_text(s, "TotalClaimRunTime", buf);
      std::snprintf(buf, sizeof buf,
                    "%lld + ifThenElse(JobStart =!= undefined, TotalJobSuspendTime, 0)",
                    static_cast<long long>(s.total_claim_suspend));
      insert_text(s, "TotalClaimSuspendTime", buf);
    }
  }

  void insert_expr(SlotImpl& s, const char* name, const Expr* e) {
    if (!e) {
      s.ad->remove(name);
      return;
    }
    classad::expr_ref(const_cast<Expr*>(e));
    s.ad->insert(name, const_cast<Expr*>(e));
  }

  void insert_policy(SlotImpl& s) {
    int u = v(s);
    insert_expr(s, "Start", start_expr(s));
    insert_expr(s, "IS_OWNER", s.pol.is_owner.get());
    insert_expr(s, "Rank", s.pol.rank.get());
    insert_expr(s, "SUSPEND", s.pol.suspend[u].get());
    insert_expr(s, "CONTINUE", s.pol.cont[u].get());
    insert_expr(s, "PREEMPT", s.pol.preempt[u].get());
    insert_expr(s, "KILL", s.pol.kill[u].get());
    insert_expr(s, "WANT_SUSPEND", s.pol.want_suspend[u].get());
    insert_expr(s, "WANT_VACATE", s.pol.want_vacate[u].get());
    insert_expr(s, "MaxJobRetirementTime", s.pol.mjrt.get());
    insert_expr(s, "MachineMaxVacateTime", s.pol.mmvt.get());
  }

  void set_resources(SlotImpl& s) {
    ins(s, "Cpus", Value::integer(s.res.cpus));
    ins(s, "Memory", Value::integer(s.res.memory_mb));
    ins(s, "Disk", Value::integer(s.res.disk_kb));
    ins(s, "VirtualMemory", Value::integer(s.res.swap_kb));
    ins(s, "Swap", Value::integer(s.res.swap_kb));
    ins(s, "TotalSlotCpus", Value::integer(s.total.cpus));
    ins(s, "TotalSlotMemory", Value::integer(s.total.memory_mb));
    ins(s, "TotalSlotDisk", Value::integer(s.total.disk_kb));
    const Layout& L = sd.layout_;
    std::string mres = "Cpus Memory Disk Swap";
    for (size_t i = 0; i < L.resources.size(); ++i) {
      const std::string& n = L.resources[i].name;
      mres += " " + n;
      double have = i < s.res.custom.size() ? s.res.custom[i] : 0;
      double tot = i < s.total.custom.size() ? s.total.custom[i] : 0;
      ins(s, n.c_str(), Value::integer(static_cast<int64_t>(have)));
      ins(s, ("TotalSlot" + n).c_str(), Value::integer(static_cast<int64_t>(tot)));
      ins(s, ("Total" + n).c_str(), Value::integer(static_cast<int64_t>(L.resources[i].total)));
      ins(s, ("Detected" + n).c_str(), Value::integer(static_cast<int64_t>(L.resources[i].total)));
      std::string ids;
      if (i < s.res.ids.size()) {
        for (const std::string& id : s.res.ids[i]) ids += (ids.empty() ? "" : ",") + id;
      }
      if (!L.resources[i].ids.empty()) {
        ins(s, ("Assigned" + n).c_str(), Value::string(ids));
        // Per-device property ads: GPUs_<id> = [ ... ] (nested form).
        if (i < s.res.ids.size()) {
          for (const std::string& id : s.res.ids[i]) {
            for (size_t d = 0; d < L.resources[i].ids.size(); ++d) {
              if (L.resources[i].ids[d] != id || L.resources[i].props[d].empty()) continue;
              AdPtr pa = classad::parse_classad_old(L.resources[i].props[d]);
              if (!pa) continue;
              pa->insert_value("Id", Value::string(id));
              std::string an = n + "_";
              for (char c : id) an += (isalnum(static_cast<unsigned char>(c)) ? c : '_');
              s.ad->insert_value(an, Value::adopt_classad(pa.release()));
            }
          }
        }
      }
    }
    ins(s, "MachineResources", Value::string(mres));
  }

  void refresh(SlotImpl& s) {
    ins(s, "State", Value::string(state_name(s.state)));
    ins(s, "Activity", Value::string(activity_name(s.activity)));
    ins(s, "EnteredCurrentState", Value::integer(s.entered_state));
    ins(s, "EnteredCurrentActivity", Value::integer(s.entered_activity));
    ins(s, "LastBenchmark", Value::integer(static_cast<int64_t>(s.last_benchmark)));
    ins(s, "JobStarts", Value::integer(s.job_starts));
    // HTCONDOR: ep-policy "Matched State ... says that Requirements are False", "Preempting
    // State ... advertises its Requirements expression as False".
    // HTCONDOR: startd "DEFAULT_DRAINING_START_EXPR ... Requirements will be false while draining"
    if (s.state == State::kMatched || s.state == State::kPreempting || sd.shutting_down_ ||
        sd.shut_down_ || (sd.draining_ && !drain_admitting()) || s.state == State::kDrained) {
      ins(s, "Requirements", Value::boolean(false));
    } else {
      static ExprPtr ref = classad::parse_expr("START");
      insert_expr(s, "Requirements", ref.get());
    }
    insert_expr(s, "Start", start_expr(s));
    if (s.has_claim) {
      ins(s, "CurrentRank", Value::real(s.claim.rank));
      ins(s, "PublicClaimId", Value::string(s.claim.id));
      std::string owner, user;
      ClassAd* t = s.claim.ad.get();
      if (s.has_job && s.job.ad) t = s.job.ad.get();
      if (t && t->evaluate_string("Owner", owner)) {
        ins(s, "RemoteOwner", Value::string(owner));
        if (!t->evaluate_string("User", user)) user = owner;
        ins(s, "RemoteUser", Value::string(user));
      }
    } else {
      ins(s, "CurrentRank", Value::real(0));
      s.ad->remove("PublicClaimId");
      s.ad->remove("RemoteOwner");
      s.ad->remove("RemoteUser");
    }
    if (s.has_job) {
      ins(s, "JobStart", Value::integer(s.job.start));
      int64_t c = 0, p = 0;
      std::string gid;
      if (s.job.ad && s.job.ad->evaluate_int("ClusterId", c)) {
        s.job.ad->evaluate_int("ProcId", p);
        char buf[48];
        std::snprintf(buf, sizeof buf, "%lld.%lld", static_cast<long long>(c),
                      static_cast<long long>(p));
        ins(s, "JobId", Value::string(buf));
      }
      int64_t uni = 0;
      if (s.job.ad && s.job.ad->evaluate_int("JobUniverse", uni)) ins(s, "JobUniverse", Value::integer(uni));
    } else {
      for (const char* n : {"JobStart", "JobId", "JobUniverse", "TotalJobRunTime",
                            "TotalJobSuspendTime", "RetirementTimeRemaining"})
        s.ad->remove(n);
    }
    if (!s.has_claim) {
      s.ad->remove("TotalClaimRunTime");
      s.ad->remove("TotalClaimSuspendTime");
    }
    set_resources(s);
    refresh_job_times(s);
    refresh_time(s);
    if (s.partitionable) refresh_rollup(s);
    if (s.dynamic && s.parent) refresh_rollup(*s.parent);
  }

  // HTCONDOR: startd ADVERTISE_PSLOT_ROLLUP_INFORMATION: the partitionable slot lists its
  // dynamic slots' Child* attributes.
  void refresh_rollup(SlotImpl& p) {
    if (!p.partitionable) return;
    struct Col {
      const char* name;
      const char* attr;
      std::string text;
    } cols[] = {{"ChildName", "Name", ""},       {"ChildState", "State", ""},
                {"ChildActivity", "Activity", ""}, {"ChildCpus", "Cpus", ""},
                {"ChildMemory", "Memory", ""},     {"ChildDisk", "Disk", ""},
                {"ChildRemoteOwner", "RemoteOwner", ""}, {"ChildRemoteUser", "RemoteUser", ""},
                {"ChildCurrentRank", "CurrentRank", ""},
                {"ChildEnteredCurrentState", "EnteredCurrentState", ""},
                {"ChildDSlotId", "DSlotId", ""}};
    int n = 0;
    for (auto& d : sd.slots_) {
      if (d->dead || d->parent != &p) continue;
      for (Col& c : cols) {
        if (n) c.text += ",";
        c.text += classad::to_string(d->ad->evaluate_attr(c.attr));
      }
      ++n;
    }
    for (Col& c : cols) insert_text(p, c.name, "{" + c.text + "}");
    ins(p, "NumDynamicSlots", Value::integer(n));
    ins(p, "PslotRollupInformation", Value::boolean(true));
  }

  // slot<N>_<attr> cross-slot attributes (STARTD_SLOT_ATTRS).
  void refresh_cross() {
    if (sd.slot_attrs_.empty()) return;
    for (auto& src : sd.slots_) {
      if (src->dead) continue;
      for (const std::string& a : sd.slot_attrs_) {
        const Expr* e = src->ad->lookup(a);
        std::string n = src->name + "_" + a;
        for (auto& dst : sd.slots_) {
          if (dst->dead) continue;
          if (!e) {
            dst->ad->remove(n);
          } else {
            classad::expr_ref(const_cast<Expr*>(e));
            dst->ad->insert(n, const_cast<Expr*>(e));
          }
        }
      }
    }
  }

  // ---- transitions -------------------------------------------------------------------------

  void record(SlotImpl& s, State fs, Activity fa, int number, const std::string& cause) {
    TransitionRecord r;
    r.time = now;
    r.slot = s.name;
    r.from_state = fs;
    r.from_activity = fa;
    r.to_state = s.state;
    r.to_activity = s.activity;
    r.number = number;
    r.cause = cause;
    out->order.push_back(static_cast<int>(out->transitions.size()));
    out->transitions.push_back(std::move(r));
  }

  void end_job_accounting(SlotImpl& s, bool evicted) {
    if (!s.has_job) return;
    int64_t susp = suspended_so_far(s);
    int64_t run = now - s.job.start - susp;
    s.total_claim_run += run;
    s.total_claim_suspend += susp;
    s.total_job_run = run;
    if (evicted && (s.retire == Retire::kDrain || (sd.draining_ && s.fast))) {
      sd.drain_badput_ += static_cast<double>(run) * (s.res.cpus > 0 ? s.res.cpus : 1);
    }
    s.has_job = false;
    s.job = Job{};
    s.flag_ignores_softkill = false;
    s.flag_stuck = false;
    insert_policy(s);
  }

  void clear_claim(SlotImpl& s, const char* why) {
    if (s.has_claim) act(s, ActionKind::kNotifyClaimant, std::string("claim ") + s.claim.id + " broken: " + why);
    s.has_claim = false;
    s.claim = Claim{};
    s.total_claim_run = s.total_claim_suspend = 0;
    s.accepted_while_draining = false;
    ins(s, "AcceptedWhileDraining", Value::boolean(false));
  }

  void start_job(SlotImpl& s) {
    s.activate_pending = false;
    s.has_job = true;
    s.job.start = now;
    s.job.starter_running = true;
    s.job.vanilla = false;
    int64_t uni = 0;
    if (s.job.ad && s.job.ad->evaluate_int("JobUniverse", uni)) s.job.vanilla = uni == 5;
    std::string sig;
    if (s.job.ad && s.job.ad->evaluate_string("KillSig", sig) && !sig.empty()) s.job.kill_sig = sig;
    insert_policy(s);
    double m = 600;
    if (!number(eval_job(s, s.pol.mmvt.get()), &m)) m = 600;
    s.job.mmvt = m < 0 ? 0 : static_cast<int64_t>(m);
    s.job.jmvt = -1;
    if (s.job.ad) {
      const Expr* je = s.job.ad->lookup("JobMaxVacateTime");
      double j;
      if (je && number(s.job.ad->evaluate_expr(je), &j)) s.job.jmvt = j < 0 ? 0 : static_cast<int64_t>(j);
    }
    // HTCONDOR: ep-policy "The length of the claim lease is the job's ClassAd attribute
    // JobLeaseDuration": a job that brings one sets the lease from its start.
    int64_t jl = 0;
    if (s.job.ad && s.job.ad->evaluate_int("JobLeaseDuration", jl) && jl > 0) {
      s.claim.lease = jl;
      s.claim.lease_expires = now + jl;
    }
    s.claim.activations++;
    s.job_starts++;
    if (s.adopt_start >= 0) {
      // The starter outlived the previous agent and still runs the job.
      s.job.start = s.adopt_start;
      s.adopt_start = -1;
      return;
    }
    act(s, ActionKind::kSpawnStarter, s.job.vanilla ? "vanilla" : "");
  }

  void enter_preempting(SlotImpl& s) {
    // Called after the move into Preempting/<act>; sends the signals for the activity.
    if (s.activity == Activity::kVacating) {
      if (s.has_job && s.job.starter_running) {
        if (s.job.suspend_since >= 0) resume(s);
        int64_t r = s.retire == Retire::kNone ? 0 : retirement_remaining(s);
        if (r == kNever || r < 0) r = 0;
        s.vacate_deadline = now + vacate_time(s, r);
        s.job.soft_killed = true;
        act(s, ActionKind::kSoftKill, s.job.kill_sig);
      } else {
        s.vacate_deadline = kNever;
      }
    } else if (s.activity == Activity::kKilling) {
      if (s.has_job && s.job.starter_running) {
        if (s.job.suspend_since >= 0) resume(s);
        s.job.hard_killed = true;
        s.kill_deadline = now + s.pol.killing_timeout;
        act(s, ActionKind::kHardKill, "SIGKILL");
      }
    }
  }

  void resume(SlotImpl& s) {
    if (s.job.suspend_since >= 0) {
      s.job.suspended_total += now - s.job.suspend_since;
      s.job.suspend_since = -1;
    }
    act(s, ActionKind::kContinue);
  }

  // Moves `s` along `r`, running the entry/exit work of the move. Returns false when the
  // slot went away (a dynamic slot deleted on its way back to Owner).
  bool apply(SlotImpl& s, const TransitionRow& r) {
    State fs = s.state;
    Activity fa = s.activity;
    std::string cause = cause_for(r, s);
    State ts = r.to_state;
    Activity ta = r.to_activity;
    if (ts == State::kPreempting && fs == State::kClaimed) {
      // HTCONDOR: ep-policy "Depending on the value of WANT_VACATE ... Vacating ... Killing"
      if (s.fast || (r.trigger == Trigger::kFastEviction)) {
        ta = Activity::kKilling;
      } else if (s.has_job && s.job.starter_running) {
        ta = want_vacate(s) ? Activity::kVacating : Activity::kKilling;
      } else {
        ta = Activity::kVacating;
      }
    }
    // Leaving an activity.
    if (fa == Activity::kSuspended && fs == State::kClaimed && ts == State::kClaimed) resume(s);
    if (fa == Activity::kBenchmarking) {
      s.benchmarked = true;
      s.last_benchmark = static_cast<double>(now);
      s.benchmark_end = kNever;
    }
    if (fs == State::kMatched) {
      s.match_deadline = kNever;
      s.match_pending = false;
    }
    if (fs == State::kPreempting) {
      s.vacate_deadline = s.kill_deadline = kNever;
    }
    s.state = ts;
    s.activity = ta;
    if (ts != fs) s.entered_state = now;
    if (ta != fa || ts != fs) s.entered_activity = now;
    record(s, fs, fa, r.number, cause);

    // Entering.
    switch (r.number == 0 && r.trigger == Trigger::kClaimInOwner ? 5 : r.number) {
      case 3:
        s.benchmark_end = now + 1;
        act(s, ActionKind::kRunBenchmarks);
        break;
      case 5:
      case 9:
      case 31:
        s.claim = std::move(s.pending_claim);
        s.pending_claim = Claim{};
        s.has_claim = true;
        s.claim_pending = false;
        s.match_pending = false;
        s.accepted_while_draining = sd.draining_;
        ins(s, "AcceptedWhileDraining", Value::boolean(sd.draining_));
        break;
      case 6:
      case 32:
        s.match_pending = false;
        s.match_deadline = now + s.pol.match_timeout;
        break;
      case 11:
        start_job(s);
        break;
      case 12:
        end_job_accounting(s, false);
        break;
      case 14:
      case 20:
        s.job.suspend_since = now;
        act(s, ActionKind::kSuspend);
        break;
      case 19:
        s.retire = Retire::kNone;
        s.retire_end_override = kNever;
        break;
      case 21:
        enter_preempting(s);
        break;
      case 23:
      case 24: {
        end_job_accounting(s, true);
        clear_claim(s, "preempted by a better claim");
        s.claim = std::move(s.preempting);
        s.preempting = Claim{};
        s.has_preempting = false;
        s.has_claim = true;
        reset_eviction(s);
        break;
      }
      case 22:
      case 25: {
        std::string why = !s.end_cause.empty() ? s.end_cause
                          : s.retire != Retire::kNone ? retire_text(s.retire)
                                                      : "preempted";
        end_job_accounting(s, true);
        clear_claim(s, why.c_str());
        if (s.has_preempting) {
          act(s, ActionKind::kNotifyClaimant, "preempting claim " + s.preempting.id + " dropped");
          s.has_preempting = false;
          s.preempting = Claim{};
        }
        reset_eviction(s);
        break;
      }
      case 26:
        break;
      case 28:
        act(s, ActionKind::kKillBackfill);
        if (s.bf_cause.empty()) {
          s.bf_cause = s.claim_pending     ? "claimed by schedd"
                       : s.match_pending   ? "matched by negotiator"
                       : sd.shutting_down_ ? "shutdown"
                       : sd.draining_      ? "draining"
                                           : "vacate";
        }
        if (!s.claim_pending && !s.match_pending) s.bf_evict_to_owner = true;
        break;
      case 30:
        s.bf_evict_to_owner = false;
        s.bf_cause.clear();
        s.end_requested = false;
        break;
      case 36:
      case 37:
        break;
      default:
        break;
    }
    if (ts == State::kBackfill && ta == Activity::kIdle && !s.bf_running && !s.bf_evict_to_owner &&
        !s.claim_pending && !s.match_pending && r.number != 29) {
      s.bf_running = true;
      act(s, ActionKind::kSpawnBackfill);
    }
    if (ts == State::kPreempting && fs == State::kClaimed) {
      if (s.has_job && s.job.starter_running && s.retire == Retire::kNone && !s.fast)
        s.retire = Retire::kVacate;
      enter_preempting(s);
    }
    if (ts == State::kMatched && fs != State::kMatched) s.end_requested = false;
    refresh(s);
    act(s, ActionKind::kPublishAds);
    // A dynamic slot that has no claim left is deleted and its resources go back.
    if (s.dynamic && (ts == State::kOwner || ts == State::kUnclaimed)) {
      delete_dslot(s);
      return false;
    }
    return true;
  }

  void reset_eviction(SlotImpl& s) {
    s.retire = Retire::kNone;
    s.retire_end_override = kNever;
    s.retire_infinite = false;
    s.fast = false;
    s.end_requested = false;
    s.end_cause.clear();
    s.vacate_deadline = s.kill_deadline = kNever;
  }

  void delete_dslot(SlotImpl& s) {
    SlotImpl* p = s.parent;
    p->res.cpus += s.res.cpus;
    p->res.memory_mb += s.res.memory_mb;
    p->res.disk_kb += s.res.disk_kb;
    for (size_t i = 0; i < s.res.custom.size() && i < p->res.custom.size(); ++i) {
      p->res.custom[i] += s.res.custom[i];
      for (const std::string& id : s.res.ids[i]) p->res.ids[i].push_back(id);
    }
    s.dead = true;
    char buf[160];
    std::snprintf(buf, sizeof buf, "resources returned to %s (cpus=%d memory=%lld disk=%lld)",
                  p->name.c_str(), s.res.cpus, static_cast<long long>(s.res.memory_mb),
                  static_cast<long long>(s.res.disk_kb));
    act(s, ActionKind::kDeleteSlot, buf);
    refresh(*p);
    act(*p, ActionKind::kPublishAds);
  }

  // Follows transitions of one slot until none applies.
  // A policy that flips back and forth (SUSPEND and CONTINUE both true) moves once per
  // evaluation: a chain stops before revisiting a state/activity it has left.
  void settle(SlotImpl& s) {
    uint64_t seen = 0;
    for (int guard = 0; guard < 64 && !s.dead; ++guard) {
      if (sd.shut_down_) return;
      seen |= uint64_t{1} << (static_cast<int>(s.state) * 8 + static_cast<int>(s.activity));
      Ctx c{this, &s};
      const TransitionRow* r = transition_step(s.state, s.activity, holds_cb, &c);
      if (!r) return;
      uint64_t to = uint64_t{1} << (static_cast<int>(r->to_state) * 8 + static_cast<int>(r->to_activity));
      if ((seen & to) && r->number != 1 && r->number != 29 && r->number != 23 && r->number != 24 &&
          r->number != 12 && r->number != 4 && r->number != 26)
        return;
      if (!apply(s, *r)) return;
      refresh_cross();
    }
  }

  void killing_timeout(SlotImpl& s) {
    if (s.state == State::kPreempting && s.activity == Activity::kKilling && s.has_job &&
        s.job.starter_running && !s.job.starter_sigkilled && now >= s.kill_deadline) {
      s.job.starter_sigkilled = true;
      act(s, ActionKind::kKillStarter, "KILLING_TIMEOUT expired");
    }
  }

  // HTCONDOR: ep-policy "the request ... asks for draining to be automatically finalized once
  // all slots have finished draining" (transition 34).
  bool finalize_drain() {
    if (!sd.draining_ || !sd.drain_resume_) return false;
    for (auto& p : sd.slots_) {
      if (p->dead) continue;
      if (p->dynamic || p->state != State::kDrained || p->activity != Activity::kIdle) return false;
    }
    sd.draining_ = false;
    sd.drain_finalized_ = true;
    for (auto& p : sd.slots_) {
      if (p->dead) continue;
      refresh(*p);
      settle(*p);
    }
    return true;
  }

  void check_shutdown_done() {
    if (!sd.shutting_down_ || sd.shut_down_) return;
    for (auto& p : sd.slots_) {
      if (p->dead) continue;
      if (p->dynamic || p->state != State::kOwner || p->has_job || p->bf_running) return;
    }
    sd.shut_down_ = true;
    for (auto& p : sd.slots_) {
      if (p->dead) continue;
      refresh(*p);
    }
    if (!sd.slots_.empty()) act(*sd.slots_[0], ActionKind::kExit, "shutdown complete");
  }

  void accounting() {
    int64_t dt = now - sd.acct_time_;
    sd.acct_time_ = now;
    if (!sd.draining_ || dt <= 0) return;
    // HTCONDOR: machine-classad-attributes "TotalMachineDrainingUnclaimedTime": cpu-seconds
    // not used because of draining.
    int idle_cpus = 0;
    for (auto& p : sd.slots_) {
      if (p->dead) continue;
      if (p->has_job && p->job.starter_running) continue;
      if (p->partitionable) {
        idle_cpus += p->res.cpus;
      } else {
        idle_cpus += p->res.cpus;
      }
    }
    sd.drain_unclaimed_ += static_cast<double>(idle_cpus) * static_cast<double>(dt);
  }

  // STARTD_LATCH_EXPRS: <Name>Value is the sampled value, <Name>Time when it last changed.
  void latch(SlotImpl& s) {
    for (const std::string& n : sd.latch_exprs_) {
      const Expr* e = s.ad->lookup(n);
      if (!e) continue;
      Value v = s.ad->evaluate_expr(e);
      std::string vn = n + "Value", tn = n + "Time";
      const Expr* old = s.ad->lookup(vn);
      std::string before = old ? classad::to_string(s.ad->evaluate_attr(vn)) : "";
      Value num = v;
      if (v.is_boolean()) num = Value::integer(v.as_boolean() ? 1 : 0);
      std::string after = classad::to_string(num);
      if (!old || before != after) {
        s.ad->insert_value(vn, num);
        s.ad->insert_value(tn, Value::integer(now));
      }
    }
  }

  void evaluate_all() {
    if (sd.shut_down_) return;
    accounting();
    for (size_t i = 0; i < sd.slots_.size(); ++i) {
      SlotImpl& s = *sd.slots_[i];
      if (s.dead) continue;
      refresh_time(s);
      latch(s);
    }
    drain_evict_admitted();
    // HTCONDOR: startd UPDATE_INTERVAL: every slot's ad goes to the collector periodically
    // (and on every state change, which apply() does).
    if (now >= sd.next_update_) {
      for (auto& p : sd.slots_) {
        if (!p->dead) act(*p, ActionKind::kPublishAds, "periodic");
      }
      while (sd.next_update_ <= now) sd.next_update_ += sd.update_interval_;
    }
    for (int round = 0; round < 8; ++round) {
      size_t before = out->transitions.size();
      for (size_t i = 0; i < sd.slots_.size(); ++i) {
        SlotImpl& s = *sd.slots_[i];
        if (s.dead) continue;
        killing_timeout(s);
        settle(s);
      }
      finalize_drain();
      check_shutdown_done();
      if (out->transitions.size() == before) break;
    }
    compact();
  }

  void compact() {
    size_t w = 0;
    for (size_t i = 0; i < sd.slots_.size(); ++i) {
      if (sd.slots_[i]->dead) continue;
      if (w != i) sd.slots_[w] = std::move(sd.slots_[i]);
      ++w;
    }
    sd.slots_.resize(w);
  }
};

// ---------------------------------------------------------------------------------------------

Startd::Startd(const config::Config& cfg, const MachineFacts& facts, const Clock& clock)
    : cfg_(cfg), facts_(facts), clock_(clock) {}

Startd::~Startd() = default;

namespace {

bool cfg_int(const config::Config& cfg, const char* name, int64_t* out) {
  std::string v;
  if (!cfg.get(name, &v)) return false;
  ExprPtr e = classad::parse_expr(trim(v));
  if (!e) return false;
  double d;
  if (!number(classad::evaluate(e.get()), &d)) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

// Parses the slot's value of `name` (SLOT<N>_/SLOT_TYPE_<N>_ overrides; `_VANILLA` when asked).
bool policy_expr(const config::Config& cfg, const char* name, bool vanilla, int slot, int type,
                 const char* dflt, ExprPtr* out, std::string* err) {
  config::Entry e;
  std::string text;
  bool found = vanilla ? cfg.lookup_vanilla(name, true, slot, type, &e)
                       : cfg.lookup_slot(name, slot, type, &e);
  if (found) {
    config::Status st;
    if (!cfg.get(e.name, &text, &st)) {
      *err = st.message.empty() ? std::string(name) + ": cannot expand" : st.message;
      return false;
    }
  } else if (dflt) {
    text = dflt;
  } else {
    *out = ExprPtr();
    return true;
  }
  text = trim(text);
  if (text.empty()) {
    if (!dflt) {
      *out = ExprPtr();
      return true;
    }
    text = dflt;
  }
  classad::ParseError pe;
  *out = classad::parse_expr(text, &pe);
  if (!*out) {
    *err = std::string(found ? e.name : name) + " = " + text + ": " + pe.to_string();
    return false;
  }
  return true;
}

bool load_policy(const config::Config& cfg, int slot, int type, Policy* p, std::string* err) {
  struct One {
    const char* name;
    ExprPtr* dst;
    const char* dflt;
  };
  One ones[] = {
      {"START", &p->start, "True"},
      {"IS_OWNER", &p->is_owner, "False"},
      {"RANK", &p->rank, "0"},
      {"MAXJOBRETIREMENTTIME", &p->mjrt, "0"},
      {"MachineMaxVacateTime", &p->mmvt, "600"},
      {"RUNBENCHMARKS", &p->runbench, nullptr},
      {"START_BACKFILL", &p->start_backfill, "False"},
      {"EVICT_BACKFILL", &p->evict_backfill, "False"},
  };
  for (One& o : ones) {
    if (!policy_expr(cfg, o.name, false, slot, type, o.dflt, o.dst, err)) return false;
  }
  if (p->runbench) {
    // RUNBENCHMARKS = False disables benchmarks (the simulator's default).
    Value rv = classad::evaluate(p->runbench.get());
    if (rv.is_boolean() && !rv.as_boolean()) p->runbench = ExprPtr();
  }
  struct Two {
    const char* name;
    ExprPtr* dst;
    const char* dflt;
  };
  Two twos[] = {
      {"SUSPEND", p->suspend, "False"},       {"CONTINUE", p->cont, "True"},
      {"PREEMPT", p->preempt, "False"},       {"KILL", p->kill, "False"},
      {"WANT_SUSPEND", p->want_suspend, "False"}, {"WANT_VACATE", p->want_vacate, "True"},
  };
  for (Two& t : twos) {
    if (!policy_expr(cfg, t.name, false, slot, type, t.dflt, &t.dst[0], err)) return false;
    if (!policy_expr(cfg, t.name, true, slot, type, t.dflt, &t.dst[1], err)) return false;
  }
  std::string ds;
  if (cfg.get("DEFAULT_DRAINING_START_EXPR", &ds) && !trim(ds).empty()) {
    p->draining_start = classad::parse_expr(trim(ds));
    p->has_draining_start = static_cast<bool>(p->draining_start);
  }
  if (!p->draining_start) p->draining_start = classad::parse_expr("undefined");
  int64_t n;
  if (cfg_int(cfg, "CLAIM_WORKLIFE", &n)) p->claim_worklife = n;
  if (cfg_int(cfg, "KILLING_TIMEOUT", &n) && n >= 0) p->killing_timeout = n;
  if (cfg_int(cfg, "MATCH_TIMEOUT", &n) && n >= 0) p->match_timeout = n;
  return true;
}

}  // namespace

static void build_static_ad(Startd& sd, const config::Config& cfg, const MachineFacts& f,
                            SlotImpl& s, int64_t now, std::string* err, bool* ok) {
  s.ad = AdPtr(ClassAd::make());
  ClassAd& ad = *s.ad;
  ad.insert_value("MyType", Value::string("Machine"));
  ad.insert_value("TargetType", Value::string("Job"));
  ad.insert_value("Name", Value::string(s.name + "@" + f.hostname));
  ad.insert_value("Machine", Value::string(f.hostname));
  ad.insert_value("SlotID", Value::integer(s.id));
  ad.insert_value("SlotTypeID", Value::integer(s.dynamic ? s.parent->type_id : s.type_id));
  ad.insert_value("SlotType", Value::string(s.dynamic ? "Dynamic" : s.partitionable ? "Partitionable" : "Static"));
  if (s.partitionable) ad.insert_value("PartitionableSlot", Value::boolean(true));
  if (s.dynamic) {
    ad.insert_value("DynamicSlot", Value::boolean(true));
    ad.insert_value("DSlotId", Value::integer(s.dslot_id));
    ad.insert_value("ParentSlotId", Value::integer(s.parent->id));
  }
  ad.insert_value("Arch", Value::string(f.arch));
  ad.insert_value("OpSys", Value::string(f.opsys));
  ad.insert_value("OpSysAndVer", Value::string(f.opsys_and_ver));
  ad.insert_value("Mips", Value::integer(static_cast<int64_t>(f.mips)));
  ad.insert_value("KFlops", Value::integer(static_cast<int64_t>(f.kflops)));
  ad.insert_value("KeyboardIdle", Value::integer(f.keyboard_idle));
  ad.insert_value("ConsoleIdle", Value::integer(f.console_idle));
  ad.insert_value("LoadAvg", Value::real(f.load_avg));
  ad.insert_value("CondorLoadAvg", Value::real(0));
  ad.insert_value("TotalLoadAvg", Value::real(f.load_avg));
  ad.insert_value("TotalCondorLoadAvg", Value::real(0));
  ad.insert_value("CpuBusyTime", Value::integer(0));
  {
    // CpuBusy as the configured expression (the latch below samples it).
    std::string cb;
    ExprPtr e;
    if (cfg.get("CpuBusy", &cb) && !trim(cb).empty()) e = classad::parse_expr(trim(cb));
    if (e) ad.insert("CpuBusy", e.release());
    else ad.insert_value("CpuBusy", Value::boolean(false));
  }
  ad.insert_value("TotalCpus", Value::integer(sd.layout().slots.empty() ? f.cpus : 0));
  ad.insert_value("DetectedCpus", Value::integer(f.cpus));
  ad.insert_value("DetectedMemory", Value::integer(f.memory_mb));
  ad.insert_value("TotalDisk", Value::integer(f.disk_kb));
  ad.insert_value("DetectedDisk", Value::integer(f.disk_kb));
  ad.insert_value("TotalVirtualMemory", Value::integer(f.swap_kb));
  ad.insert_value("UidDomain", Value::string(f.hostname));
  ad.insert_value("FileSystemDomain", Value::string(f.hostname));
  ad.insert_value("DaemonStartTime", Value::integer(now));
  ad.insert_value("TimeToLive", Value::integer(INT32_MAX));
  // HTCONDOR: ep-policy "Time of Day Policy": ClockMin (minutes since midnight) and ClockDay
  // (Sunday = 0), here in UTC, and the current time, all following time() (the Clock).
  static const char* const kTimeAttrs[][2] = {
      {"CurrentTime", "time()"},
      {"MyCurrentTime", "time()"},
      {"ClockMin", "(time() % 86400) / 60"},
      {"ClockDay", "(time() / 86400 + 4) % 7"},
  };
  for (const auto& kv : kTimeAttrs) {
    ExprPtr ct = classad::parse_expr(kv[1]);
    ad.insert(kv[0], ct.release());
  }
  // WithinResourceLimits as HTCondor advertises it (minus catalogs).
  ExprPtr wrl = classad::parse_expr(
      "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && TARGET.RequestMemory <= "
      "MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk && (TARGET.RequestGPUs =?= "
      "undefined || MY.GPUs >= TARGET.RequestGPUs)");
  ad.insert("WithinResourceLimits", wrl.release());
  // STARTD_ATTRS (+ legacy STARTD_EXPRS) and SLOT<N>_STARTD_ATTRS; values per slot.
  std::vector<std::string> names;
  for (const char* list : {"STARTD_ATTRS", "STARTD_EXPRS"}) {
    std::string v;
    if (cfg.get(list, &v)) {
      for (auto& n : split_list(v)) names.push_back(n);
    }
  }
  {
    char key[48];
    std::snprintf(key, sizeof key, "SLOT%d_STARTD_ATTRS", s.id);
    std::string v;
    if (cfg.get(key, &v)) {
      for (auto& n : split_list(v)) names.push_back(n);
    }
  }
  for (const std::string& n : names) {
    config::Entry e;
    if (!cfg.lookup_slot(n, s.id, s.dynamic ? s.parent->type_id : s.type_id, &e)) continue;
    std::string text;
    if (!cfg.get(e.name, &text)) continue;
    text = trim(text);
    if (text.empty()) continue;
    classad::ParseError pe;
    ExprPtr ex = classad::parse_expr(text, &pe);
    if (!ex) {
      *err = e.source + ": " + e.name + " = " + text + ": " + pe.to_string();
      *ok = false;
      return;
    }
    ad.insert(n, ex.release());
  }
}

bool Startd::init(std::string* err) {
  int64_t n;
  if (cfg_int(cfg_, "POLLING_INTERVAL", &n) && n > 0) polling_interval_ = n;
  if (cfg_int(cfg_, "UPDATE_INTERVAL", &n) && n > 0) update_interval_ = n;
  std::string sa;
  if (cfg_.get("STARTD_SLOT_ATTRS", &sa)) slot_attrs_ = split_list(sa);
  if (cfg_.get("STARTD_VM_ATTRS", &sa)) {
    for (auto& x : split_list(sa)) slot_attrs_.push_back(x);
  }
  if (cfg_.get("STARTD_LATCH_EXPRS", &sa)) latch_exprs_ = split_list(sa);
  if (cfg_.get("ENABLE_BACKFILL", &sa)) {
    sa = trim(sa);
    enable_backfill_ = strcasecmp(sa.c_str(), "true") == 0 || sa == "1";
  }
  if (!layout_build(cfg_, facts_, &layout_, err)) return false;
  start_time_ = acct_time_ = clock_.now();
  next_update_ = start_time_ + update_interval_;
  Output scratch;
  Engine eng{*this, &scratch, clock_.now()};
  for (const SlotSpec& spec : layout_.slots) {
    auto s = std::make_unique<SlotImpl>();
    s->id = spec.id;
    s->type_id = spec.type_id;
    s->partitionable = spec.partitionable;
    s->name = "slot" + std::to_string(spec.id);
    s->res = spec.res;
    s->total = spec.res;
    s->entered_state = s->entered_activity = clock_.now();
    std::string e;
    if (!load_policy(cfg_, s->id, s->type_id, &s->pol, &e)) {
      *err = s->name + ": " + e;
      return false;
    }
    bool ok = true;
    build_static_ad(*this, cfg_, facts_, *s, clock_.now(), err, &ok);
    if (!ok) return false;
    double tc = 0;
    for (const SlotSpec& x : layout_.slots) tc += x.res.cpus;
    s->ad->insert_value("TotalCpus", Value::integer(static_cast<int64_t>(tc)));
    int64_t tm = 0;
    for (const SlotSpec& x : layout_.slots) tm += x.res.memory_mb;
    s->ad->insert_value("TotalMemory", Value::integer(tm));
    s->ad->insert_value("TotalSlots", Value::integer(static_cast<int64_t>(layout_.slots.size())));
    eng.insert_policy(*s);
    eng.refresh(*s);
    slots_.push_back(std::move(s));
  }
  eng.refresh_cross();
  return true;
}

bool Startd::reload_policy(std::string* err) {
  std::vector<Policy> fresh(slots_.size());
  for (size_t i = 0; i < slots_.size(); ++i) {
    std::string e;
    if (!load_policy(cfg_, slots_[i]->id, slots_[i]->type_id, &fresh[i], &e)) {
      *err = slots_[i]->name + ": " + e;
      return false;
    }
  }
  Output scratch;
  Engine eng{*this, &scratch, clock_.now()};
  for (size_t i = 0; i < slots_.size(); ++i) {
    slots_[i]->pol = std::move(fresh[i]);
    eng.insert_policy(*slots_[i]);
    eng.refresh(*slots_[i]);
  }
  eng.refresh_cross();
  return true;
}

bool Startd::set_inputs(const std::string& slot,
                        const std::vector<std::pair<std::string, std::string>>& assignments,
                        std::string* err) {
  std::vector<std::pair<std::string, ExprPtr>> parsed;
  for (auto& [name, text] : assignments) {
    classad::ParseError pe;
    ExprPtr e = classad::parse_expr(text, &pe);
    if (!e) {
      *err = name + "=" + text + ": " + pe.to_string();
      return false;
    }
    parsed.emplace_back(name, std::move(e));
  }
  auto apply_to = [&](SlotImpl& s) {
    for (auto& [name, e] : parsed) {
      classad::expr_ref(e.get());
      s.ad->insert(name, e.get());
    }
  };
  if (slot.empty()) {
    for (auto& a : assignments) {
      bool found = false;
      for (auto& m : machine_inputs_) {
        if (strcasecmp(m.first.c_str(), a.first.c_str()) == 0) {
          m.second = a.second;
          found = true;
        }
      }
      if (!found) machine_inputs_.push_back(a);
    }
    for (auto& s : slots_) apply_to(*s);
    return true;
  }
  for (auto& s : slots_) {
    if (s->name == slot) {
      for (auto& a : assignments) s->inputs.push_back(a);
      apply_to(*s);
      // A partitionable slot's inputs also reach its dynamic slots.
      for (auto& d : slots_) {
        if (d->parent == s.get()) apply_to(*d);
      }
      return true;
    }
  }
  *err = "no slot named '" + slot + "'";
  return false;
}

std::vector<SlotView> Startd::slots() const {
  std::vector<SlotView> v;
  for (auto& s : slots_) {
    if (s->dead) continue;
    SlotView x;
    x.name = s->name;
    x.state = s->state;
    x.activity = s->activity;
    x.dynamic = s->dynamic;
    x.partitionable = s->partitionable;
    x.starter_running = s->has_job && s->job.starter_running;
    x.job_ignores_softkill = s->flag_ignores_softkill;
    x.starter_stuck = s->flag_stuck;
    x.ad = s->ad.get();
    v.push_back(x);
  }
  return v;
}

bool Startd::slot(const std::string& name, SlotView* out) const {
  for (auto& s : slots_) {
    if (s->dead || strcasecmp(s->name.c_str(), name.c_str()) != 0) continue;
    out->name = s->name;
    out->state = s->state;
    out->activity = s->activity;
    out->dynamic = s->dynamic;
    out->partitionable = s->partitionable;
    out->starter_running = s->has_job && s->job.starter_running;
    out->job_ignores_softkill = s->flag_ignores_softkill;
    out->starter_stuck = s->flag_stuck;
    out->ad = s->ad.get();
    return true;
  }
  return false;
}

bool Startd::set_job_flags(const std::string& slot, bool ignores_softkill, bool stuck,
                           std::string* err) {
  for (auto& s : slots_) {
    if (!s->dead && strcasecmp(s->name.c_str(), slot.c_str()) == 0) {
      if (s->partitionable) {
        // The newest dynamic slot of a partitionable slot (its job), else the pslot for the next.
        SlotImpl* pick = nullptr;
        for (auto& d : slots_) {
          if (!d->dead && d->parent == s.get() && d->has_claim) pick = d.get();
        }
        if (pick) {
          if (ignores_softkill) pick->flag_ignores_softkill = true;
          if (stuck) pick->flag_stuck = true;
          return true;
        }
      }
      if (ignores_softkill) s->flag_ignores_softkill = true;
      if (stuck) s->flag_stuck = true;
      return true;
    }
  }
  *err = "no slot named '" + slot + "'";
  return false;
}

// HTCONDOR: ep-policy "Load Average for Multi-core Machines"; startd
// SLOTS_CONNECTED_TO_KEYBOARD, SLOTS_CONNECTED_TO_CONSOLE, DISCONNECTED_KEYBOARD_IDLE_BOOST.
void Startd::update_facts(const MachineFacts& f) {
  facts_.load_avg = f.load_avg;
  facts_.keyboard_idle = f.keyboard_idle;
  facts_.console_idle = f.console_idle;
  int64_t kb = 0, con = 0, boost = 1200, n;
  if (cfg_int(cfg_, "SLOTS_CONNECTED_TO_KEYBOARD", &n)) kb = n;
  if (cfg_int(cfg_, "SLOTS_CONNECTED_TO_CONSOLE", &n)) con = n;
  if (cfg_int(cfg_, "DISCONNECTED_KEYBOARD_IDLE_BOOST", &n)) boost = n;
  int64_t disconnected = clock_.now() - start_time_ + boost;
  double owner_load = f.load_avg;
  std::vector<double> load(slots_.size(), 0);
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i]->dead || (pass == 0) != (slots_[i]->state == State::kOwner)) continue;
      double give = owner_load < 1.0 ? owner_load : 1.0;
      load[i] = give;
      owner_load -= give;
    }
  }
  if (owner_load > 0 && !slots_.empty()) load[0] += owner_load;
  for (size_t i = 0; i < slots_.size(); ++i) {
    SlotImpl& s = *slots_[i];
    if (s.dead) continue;
    int64_t console = s.id <= con ? f.console_idle : disconnected;
    int64_t keyboard = s.id <= kb ? std::min(f.keyboard_idle, console) : console;
    if (s.id > kb && s.id > con) keyboard = disconnected;
    s.ad->insert_value("KeyboardIdle", Value::integer(keyboard));
    s.ad->insert_value("ConsoleIdle", Value::integer(console));
    s.ad->insert_value("LoadAvg", Value::real(load[i]));
    s.ad->insert_value("TotalLoadAvg", Value::real(f.load_avg));
  }
}

void Startd::evaluate(Output* out) {
  Engine eng{*this, out, clock_.now()};
  eng.evaluate_all();
}

int64_t Startd::next_timer() const {
  if (shut_down_) return kNever;
  int64_t t = kNever;
  auto take = [&](int64_t x) {
    if (x < t) t = x;
  };
  take(next_update_);
  Output scratch;
  Engine eng{const_cast<Startd&>(*this), &scratch, clock_.now()};
  for (auto& p : slots_) {
    SlotImpl& s = *p;
    if (s.dead) continue;
    if (s.state == State::kMatched) take(s.match_deadline);
    if (s.activity == Activity::kBenchmarking) take(s.benchmark_end);
    if (s.state == State::kPreempting && s.activity == Activity::kVacating) take(s.vacate_deadline);
    if (s.state == State::kPreempting && s.activity == Activity::kKilling && s.has_job &&
        s.job.starter_running && !s.job.starter_sigkilled)
      take(s.kill_deadline);
    if (s.has_claim && s.state == State::kClaimed) {
      take(s.claim.lease_expires);
      if (s.activity == Activity::kIdle && s.claim.activations > 0 && s.pol.claim_worklife >= 0)
        take(s.claim.start + s.pol.claim_worklife + 1);
      if (s.retire != Retire::kNone && s.has_job &&
          (s.activity == Activity::kRetiring || s.activity == Activity::kSuspended)) {
        int64_t end = eng.retirement_end(s);
        if (end != kNever && s.activity == Activity::kRetiring) {
          int64_t due = end - eng.softkill_lead(s);
          take(due > eng.now ? due : eng.now);
        }
      }
    }
  }
  return t;
}

bool Startd::handle(const Event& ev, Output* out, std::string* err) {
  Engine eng{*this, out, clock_.now()};
  int64_t now = eng.now;
  auto find = [&](const std::string& name) -> SlotImpl* {
    for (auto& s : slots_) {
      if (!s->dead && strcasecmp(s->name.c_str(), name.c_str()) == 0) return s.get();
    }
    return nullptr;
  };
  auto refuse = [&](SlotImpl& s, const std::string& why) {
    eng.act(s, ActionKind::kRefuse, why);
  };
  auto new_claim = [&](SlotImpl& s, const ClassAd* ad) {
    Claim c;
    char buf[64];
    std::snprintf(buf, sizeof buf, "#%lld#%lld", static_cast<long long>(start_time_),
                  static_cast<long long>(++claim_counter_));
    c.id = "<" + facts_.hostname + ">" + buf;
    c.ad = AdPtr(ad ? ad->copy() : ClassAd::make());
    c.start = now;
    int64_t alive = 300, missed = 6, n;
    if (cfg_int(cfg_, "ALIVE_INTERVAL", &n) && n > 0) alive = n;
    if (cfg_int(cfg_, "MAX_CLAIM_ALIVES_MISSED", &n) && n > 0) missed = n;
    c.lease = alive * missed;
    int64_t jl = 0;
    // HTCONDOR: ep-policy "The Claimed State and Leases": JobLeaseDuration, else
    // MAX_CLAIM_ALIVES_MISSED * alive interval.
    if (c.ad->evaluate_int("JobLeaseDuration", jl) && jl > 0) c.lease = jl;
    c.lease_expires = now + c.lease;
    c.rank = eng.rank_for(s, c.ad.get());
    return c;
  };
  if (shut_down_) {
    if (!slots_.empty()) eng.act(*slots_[0], ActionKind::kRefuse, "startd has shut down");
    return true;
  }
  SlotImpl* s = nullptr;
  bool machine_wide = ev.kind == EventKind::kDrain || ev.kind == EventKind::kCancelDrain ||
                      ev.kind == EventKind::kShutdown;
  if (!machine_wide) {
    s = find(ev.slot);
    if (!s) {
      *err = "no slot named '" + ev.slot + "'";
      return false;
    }
    // Job-level events naming a partitionable slot go to its newest dynamic slot with a claim
    // (with a running starter if there is one): the pslot itself never runs a job.
    bool job_event = ev.kind == EventKind::kStarterExited || ev.kind == EventKind::kDeactivate ||
                     ev.kind == EventKind::kAlive || ev.kind == EventKind::kLeaseExpired ||
                     ev.kind == EventKind::kWithdraw;
    if (s->partitionable && job_event) {
      SlotImpl* pick = nullptr;
      for (auto& d : slots_) {
        if (d->dead || d->parent != s || !d->has_claim) continue;
        bool running = d->has_job && d->job.starter_running;
        if (!pick || running || !(pick->has_job && pick->job.starter_running)) pick = d.get();
      }
      if (pick) s = pick;
    }
  }
  eng.accounting();

  // Carves a dynamic slot for `ad` out of partitionable slot `p`; null when it does not fit.
  auto carve = [&](SlotImpl& p, const ClassAd* ad, std::string* why) -> SlotImpl* {
    AdPtr req(ad ? ad->copy() : ClassAd::make());
    struct Req {
      const char* attr;
      const char* modify;
      const char* dflt;
      double value;
    } reqs[] = {
        {"RequestCpus", "MODIFY_REQUEST_EXPR_REQUESTCPUS", "quantize(RequestCpus, {1})", 1},
        {"RequestMemory", "MODIFY_REQUEST_EXPR_REQUESTMEMORY", "quantize(RequestMemory, {128})", 1},
        {"RequestDisk", "MODIFY_REQUEST_EXPR_REQUESTDISK", "quantize(RequestDisk, {1024})", 1},
    };
    for (Req& r : reqs) {
      double d;
      if (!req->lookup(r.attr)) req->insert_value(r.attr, Value::integer(1));
      std::string text;
      if (!cfg_.get(r.modify, &text) || trim(text).empty()) text = r.dflt;
      ExprPtr e = classad::parse_expr(trim(text));
      Value v;
      if (e) {
        classad::MatchPair mp(*req, *p.ad);
        v = mp.evaluate_left(e.get());
      }
      if (!number(v, &d)) {
        if (!number(req->evaluate_attr(r.attr), &d)) d = 1;
      }
      r.value = std::ceil(d);
    }
    std::vector<double> custom(layout_.resources.size(), 0);
    for (size_t i = 0; i < custom.size(); ++i) {
      double d;
      if (number(req->evaluate_attr("Request" + layout_.resources[i].name), &d) && d > 0)
        custom[i] = std::ceil(d);
    }
    char buf[256];
    if (reqs[0].value > p.res.cpus || reqs[1].value > p.res.memory_mb ||
        reqs[2].value > p.res.disk_kb) {
      std::snprintf(buf, sizeof buf,
                    "insufficient resources in %s: request cpus=%.0f memory=%.0f disk=%.0f, "
                    "free cpus=%d memory=%lld disk=%lld",
                    p.name.c_str(), reqs[0].value, reqs[1].value, reqs[2].value, p.res.cpus,
                    static_cast<long long>(p.res.memory_mb), static_cast<long long>(p.res.disk_kb));
      *why = buf;
      return nullptr;
    }
    for (size_t i = 0; i < custom.size(); ++i) {
      if (custom[i] > p.res.custom[i]) {
        *why = "insufficient " + layout_.resources[i].name + " in " + p.name;
        return nullptr;
      }
    }
    auto d = std::make_unique<SlotImpl>();
    d->parent = &p;
    d->dynamic = true;
    d->id = p.id;
    d->type_id = p.type_id;
    d->dslot_id = p.next_dslot++;
    if (!ev.adopt_slot.empty()) {
      // Re-adoption keeps the dynamic slot's old name.
      size_t us = ev.adopt_slot.rfind('_');
      int id = us == std::string::npos ? 0 : std::atoi(ev.adopt_slot.c_str() + us + 1);
      if (id > 0) {
        d->dslot_id = id;
        if (p.next_dslot <= id) p.next_dslot = id + 1;
      }
    }
    d->name = p.name + "_" + std::to_string(d->dslot_id);
    d->res.cpus = static_cast<int>(reqs[0].value);
    d->res.memory_mb = static_cast<int64_t>(reqs[1].value);
    d->res.disk_kb = static_cast<int64_t>(reqs[2].value);
    d->res.swap_kb = p.res.swap_kb;
    d->res.custom = custom;
    d->res.ids.resize(custom.size());
    for (size_t i = 0; i < custom.size(); ++i) {
      for (int k = 0; k < static_cast<int>(custom[i]) && !p.res.ids[i].empty(); ++k) {
        d->res.ids[i].push_back(p.res.ids[i].front());
        p.res.ids[i].erase(p.res.ids[i].begin());
      }
      p.res.custom[i] -= custom[i];
    }
    p.res.cpus -= d->res.cpus;
    p.res.memory_mb -= d->res.memory_mb;
    p.res.disk_kb -= d->res.disk_kb;
    d->total = d->res;
    d->flag_ignores_softkill = p.flag_ignores_softkill;
    d->flag_stuck = p.flag_stuck;
    p.flag_ignores_softkill = p.flag_stuck = false;
    d->state = State::kUnclaimed;
    d->entered_state = d->entered_activity = now;
    std::string e;
    load_policy(cfg_, d->id, d->type_id, &d->pol, &e);
    bool ok = true;
    build_static_ad(*this, cfg_, facts_, *d, start_time_, &e, &ok);
    for (const char* a : {"TotalCpus", "TotalMemory", "TotalSlots"}) {
      const Expr* x = p.ad->lookup(a);
      if (x) {
        classad::expr_ref(const_cast<Expr*>(x));
        d->ad->insert(a, const_cast<Expr*>(x));
      }
    }
    SlotImpl* raw = d.get();
    // Inputs: machine-wide, then the parent's.
    size_t pos = 0;
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].get() == &p || (slots_[i]->parent == &p)) pos = i + 1;
    }
    slots_.insert(slots_.begin() + static_cast<long>(pos), std::move(d));
    std::string ignore;
    if (!machine_inputs_.empty()) set_inputs(raw->name, machine_inputs_, &ignore);
    if (!p.inputs.empty()) set_inputs(raw->name, p.inputs, &ignore);
    raw->inputs.clear();
    eng.insert_policy(*raw);
    eng.refresh(*raw);
    std::snprintf(buf, sizeof buf, "from %s: cpus=%d memory=%lld disk=%lld", p.name.c_str(),
                  raw->res.cpus, static_cast<long long>(raw->res.memory_mb),
                  static_cast<long long>(raw->res.disk_kb));
    eng.act(*raw, ActionKind::kCreateSlot, buf);
    eng.refresh(p);
    eng.act(p, ActionKind::kPublishAds);
    return raw;
  };

  // A claim request on `t`.
  auto claim = [&](SlotImpl& t, const ClassAd* ad) -> SlotImpl* {
    if (shutting_down_) {
      refuse(t, "claim refused: shutting down");
      return nullptr;
    }
    AdPtr req(ad ? ad->copy() : ClassAd::make());
    bool start_ok = eng.start_for(t, req.get());
    if (draining_ && (!start_ok || !eng.drain_admitting())) {
      refuse(t, "claim refused: draining");
      return nullptr;
    }
    if (t.partitionable) {
      if (!(t.state == State::kUnclaimed || t.state == State::kOwner)) {
        refuse(t, std::string("claim refused: slot is ") + state_name(t.state));
        return nullptr;
      }
      if (!start_ok) {
        refuse(t, "claim refused: START is not true for the job");
        return nullptr;
      }
      std::string why;
      SlotImpl* d = carve(t, ad, &why);
      if (!d) {
        refuse(t, "claim refused: " + why);
        return nullptr;
      }
      d->pending_claim = new_claim(*d, ad);
      d->claim_pending = true;
      eng.settle(*d);
      return d;
    }
    if (t.state == State::kClaimed) {
      // HTCONDOR: ep-policy "If this expression evaluates to a higher number for a pending
      // resource request than it does for the current request, the machine may preempt"
      Claim c = new_claim(t, ad);
      if (!start_ok) {
        refuse(t, "preempting claim refused: START is not true for the job");
        return nullptr;
      }
      if (t.has_preempting) {
        refuse(t, "preempting claim refused: another preempting claim is pending");
        return nullptr;
      }
      if (!(c.rank > t.claim.rank)) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "preempting claim refused: RANK %g is not above CurrentRank %g",
                      c.rank, t.claim.rank);
        refuse(t, buf);
        return nullptr;
      }
      t.preempting = std::move(c);
      t.has_preempting = true;
      if (t.has_job && t.retire == Retire::kNone) t.retire = Retire::kRank;
      eng.settle(t);
      return &t;
    }
    bool ok_state = (t.state == State::kUnclaimed && t.activity == Activity::kIdle) ||
                    t.state == State::kMatched || t.state == State::kOwner ||
                    (t.state == State::kBackfill);
    if (!ok_state) {
      refuse(t, std::string("claim refused: slot is ") + state_name(t.state) + "/" +
                    activity_name(t.activity));
      return nullptr;
    }
    if (!start_ok) {
      refuse(t, "claim refused: START is not true for the job");
      return nullptr;
    }
    t.pending_claim = new_claim(t, ad);
    t.claim_pending = true;
    eng.settle(t);
    return &t;
  };

  switch (ev.kind) {
    case EventKind::kMatch:
      if (s->partitionable) {
        // A pslot stays Unclaimed; the claim that follows carves the dynamic slot.
        break;
      }
      if ((s->state == State::kUnclaimed && s->activity == Activity::kIdle) ||
          s->state == State::kBackfill) {
        s->match_pending = true;
        s->match_ad = AdPtr(ev.ad ? ev.ad->copy() : ClassAd::make());
        eng.settle(*s);
      } else {
        refuse(*s, std::string("match ignored: slot is ") + state_name(s->state) + "/" +
                       activity_name(s->activity));
      }
      break;
    case EventKind::kClaim:
      claim(*s, ev.ad);
      break;
    case EventKind::kActivate: {
      SlotImpl* t = s;
      if (s->partitionable) {
        t = nullptr;
        for (auto& d : slots_) {
          if (!d->dead && d->parent == s && d->state == State::kClaimed &&
              d->activity == Activity::kIdle)
            t = d.get();
        }
        if (!t) t = claim(*s, ev.ad);
        if (!t) break;
      } else if (s->state != State::kClaimed) {
        t = claim(*s, ev.ad);
        if (!t) break;
      }
      if (!(t->state == State::kClaimed && t->activity == Activity::kIdle)) {
        refuse(*t, std::string("activation refused: slot is ") + state_name(t->state) + "/" +
                       activity_name(t->activity));
        break;
      }
      if (t->claim.activations > 0 && t->pol.claim_worklife >= 0 &&
          now - t->claim.start > t->pol.claim_worklife) {
        refuse(*t, "activation refused: CLAIM_WORKLIFE expired");
        break;
      }
      t->job = Job{};
      t->job.ad = AdPtr(ev.ad ? ev.ad->copy() : ClassAd::make());
      if (!ev.adopt_slot.empty()) {
        if (!ev.adopt_claim_id.empty())
          (t->claim_pending ? t->pending_claim : t->claim).id = ev.adopt_claim_id;
        t->adopt_start = ev.adopt_job_start >= 0 ? ev.adopt_job_start : now;
      }
      t->activate_pending = true;
      eng.settle(*t);
      break;
    }
    case EventKind::kDeactivate:
      if (s->has_job && s->job.starter_running && !s->job.soft_killed) {
        s->job.soft_killed = true;
        eng.act(*s, ActionKind::kSoftKill, s->job.kill_sig);
      }
      break;
    case EventKind::kStarterExited:
      if (!s->has_job || !s->job.starter_running) {
        refuse(*s, "starter-exit ignored: no starter running");
        break;
      }
      s->job.starter_running = false;
      eng.settle(*s);
      break;
    case EventKind::kBackfillExited:
      s->bf_running = false;
      eng.settle(*s);
      break;
    case EventKind::kAlive:
      if (s->has_claim) s->claim.lease_expires = now + s->claim.lease;
      break;
    case EventKind::kLeaseExpired:
      if (s->has_claim) {
        s->claim.lease_expires = now;
        eng.settle(*s);
      }
      break;
    case EventKind::kWithdraw:
      if (s->has_preempting) {
        eng.act(*s, ActionKind::kNotifyClaimant, "preempting claim " + s->preempting.id + " withdrawn");
        s->has_preempting = false;
        s->preempting = Claim{};
        eng.settle(*s);
      }
      break;
    case EventKind::kRelease:
    case EventKind::kVacate:
    case EventKind::kVacateFast: {
      const char* why = ev.kind == EventKind::kRelease ? "claim released"
                        : ev.kind == EventKind::kVacate ? "vacate"
                                                        : "fast vacate";
      std::vector<SlotImpl*> targets;
      if (s->partitionable) {
        for (auto& d : slots_) {
          if (!d->dead && d->parent == s) targets.push_back(d.get());
        }
      } else {
        targets.push_back(s);
      }
      for (SlotImpl* t : targets) {
        if (t->state == State::kMatched || (t->state == State::kClaimed && t->activity == Activity::kIdle)) {
          t->end_requested = true;
          t->end_cause = why;
          if (ev.kind == EventKind::kVacateFast) t->fast = true;
        } else if (t->state == State::kClaimed) {
          if (ev.kind == EventKind::kVacateFast) {
            t->fast = true;
            t->end_cause = why;
          } else if (t->retire == Retire::kNone || t->retire == Retire::kRank) {
            t->retire = ev.kind == EventKind::kRelease ? Retire::kRelease : Retire::kVacate;
          }
        } else if (t->state == State::kPreempting && ev.kind == EventKind::kVacateFast &&
                   t->activity == Activity::kVacating) {
          t->vacate_deadline = now;
        } else if (t->state == State::kBackfill && ev.kind != EventKind::kRelease) {
          t->end_requested = true;
          t->bf_cause = why;
        }
        eng.settle(*t);
      }
      break;
    }
    case EventKind::kDrain: {
      if (draining_) break;
      draining_ = true;
      drain_mode_ = ev.drain;
      drain_resume_ = ev.drain_resume;
      drain_finalized_ = false;
      drain_start_ = now;
      // HTCONDOR: ep-policy "the eviction of jobs with shorter retirement time is delayed until
      // the job with the longest retirement time needs to be evicted"
      int64_t common_end = now;
      if (ev.drain == DrainMode::kGraceful) {
        for (auto& p : slots_) {
          if (p->dead || !p->has_job || p->state != State::kClaimed) continue;
          p->retire = Retire::kDrain;
          p->retire_end_override = kNever;
          int64_t end = eng.retirement_end(*p);
          if (p->retire == Retire::kDrain) {
            double m = eng.max_retirement(*p);
            end = p->job.start + static_cast<int64_t>(m) + eng.suspended_so_far(*p);
          }
          if (end > common_end) common_end = end;
        }
      }
      for (auto& p : slots_) {
        SlotImpl& t = *p;
        if (t.dead) continue;
        if (t.has_preempting) {
          eng.act(t, ActionKind::kNotifyClaimant, "preempting claim " + t.preempting.id + " dropped: draining");
          t.has_preempting = false;
          t.preempting = Claim{};
        }
        if (t.state == State::kMatched || (t.state == State::kClaimed && t.activity == Activity::kIdle)) {
          t.end_requested = true;
          t.end_cause = "draining";
        } else if (t.state == State::kClaimed) {
          if (ev.drain == DrainMode::kFast) {
            t.fast = true;
            t.end_cause = "draining (fast)";
          } else {
            t.retire = Retire::kDrain;
            t.retire_end_override = ev.drain == DrainMode::kGraceful ? common_end : now;
          }
        }
      }
      for (auto& p : slots_) eng.insert_policy(*p), eng.refresh(*p);
      eng.evaluate_all();
      break;
    }
    case EventKind::kCancelDrain:
      if (!draining_) break;
      draining_ = false;
      drain_finalized_ = false;
      for (auto& p : slots_) {
        if (p->dead) continue;
        if (p->retire == Retire::kDrain) p->retire_end_override = kNever;
        eng.insert_policy(*p);
        eng.refresh(*p);
      }
      eng.evaluate_all();
      break;
    case EventKind::kShutdown: {
      if (shutting_down_) break;
      shutting_down_ = true;
      shutdown_mode_ = ev.shutdown;
      shutdown_start_ = now;
      int64_t cap = kNever, n;
      if (ev.shutdown == ShutdownMode::kGraceful && cfg_int(cfg_, "SHUTDOWN_GRACEFUL_TIMEOUT", &n) && n >= 0)
        cap = now + n;
      for (auto& p : slots_) {
        SlotImpl& t = *p;
        if (t.dead) continue;
        if (t.has_preempting) {
          t.has_preempting = false;
          t.preempting = Claim{};
        }
        if (t.state == State::kMatched || (t.state == State::kClaimed && t.activity == Activity::kIdle)) {
          t.end_requested = true;
          t.end_cause = "shutdown";
        } else if (t.state == State::kClaimed) {
          if (ev.shutdown == ShutdownMode::kFast) {
            t.fast = true;
            t.end_cause = "fast shutdown";
          } else {
            t.retire = Retire::kShutdown;
            t.retire_infinite = ev.shutdown == ShutdownMode::kPeaceful;
            t.retire_end_override = cap;
          }
        } else if (t.state == State::kPreempting && ev.shutdown == ShutdownMode::kFast &&
                   t.activity == Activity::kVacating) {
          t.vacate_deadline = now;
        }
      }
      eng.evaluate_all();
      break;
    }
  }
  // Draining is machine-wide: one slot's move can finish the drain (33) or end the admission
  // of jobs under the draining START expression for the others.
  if (draining_) {
    eng.drain_evict_admitted();
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (!slots_[i]->dead) eng.settle(*slots_[i]);
    }
    eng.finalize_drain();
  }
  eng.check_shutdown_done();
  eng.compact();
  return true;
}

}  // namespace kite::startd
