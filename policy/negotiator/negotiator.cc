// One negotiation cycle with the structure of HTCondor's negotiator: group rounds (quotas), in
// each the pie spin over effective user priorities until no slots or no jobs are left, each
// submitter's jobs in the schedd's order, autoclusters matched once (a failed one skipped), every
// slot tried for a job and the best potential match taken. HTCONDOR: central-manager "Negotiation".
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "policy/classad/eval_env.h"
#include "policy/config/typed.h"
#include "policy/fairshare/slot_weight.h"
#include "policy/negotiator/autocluster.h"
#include "policy/negotiator/candidates.h"
#include "policy/negotiator/cycle_settings.h"
#include "policy/negotiator/ephemeral.h"
#include "policy/negotiator/fair_plan.h"
#include "policy/negotiator/job_order.h"
#include "policy/negotiator/knobs.h"
#include "policy/negotiator/match_cache.h"
#include "policy/negotiator/negotiator.h"
#include "policy/negotiator/pslot_preemption.h"
#include "policy/negotiator/requirements_memo.h"
#include "policy/negotiator/slots.h"

namespace kite::negotiator {
namespace {

using classad::ClassAd;

int64_t now_of(const void* clock) {
  return *static_cast<const int64_t*>(clock);
}

std::string string_attr(const ClassAd& ad, const char* name) {
  std::string s;
  ad.evaluate_string(name, s);
  return s;
}

// A submitter's progress through its jobs.
struct SubmitterRun {
  const Submitter* in;
  std::vector<uint32_t> order;     // job indices, in the order they are offered
  std::vector<uint32_t> clusters;  // autocluster of order[i], filled as the cursor reaches it
  size_t cursor = 0;
  int64_t matched = 0;
  int64_t rejected = 0;
  size_t outcome = 0;       // index into CycleResult::submitters
  bool over_limit = false;  // stopped at a job its slice had no room for
};

enum class MatchStatus { kMatched, kNoSlot, kOverSlice };

// An autocluster's state in this cycle.
struct Cluster {
  uint32_t submitter;   // index into Cycle::runs_
  classad::AdPtr rep;   // the cycle's copy of its first job, with the Submitter* attributes
  bool failed = false;  // no slot was found: its other jobs are skipped
};

// The potential match list of one autocluster, as a heap (best on top).
struct MatchList {
  uint32_t cluster = UINT32_MAX;
  uint64_t last_use = 0;
  uint64_t epoch = 0;  // Cycle::epoch_ when every partitionable entry was last brought up to date
  std::vector<Candidate> heap;
};

auto heap_less = [](const Candidate& a, const Candidate& b) { return candidate_before(b, a); };

class Cycle {
 public:
  explicit Cycle(const CycleInput& in)
      : in_(in),
        settings_(in.settings ? in.settings : read_cycle_settings(in.cfg)),
        knobs_(settings_->knobs) {
    result_.warnings = settings_->warnings;
    env_.now_fn = now_of;
    env_.clock = &in_.now;
    env_.random = &random_;
  }
  CycleResult run();

 private:
  void setup_slots();
  void setup_submitters();
  uint32_t cluster_at(SubmitterRun& run, uint32_t run_index, size_t pos);
  MatchStatus match_one(uint32_t cluster, const fairshare::Slice& slice, double got,
                        double pie_left, Candidate* out, double* weight);
  bool skip_unfit(uint32_t cluster, const fairshare::Slice& slice, double got, double pie_left);
  bool drop_unfit(std::vector<Candidate>& heap, const fairshare::Slice& slice, double got,
                  double pie_left, MatchStatus* status) const;
  // Slot weight not yet handed out; without running slots: the unclaimed weight.
  double free_weight(bool with_running = true) const;
  double smallest_free_slot_weight() const;
  double unclaimed_weight() const { return free_weight(false); }
  double slot_weight_of(const SlotView& s) const;
  MatchList& list_for(uint32_t cluster);
  MatchList& free_list();
  void fill(MatchList& list);
  void refresh(MatchList& list);
  // The slot as a potential match for the cluster: as it is, else (ALLOW_PSLOT_PREEMPTION) a
  // partitionable slot with some of its dynamic slots preempted.
  bool evaluate(uint32_t cluster, uint32_t slot, Candidate* out);
  bool evaluate_as_is(uint32_t cluster, uint32_t slot, Candidate* out);
  double negotiate_submitter(uint32_t run_index, const fairshare::Slice& slice, double pie_left);
  void run_round(const fairshare::GroupRound& round);
  void record(SubmitterRun& run, uint32_t job_index, const Candidate& c);
  double remote_prio(const std::string& user, double* usage) const;

  const CycleInput& in_;
  std::shared_ptr<const CycleSettings> settings_;
  const Knobs& knobs_;
  CycleResult result_;
  classad::RandomStream random_{1};
  classad::EvalEnv env_;
  std::vector<SlotView> slots_;
  RemoteAttrs remote_;  // undone when the cycle ends (declared after slots_: destroyed first)
  std::vector<SubmitterRun> runs_;
  std::vector<Cluster> clusters_;
  std::vector<MatchList> lists_;  // a few recently used lists, so memory stays bounded
  uint64_t clock_ = 0;
  uint64_t epoch_ = 0;  // bumps whenever a partitionable slot shrinks
  RefMemo memo_;
  RequirementsMemo req_memo_;  // for the cluster whose list was made last
  uint32_t memo_cluster_ = UINT32_MAX;
  uint32_t memo_pending_ = UINT32_MAX;   // that cluster, until an evaluation needs the memo
  MatchCache* cache_ = nullptr;          // CycleInput::match_cache
  uint32_t cache_cluster_ = UINT32_MAX;  // the cluster the cache's job is (the last list made)
  std::vector<const classad::Expr*> rank_roots_;  // the knobs' rank chain, for the cache
  std::unique_ptr<AutoclusterBuilder> builder_;
  FairPlan plan_;
  std::vector<uint32_t> run_of_;  // CycleInput::submitters index -> runs_ index
  double pool_weight_ = 0;
  std::vector<uint32_t> victims_;  // the dynamic slots the last match preempts (pslot preemption)
};

// How many potential match lists stay cached: as many as fit in kListBudget candidates (a list
// holds up to one per slot), at least kMinLists, so jobs of several groups offered in turn do not
// rebuild their lists each time, and memory stays bounded (2^18 candidates: about 12 MiB).
constexpr size_t kListBudget = size_t{1} << 18;
constexpr size_t kMinLists = 8;

// `name` is the accountant's "user@domain" for a slot's RemoteUser `user`, which a job ad
// without User gives as its Owner alone ("bob").
bool same_user(const std::string& name, const std::string& user) {
  if (name == user) return true;
  return user.find('@') == std::string::npos && name.size() > user.size() &&
         name[user.size()] == '@' && name.compare(0, user.size(), user) == 0;
}

double Cycle::remote_prio(const std::string& user, double* usage) const {
  for (const Submitter& s : in_.submitters) {
    if (same_user(s.name, user)) {
      *usage = s.usage;
      return s.priority;
    }
  }
  for (const UserPriority& u : in_.other_users) {
    if (same_user(u.name, user)) {
      *usage = u.usage;
      return u.priority;
    }
  }
  *usage = 0;
  return 0.5;  // a user the accountant has not seen has the best priority
}

void Cycle::setup_slots() {
  slots_.reserve(in_.slots.size());
  for (const classad::AdPtr& ad : in_.slots) {
    slots_.push_back(slot_view(ad.get()));
    SlotView& s = slots_.back();
    if (s.use == SlotUse::kRunning && knobs_.consider_preemption) {
      double usage = 0;
      s.remote_prio = remote_prio(s.remote_user, &usage);
      remote_.add(*s.ad, s.remote_user, s.remote_prio, usage);
      s.retirement_left = retirement_left(*s.ad, &env_);
    }
  }
  if (knobs_.allow_pslot_preemption && knobs_.consider_preemption) link_children(&slots_);
  std::vector<const ClassAd*> ads;
  ads.reserve(slots_.size());
  for (const SlotView& s : slots_) ads.push_back(s.ad);
  std::vector<const classad::Expr*> extra;
  for (const classad::ExprPtr* e : {&knobs_.pre_job_rank, &knobs_.post_job_rank,
                                    &knobs_.preemption_requirements, &knobs_.preemption_rank}) {
    if (*e) extra.push_back(e->get());
  }
  std::vector<uint32_t> side;
  if (cache_) {
    // What an unchanged slot imposes is known from earlier cycles.
    side = slot_side_attrs({}, extra, memo_);
    for (const ClassAd* ad : ads) {
      const std::vector<uint32_t>& mine = cache_->slot_attrs(*ad, extra, memo_);
      side.insert(side.end(), mine.begin(), mine.end());
    }
    std::sort(side.begin(), side.end());
    side.erase(std::unique(side.begin(), side.end()), side.end());
  } else {
    side = slot_side_attrs(ads, extra, memo_);
  }
  JobMemo* jobs = nullptr;
  if (cache_) {
    jobs = &cache_->jobs();
    jobs->begin_cycle(side);
  }
  builder_.reset(new AutoclusterBuilder(std::move(side), memo_, jobs));
}

void Cycle::setup_submitters() {
  std::vector<const Submitter*> order;
  for (const Submitter& s : in_.submitters) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](const Submitter* a, const Submitter* b) {
    if (a->priority != b->priority) return a->priority < b->priority;
    return a->name < b->name;
  });
  run_of_.assign(in_.submitters.size(), 0);
  for (const Submitter* s : order) {
    run_of_[static_cast<size_t>(s - in_.submitters.data())] = static_cast<uint32_t>(runs_.size());
    SubmitterRun run;
    run.in = s;
    run.order = job_order(s->jobs, cache_ ? &cache_->jobs() : nullptr);
    if (knobs_.job_constraint) {  // NEGOTIATOR_JOB_CONSTRAINT: the other jobs are not offered
      run.order.erase(std::remove_if(run.order.begin(), run.order.end(),
                                     [&](uint32_t j) {
                                       const IdleJob& job = s->jobs[j];
                                       return !job.ad || !passes(*job.ad, knobs_.job_constraint);
                                     }),
                      run.order.end());
    }
    run.clusters.assign(run.order.size(), UINT32_MAX);
    run.outcome = result_.submitters.size();
    result_.submitters.push_back({s->name, 0, 0});
    runs_.push_back(std::move(run));
  }
}

uint32_t Cycle::cluster_at(SubmitterRun& run, uint32_t run_index, size_t pos) {
  if (run.clusters[pos] != UINT32_MAX) return run.clusters[pos];
  const IdleJob& job = run.in->jobs[run.order[pos]];
  uint32_t c = builder_->cluster_of(run_index, *job.ad);
  if (c == clusters_.size()) {
    Cluster cl;
    cl.submitter = run_index;
    cl.rep = classad::AdPtr(job.ad->copy());
    clusters_.push_back(std::move(cl));
  }
  run.clusters[pos] = c;
  return c;
}

// A cache of these answers across cycles must respect: a running slot's answer depends on the
// clock (RetirementTimeRemaining counts down: NEGOTIATOR_CONSIDER_EARLY_PREEMPTION), and with
// ALLOW_PSLOT_PREEMPTION a partitionable slot's answer depends on its dynamic slots' ads too.
bool Cycle::evaluate(uint32_t cluster, uint32_t slot, Candidate* out) {
  if (evaluate_as_is(cluster, slot, out)) return true;
  const SlotView& s = slots_[slot];
  if (!s.partitionable || s.children.empty()) return false;
  const Cluster& cl = clusters_[cluster];
  const SubmitterRun& run = runs_[cl.submitter];
  Asker asker{cl.rep.get(), &run.in->name, run.in->priority};
  PslotPreemption pp;
  return pslot_preemption(knobs_, &env_, asker, slots_, slot, &pp, out);
}

bool Cycle::evaluate_as_is(uint32_t cluster, uint32_t slot, Candidate* out) {
  Cluster& cl = clusters_[cluster];
  const SubmitterRun& run = runs_[cl.submitter];
  Asker asker{cl.rep.get(), &run.in->name, run.in->priority};
  const SlotView& s = slots_[slot];
  // An idle static slot's answer may be known from an earlier cycle.
  const bool cacheable = cache_ && cache_cluster_ == cluster && s.use == SlotUse::kIdle &&
                         !s.partitionable && !s.taken;
  if (cacheable) {
    if (const CachedMatch* m = cache_->find(*s.ad)) {
      if (!m->matches) return false;
      Candidate c;
      c.slot = slot;
      c.version = s.version;
      c.pre = m->pre;
      c.job_rank = m->job_rank;
      c.post = m->post;
      *out = c;
      return true;
    }
  }
  const double prio = s.use == SlotUse::kRunning ? s.remote_prio : 0;
  if (memo_pending_ == cluster && !s.partitionable) {
    req_memo_.reset(*cl.rep, memo_);
    memo_cluster_ = cluster;
    memo_pending_ = UINT32_MAX;
  }
  // Not for partitionable slots: their resources are rewritten during the cycle, and a new
  // literal may sit where a freed one was (the memo compares trees by address).
  RequirementsMemo* memo = memo_cluster_ == cluster && !s.partitionable ? &req_memo_ : nullptr;
  const bool ok = evaluate_candidate(knobs_, &env_, asker, s, slot, prio, memo, out);
  if (cacheable) {
    CachedMatch m;
    m.matches = ok;
    if (ok) {
      m.pre = out->pre;
      m.job_rank = out->job_rank;
      m.post = out->post;
    }
    cache_->remember(*cl.rep, *s.ad, rank_roots_, m);
  }
  return ok;
}

void Cycle::fill(MatchList& list) {
  Cluster& cl = clusters_[list.cluster];
  const SubmitterRun& run = runs_[cl.submitter];
  set_submitter_attrs(*cl.rep, run.in->name, run.in->priority,
                      run.in->usage + static_cast<double>(run.matched));
  list.heap.clear();
  memo_pending_ = list.cluster;  // the memo starts over when an evaluation needs it
  memo_cluster_ = UINT32_MAX;
  if (cache_) {
    cache_->begin_job(*cl.rep);
    cache_cluster_ = list.cluster;
  }
  Candidate c;
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    if (evaluate(list.cluster, i, &c)) list.heap.push_back(c);
  }
  std::make_heap(list.heap.begin(), list.heap.end(), heap_less);
  list.epoch = epoch_;
}

// Brings entries of partitionable slots that shrank since the list was made up to date.
void Cycle::refresh(MatchList& list) {
  if (list.epoch == epoch_) return;
  size_t keep = 0;
  for (size_t i = 0; i < list.heap.size(); ++i) {
    Candidate c = list.heap[i];
    const SlotView& s = slots_[c.slot];
    if (s.taken) continue;
    if (c.version != s.version && !evaluate(list.cluster, c.slot, &c)) continue;
    list.heap[keep++] = c;
  }
  list.heap.resize(keep);
  std::make_heap(list.heap.begin(), list.heap.end(), heap_less);
  list.epoch = epoch_;
}

// A list to make: a new one while there are few, else the one used longest ago.
MatchList& Cycle::free_list() {
  const size_t max_lists = std::max(kMinLists, kListBudget / std::max<size_t>(1, slots_.size()));
  if (lists_.size() < max_lists) {
    lists_.emplace_back();
    return lists_.back();
  }
  return *std::min_element(
      lists_.begin(), lists_.end(),
      [](const MatchList& a, const MatchList& b) { return a.last_use < b.last_use; });
}

MatchList& Cycle::list_for(uint32_t cluster) {
  ++clock_;
  for (MatchList& l : lists_) {
    if (l.cluster == cluster) {
      l.last_use = clock_;
      // PREEMPTION_*_STABLE = False: SubmitterUserResourcesInUse has moved with this cycle's
      // matches, so the potential matches are evaluated again.
      if (!knobs_.preemption_stable && knobs_.consider_preemption) {
        fill(l);
      } else {
        refresh(l);
      }
      return l;
    }
  }
  MatchList* slot = &free_list();
  slot->cluster = cluster;
  slot->last_use = clock_;
  fill(*slot);
  return *slot;
}

double Cycle::slot_weight_of(const SlotView& s) const {
  if (s.partitionable) return fairshare::slot_weight(*s.ad, plan_.use_slot_weights);
  return s.weight;  // run() reads it once
}

// The best slot for `cluster` that its submitter's slice has room for (having matched `got`
// in this spin) and whose concurrency limits have room for the job.
// The job's RequestCpus as evaluate_real() reads it, without the name lookup and, for a
// literal (nearly always), without evaluating.
bool request_cpus(const ClassAd& job, double* out) {
  static const uint32_t id = classad::intern_name("RequestCpus").id;
  const classad::Expr* e = job.lookup_id(id);
  if (!e) return false;
  if (e->kind != classad::ExprKind::kLiteral) return job.evaluate_real("RequestCpus", *out);
  const classad::Value& v = classad::as_literal(e)->value;
  if (v.is_integer()) {
    *out = static_cast<double>(v.as_integer());
    return true;
  }
  if (v.is_real()) {
    *out = v.as_real();
    return true;
  }
  return false;
}

// Whether a slice that has matched `got` in this spin may take a slot of weight `w`.
// HTCONDOR: a slice under the slot's weight may still take that one slot when nothing was
// matched yet in this spin (the rule; HTCondor rounds a slice up once per spin), if the
// pie left holds it (with a little slack: quotas from fractions such as 0.66667 x 0.75 x 30 are
// 14.9999).
bool slice_has_room(const fairshare::Slice& slice, double got, double pie_left, double w) {
  const bool within = got + w <= slice.limit + 1e-9;
  const bool round_up =
      got <= 0 && (slice.limit > 0 || slice.at_least_one) && 0.99 * w <= pie_left + 1e-3;
  return within || round_up;
}

uint32_t concurrency_limits_id() {
  static const uint32_t id = classad::intern_name("ConcurrencyLimits").id;
  return id;
}

MatchStatus Cycle::match_one(uint32_t cluster, const fairshare::Slice& slice, double got,
                             double pie_left, Candidate* out, double* weight) {
  if (skip_unfit(cluster, slice, got, pie_left)) return MatchStatus::kNoSlot;
  MatchList& list = list_for(cluster);
  std::vector<Candidate>& heap = list.heap;
  ClassAd& job = *clusters_[cluster].rep;
  // Limits named by a literal (or none) are the same whatever the slot: asked once per call.
  const classad::Expr* limits_expr = job.lookup_id(concurrency_limits_id());
  const bool limits_per_slot = limits_expr && limits_expr->kind != classad::ExprKind::kLiteral;
  int literal_limits_fit = -1;  // -1: not asked yet
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), heap_less);
    Candidate c = heap.back();
    heap.pop_back();
    SlotView& s = slots_[c.slot];
    if (s.taken) continue;
    Take take;
    // A partitionable slot by preemption: its victims are chosen again now (the same choice
    // unless the slot changed since the list was made).
    const bool pslot_preempt = s.partitionable && c.reason != Reason::kIdle;
    PslotPreemption pp;
    if (pslot_preempt) {
      const Cluster& cl = clusters_[cluster];
      Asker asker{cl.rep.get(), &runs_[cl.submitter].in->name, runs_[cl.submitter].in->priority};
      Candidate again;
      if (!pslot_preemption(knobs_, &env_, asker, slots_, c.slot, &pp, &again)) continue;
      take = pp.take;
    } else if (s.partitionable && !take_fits(knobs_, job, s, &take)) {
      continue;
    }
    const double w = !s.partitionable          ? slot_weight_of(s)
                     : !plan_.use_slot_weights ? 1.0
                     : s.consumption           ? consumption_cost(s, take)
                                               : static_cast<double>(take.std[0]);
    if (!slice_has_room(slice, got, pie_left, w)) {
      heap.push_back(c);
      std::push_heap(heap.begin(), heap.end(), heap_less);
      return MatchStatus::kOverSlice;
    }
    // HTCONDOR: a job whose concurrency limits are full is not matched (its limits may depend
    // on the machine through concurrency_limits_expr, so each slot is asked).
    if (literal_limits_fit == 0) continue;
    std::vector<fairshare::LimitUse> uses;
    std::string error;
    const bool fits =
        fairshare::job_limit_uses(job, *s.ad, &uses, &error) && plan_.limits.fits(uses);
    if (!limits_per_slot) literal_limits_fit = fits ? 1 : 0;
    if (!fits) {
      MatchStatus st;
      if (literal_limits_fit == 0 && drop_unfit(heap, slice, got, pie_left, &st)) return st;
      continue;
    }
    plan_.limits.acquire(uses);
    *weight = w;
    *out = c;
    victims_.clear();
    if (pslot_preempt) {
      // The victims go and the new job's dynamic slot is carved once they have: the slot takes
      // no other job in this cycle.
      victims_ = pp.victims;
      for (uint32_t v : victims_) slots_[v].taken = true;
      s.taken = true;
      ++s.version;
      ++epoch_;
      return MatchStatus::kMatched;
    }
    if (!s.partitionable) {
      s.taken = true;
      return MatchStatus::kMatched;
    }
    take_from(s, take);
    ++epoch_;
    // The slot may take more jobs: back on this list with what is left.
    Candidate again;
    if (evaluate(cluster, c.slot, &again)) {
      heap.push_back(again);
      std::push_heap(heap.begin(), heap.end(), heap_less);
    }
    list.epoch = epoch_;
    return MatchStatus::kMatched;
  }
  return MatchStatus::kNoSlot;
}

// A match_one() that must end with no slot: the job's literal concurrency limits are full, every
// slot is an idle static one the slice has room for (so no candidate can end it early), and every
// pair's answer is remembered by the match cache (so evaluating it would read nothing but the two
// ads: no random number drawn, no clock). Then the potential match list is not made; the cycle's
// state changes as making it and dropping it would change it (the job's Submitter* attributes,
// the cache's job, the lists' use clock). False when the list must be made.
bool Cycle::skip_unfit(uint32_t cluster, const fairshare::Slice& slice, double got,
                       double pie_left) {
  if (!cache_ || slots_.empty()) return false;
  for (const MatchList& l : lists_)
    if (l.cluster == cluster) return false;
  Cluster& cl = clusters_[cluster];
  ClassAd& job = *cl.rep;
  const classad::Expr* limits_expr = job.lookup_id(concurrency_limits_id());
  if (!limits_expr || limits_expr->kind != classad::ExprKind::kLiteral) return false;
  for (const SlotView& s : slots_) {
    if (s.partitionable || s.use != SlotUse::kIdle) return false;
    if (s.taken) continue;
    if (!slice_has_room(slice, got, pie_left, slot_weight_of(s))) return false;
  }
  std::vector<fairshare::LimitUse> uses;
  std::string error;
  if (fairshare::job_limit_uses(job, *slots_[0].ad, &uses, &error) && plan_.limits.fits(uses))
    return false;
  // As fill() starts (doing it twice, when a pair is not remembered, changes nothing).
  const SubmitterRun& run = runs_[cl.submitter];
  set_submitter_attrs(job, run.in->name, run.in->priority,
                      run.in->usage + static_cast<double>(run.matched));
  cache_->begin_job(job);
  cache_cluster_ = cluster;
  for (const SlotView& s : slots_)
    if (!cache_->find(*s.ad)) return false;
  memo_pending_ = cluster;
  memo_cluster_ = UINT32_MAX;
  // As list_for() takes a list, which negotiate_submitter() then drops.
  ++clock_;
  MatchList* slot = &free_list();
  slot->cluster = UINT32_MAX;
  slot->last_use = clock_;
  slot->heap.clear();
  return true;
}

// The rest of a match_one() whose job's (literal) concurrency limits are full, where every
// candidate left is a static slot: none can be matched, and popping them in turn ends at the
// first one the slice has no room for (kOverSlice, back on the list with those after it) or with
// none left (kNoSlot). That outcome is found by one scan instead of popping each candidate (a
// job group held back by its limits otherwise pops every free slot of the pool, every cycle).
// False when a candidate needs the loop (a partitionable slot; a rank that is not a number).
bool Cycle::drop_unfit(std::vector<Candidate>& heap, const fairshare::Slice& slice, double got,
                       double pie_left, MatchStatus* status) const {
  const Candidate* stop = nullptr;
  for (const Candidate& c : heap) {
    const SlotView& s = slots_[c.slot];
    if (s.partitionable || std::isnan(c.pre) || std::isnan(c.job_rank) || std::isnan(c.post) ||
        std::isnan(c.preempt_rank))
      return false;
    if (s.taken) continue;
    if (!slice_has_room(slice, got, pie_left, slot_weight_of(s)) &&
        (!stop || candidate_before(c, *stop)))
      stop = &c;
  }
  if (!stop) {
    heap.clear();
    *status = MatchStatus::kNoSlot;
    return true;
  }
  const Candidate keep = *stop;
  heap.erase(std::remove_if(heap.begin(), heap.end(),
                            [&](const Candidate& c) { return candidate_before(c, keep); }),
             heap.end());
  std::make_heap(heap.begin(), heap.end(), heap_less);
  *status = MatchStatus::kOverSlice;
  return true;
}

void Cycle::record(SubmitterRun& run, uint32_t job_index, const Candidate& c) {
  const IdleJob& job = run.in->jobs[job_index];
  const SlotView& s = slots_[c.slot];
  Match m;
  m.cluster = job.cluster;
  m.proc = job.proc;
  m.submitter = run.in->name;
  m.slot = string_attr(*s.ad, "Name");
  m.machine = string_attr(*s.ad, "Machine");
  m.partitionable = s.partitionable;
  m.preempting = c.reason != Reason::kIdle;
  if (m.preempting) m.preempted_user = s.remote_user;
  for (uint32_t v : victims_) {
    if (m.preempted_user.empty()) m.preempted_user = slots_[v].remote_user;
    m.preempted_slots.push_back(string_attr(*slots_[v].ad, "Name"));
  }
  m.reason = reason_name(c.reason);
  result_.matches.push_back(std::move(m));
  ++run.matched;
}

double Cycle::negotiate_submitter(uint32_t run_index, const fairshare::Slice& slice,
                                  double pie_left) {
  SubmitterRun& run = runs_[run_index];
  double got = 0;
  run.over_limit = false;
  while (run.cursor < run.order.size()) {
    size_t pos = run.cursor;
    if (!run.in->jobs[run.order[pos]].ad) {
      ++run.cursor;
      continue;
    }
    uint32_t c = cluster_at(run, run_index, pos);
    if (clusters_[c].failed && !knobs_.all_jobs_in_cluster) {
      ++run.cursor;
      continue;
    }
    Candidate cand;
    double w = 0;
    MatchStatus st = match_one(c, slice, got, pie_left - got, &cand, &w);
    if (st == MatchStatus::kOverSlice) {
      run.over_limit = true;
      break;
    }
    ++run.cursor;
    if (st == MatchStatus::kMatched) {
      record(run, run.order[pos], cand);
      got += w;
      continue;
    }
    if (!clusters_[c].failed || knobs_.all_jobs_in_cluster) ++run.rejected;
    clusters_[c].failed = true;
    // NEGOTIATE_ALL_JOBS_IN_CLUSTER: the next job of this group is tried afresh.
    for (MatchList& l : lists_) {
      if (l.cluster == c) l.cluster = UINT32_MAX;
    }
  }
  return got;
}

// Slot weight not yet handed out: idle slots, what partitionable slots have left, and running
// slots when preemption is considered (they are part of the pie).
double Cycle::free_weight(bool with_running) const {
  double w = 0;
  for (const SlotView& s : slots_) {
    if (s.taken || s.use == SlotUse::kSkip) continue;
    if (s.use == SlotUse::kRunning && !(with_running && knobs_.consider_preemption)) continue;
    w += !s.partitionable          ? slot_weight_of(s)
         : !plan_.use_slot_weights ? 1.0
         : s.consumption           ? slot_weight_of(s)
                                   : static_cast<double>(std::max<int64_t>(0, s.have[0]));
  }
  return w;
}

// The weight of the smallest slot a match could take now: a slice under it may still take one
// slot (a 1-CPU job's slice of 1 must not starve on a pool of 2-CPU static slots). A
// partitionable slot counts as 1: a take is at least one unit of it.
double Cycle::smallest_free_slot_weight() const {
  double smallest = 0;
  for (const SlotView& s : slots_) {
    if (s.taken || s.use == SlotUse::kSkip) continue;
    const double w = s.partitionable ? 1.0 : slot_weight_of(s);
    if (w > 0 && (smallest <= 0 || w < smallest)) smallest = w;
  }
  return smallest > 0 ? smallest : 1.0;
}

// One group's round: the pie spin over its members, each slice negotiated in turn.
void Cycle::run_round(const fairshare::GroupRound& round) {
  fairshare::PieSpin pie = fairshare::round_pie(round, plan_.pies, pool_weight_, free_weight(),
                                                smallest_free_slot_weight());
  fairshare::Spin spin;
  while (pie.set_unclaimed(unclaimed_weight()), pie.next(&spin)) {
    for (const fairshare::Slice& slice : spin.slices) {
      const size_t input = round.members[slice.submitter];
      SubmitterRun& run = runs_[run_of_[input]];
      double got = negotiate_submitter(run_of_[input], slice, pie.pie_left());
      pie.record(slice.submitter, got, !run.over_limit);
      plan_.pies[input].demand = std::max(0.0, plan_.pies[input].demand - got);
      plan_.pies[input].usage += got;
    }
    if (free_weight() <= 0) break;
  }
}

CycleResult Cycle::run() {
  cache_ = in_.match_cache;
  if (cache_) {
    cache_->begin_cycle(settings_, in_.slots.size());
    for (const classad::ExprPtr* e : {&knobs_.pre_job_rank, &knobs_.post_job_rank})
      if (*e) rank_roots_.push_back(e->get());
  }
  setup_slots();
  setup_submitters();
  // The pie: every slot the cycle may match, or preempt when preemption is considered.
  // NEGOTIATOR_USE_SLOT_WEIGHTS first (read with the other settings; a warning if it does not
  // read).
  plan_.use_slot_weights = settings_->use_slot_weights;
  for (SlotView& s : slots_)
    if (!s.partitionable) s.weight = fairshare::slot_weight(*s.ad, plan_.use_slot_weights);
  for (const SlotView& s : slots_) {
    if (s.use == SlotUse::kSkip) continue;
    if (s.use == SlotUse::kRunning && !knobs_.consider_preemption) continue;
    pool_weight_ += slot_weight_of(s);
  }
  if (in_.pool_weight > 0) pool_weight_ = in_.pool_weight;
  // Each submitter's demand: the CPUs its idle jobs request, counted only up to the pie (more
  // changes no share).
  std::vector<double> demand(in_.submitters.size(), 0);
  for (size_t i = 0; i < in_.submitters.size(); ++i) {
    for (const IdleJob& j : in_.submitters[i].jobs) {
      if (demand[i] > pool_weight_) break;
      if (knobs_.job_constraint && (!j.ad || !passes(*j.ad, knobs_.job_constraint))) continue;
      double cpus = 1;
      if (j.ad && !request_cpus(*j.ad, &cpus)) cpus = 1;
      demand[i] += cpus > 0 ? cpus : 1;
    }
  }
  fair_plan(in_, *settings_, demand, pool_weight_, &plan_, &result_.warnings);
  for (const fairshare::GroupRound& round : plan_.rounds) {
    if (free_weight() <= 0) break;
    run_round(round);
  }
  for (const SubmitterRun& run : runs_) {
    result_.submitters[run.outcome].matched = run.matched;
    result_.submitters[run.outcome].rejected = run.rejected;
  }
  result_.autoclusters = builder_->count();
  result_.quotas = plan_.quotas;
  lists_.clear();
  clusters_.clear();
  return std::move(result_);
}

}  // namespace

CycleResult negotiate(const CycleInput& in) {
  Cycle cycle(in);
  return cycle.run();
}

}  // namespace kite::negotiator
