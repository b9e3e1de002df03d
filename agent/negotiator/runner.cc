// The negotiator's runner (see runner.h).
#include "agent/negotiator/runner.h"

#include <malloc.h>

#include <ctime>

#include "agent/cm/collector_server.h"
#include "agent/core/log.h"
#include "policy/config/typed.h"
#include "policy/fairshare/slot_weight.h"
#include "policy/negotiator/knobs.h"

namespace kite::negotiator {

namespace {

// Cycles on demand start at once but at most one per this many ms: submits and exits close
// together make one cycle, and a lone submit does not wait.
constexpr uint64_t kRescheduleSpacingMs = 20;
constexpr size_t kAdsPerTurn = 256;     // job ads read from SQLite per loop turn
constexpr size_t kTrimAfterAds = 4096;  // cycles that read this many ads give memory back

}  // namespace

NegotiatorRunner::NegotiatorRunner(cm::CmContext* ctx, ClaimLayer* claims, Accounting* accounting)
    : ctx_(ctx), claims_(claims), accounting_(accounting) {
  if (!ctx->cfg || !ctx->cfg->get("UID_DOMAIN", &uid_domain_) || uid_domain_.empty())
    uid_domain_ = "localdomain";
}

NegotiatorRunner::~NegotiatorRunner() = default;

uv_timer_t* NegotiatorRunner::new_timer() {
  auto* t = new uv_timer_t{};
  uv_timer_init(ctx_->loop, t);
  t->data = this;
  return t;
}

void NegotiatorRunner::start() {
  int64_t interval = 60;
  std::string v;
  if (ctx_->cfg && ctx_->cfg->get("NEGOTIATOR_INTERVAL", &v) && !v.empty()) {
    char* end = nullptr;
    long long n = std::strtoll(v.c_str(), &end, 10);
    if (end && *end == '\0' && n > 0) {
      interval = n;
    } else {
      KLOG_WARN("NEGOTIATOR_INTERVAL = %s is not a positive number; using 60", v.c_str());
    }
  }
  interval_ = new_timer();
  soon_ = new_timer();
  chunk_ = new uv_idle_t{};
  uv_idle_init(ctx_->loop, chunk_);
  chunk_->data = this;
  uint64_t ms = static_cast<uint64_t>(interval) * 1000;
  uv_timer_start(
      interval_, [](uv_timer_t* t) { static_cast<NegotiatorRunner*>(t->data)->begin_cycle(); }, ms,
      ms);
  reschedule();  // a first cycle right after the start
}

void NegotiatorRunner::stop() {
  if (chunk_) {
    uv_idle_stop(chunk_);
    uv_close(reinterpret_cast<uv_handle_t*>(chunk_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_idle_t*>(h); });
    chunk_ = nullptr;
  }
  for (uv_timer_t** t : {&interval_, &soon_}) {
    if (!*t) continue;
    uv_timer_stop(*t);
    uv_close(reinterpret_cast<uv_handle_t*>(*t),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    *t = nullptr;
  }
}

void NegotiatorRunner::reschedule() {
  if (!soon_ || soon_armed_) return;
  soon_armed_ = true;
  uint64_t now = uv_now(ctx_->loop);
  uint64_t next = last_cycle_ms_ + kRescheduleSpacingMs;
  uv_timer_start(
      soon_,
      [](uv_timer_t* t) {
        auto* r = static_cast<NegotiatorRunner*>(t->data);
        r->soon_armed_ = false;
        r->begin_cycle();
      },
      last_cycle_ms_ && next > now ? next - now : 0, 0);
}

bool NegotiatorRunner::on_frame(net::TlsConn* c, core::Json& msg) {
  if (msg.type() != "reschedule") return false;
  // condor_reschedule needs WRITE.
  if (!ctx_->collector->allowed(c, policy::AuthLevel::kWrite, "reschedule")) return true;
  KLOG_INFO("negotiator: reschedule requested by %s/%s", c->peer().role.c_str(),
            c->peer().cn.c_str());
  reschedule();
  core::Json ok = core::Json::message("ok");
  ok.set("message", "reschedule requested");
  c->send(ok);
  return true;
}

void NegotiatorRunner::begin_cycle() {
  if (cycling_) {
    again_ = true;
    return;
  }
  cycling_ = true;
  again_ = false;
  started_ms_ = uv_now(ctx_->loop);
  last_cycle_ms_ = started_ms_;
  ids_.clear();
  next_ = 0;
  in_ = CycleInput{};
  in_.cfg = ctx_->cfg;
  in_.now = std::time(nullptr);
  submitter_index_.clear();
  // No slot ad at all: nothing can match, so the idle jobs' ads are not read (a queue of
  // 100,000 jobs would cost its whole size in memory for nothing). The accountant still runs.
  if (pool_has_slots()) {
    for (const queue::JobSummary& j : ctx_->jobs->jobs()) {
      if (j.status == queue::kIdle && !claims_->busy(j.id)) ids_.push_back(j.id);
    }
  }
  read_chunk();
}

bool NegotiatorRunner::pool_has_slots() const {
  collector::QuerySpec spec;
  spec.type = "Machine";
  spec.limit = 1;
  spec.shared = true;
  std::vector<classad::AdPtr> one;
  std::string err;
  return ctx_->collector->store().query(spec, &one, &err) && !one.empty();
}

void NegotiatorRunner::read_chunk() {
  size_t end = next_ + kAdsPerTurn < ids_.size() ? next_ + kAdsPerTurn : ids_.size();
  for (; next_ < end; ++next_) {
    std::string err;
    classad::AdPtr ad = ctx_->jobs->job_ad(ids_[next_], &err);
    if (!ad) continue;  // left the queue meanwhile
    std::string name = job_submitter(*ad, uid_domain_);
    auto [it, fresh] = submitter_index_.emplace(name, in_.submitters.size());
    if (fresh) {
      in_.submitters.emplace_back();
      in_.submitters.back().name = name;
    }
    IdleJob j;
    j.cluster = ids_[next_].cluster;
    j.proc = ids_[next_].proc;
    j.ad = std::move(ad);
    in_.submitters[it->second].jobs.push_back(std::move(j));
  }
  if (next_ < ids_.size()) {
    // The rest on a later loop turn: frames from agents and clients are served in between. An
    // idle handle, not a 0 ms timer: libuv (1.44 here) can run a timer re-armed with 0 ms in its
    // own callback again in the same timers phase, and with the timer a 10,000-job cycle kept
    // a client's handshake waiting past its 10 s timeout.
    if (!uv_is_active(reinterpret_cast<uv_handle_t*>(chunk_)))
      uv_idle_start(chunk_,
                    [](uv_idle_t* h) { static_cast<NegotiatorRunner*>(h->data)->read_chunk(); });
    return;
  }
  uv_idle_stop(chunk_);
  finish_cycle();
}

void NegotiatorRunner::finish_cycle() {
  size_t jobs = ids_.size();
  size_t matches = 0;
  // The accountant first: usage charged up to now, the priorities the pie is cut by.
  accounting_->begin_cycle(in_.now, &in_);
  if (jobs > 0) {
    cm::CollectorServer* col = ctx_->collector;
    collector::QuerySpec spec;
    spec.type = "Machine";
    std::string err;
    std::vector<classad::AdPtr> slots;
    if (!col->store().query(spec, &slots, &err))
      KLOG_ERROR("negotiator: slot ads: %s", err.c_str());
    bool use_slot_weights = true;
    if (ctx_->cfg) config::read_bool(*ctx_->cfg, "NEGOTIATOR_USE_SLOT_WEIGHTS", &use_slot_weights);
    // NEGOTIATOR_SLOT_CONSTRAINT: the slots this negotiator fetches (and divides) at all.
    const classad::ExprPtr fetch = knobs_read(ctx_->cfg, nullptr).slot_constraint;
    for (classad::AdPtr& s : slots) {
      if (!passes(*s, fetch)) continue;
      // The pie is the whole pool's slot weight, claimed slots included.
      in_.pool_weight += fairshare::slot_weight(*s, use_slot_weights);
      std::string name;
      s->evaluate_string("Name", name);
      if (claims_->offered(name, *s)) in_.slots.push_back(std::move(s));
    }
    CycleResult res = negotiate(in_);
    accounting_->end_cycle(std::move(res.quotas));
    // Ads by job for the claim layer.
    std::map<queue::JobId, classad::AdPtr*> ads;
    for (Submitter& sub : in_.submitters)
      for (IdleJob& j : sub.jobs) ads[queue::JobId{j.cluster, j.proc}] = &j.ad;
    for (const Match& m : res.matches) {
      auto it = ads.find(queue::JobId{m.cluster, m.proc});
      if (it != ads.end() && *it->second) claims_->claim(m, std::move(*it->second));
    }
    matches = res.matches.size();
  }
  KLOG_INFO(
      "negotiator: cycle with %zu idle jobs of %zu submitters and %zu slots: %zu matches "
      "(%llu ms)",
      jobs, in_.submitters.size(), in_.slots.size(), matches,
      static_cast<unsigned long long>(uv_now(ctx_->loop) - started_ms_));
  cm::NegotiatorStats& st = ctx_->negotiator_stats;
  ++st.cycles;
  st.last_cycle_seconds = static_cast<double>(uv_now(ctx_->loop) - started_ms_) / 1000;
  st.last_cycle_matches = matches;
  st.last_cycle_idle_jobs = jobs;
  st.matches += matches;
  in_ = CycleInput{};
  // A big cycle's job ads are freed now; hand their pages back so the CM's RSS stays the
  // queue's, not the largest cycle's.
  if (ids_.size() >= kTrimAfterAds) malloc_trim(0);
  ids_.clear();
  ids_.shrink_to_fit();
  cycling_ = false;
  if (again_) reschedule();
}

}  // namespace kite::negotiator
