// The central manager's claims on the agents (see claims.h).
#include "agent/negotiator/claims.h"

#include <strings.h>
#include <sys/random.h>

#include <algorithm>
#include <ctime>
#include <vector>

#include "agent/cm/collector_server.h"
#include "agent/cm/job_commits.h"
#include "agent/core/ad_json.h"
#include "agent/core/log.h"
#include "agent/negotiator/job_updates.h"
#include "agent/negotiator/output_files.h"
#include "policy/accountant/accountant.h"
#include "policy/classad/match.h"

namespace kite::negotiator {

namespace {

int64_t now_s() {
  return std::time(nullptr);
}

// The shortest alive interval a short JobLeaseDuration brings (the reference's 10 s), unless
// ALIVE_INTERVAL itself is shorter.
constexpr int64_t kMinAliveInterval = 10;

// 32 bytes from the kernel's CSPRNG (what /dev/urandom reads), as 64 hex digits.
bool new_claim_id(std::string* out) {
  unsigned char b[32];
  size_t got = 0;
  while (got < sizeof b) {
    ssize_t n = ::getrandom(b + got, sizeof b - got, 0);
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  static const char kHex[] = "0123456789abcdef";
  out->clear();
  for (unsigned char c : b) {
    out->push_back(kHex[c >> 4]);
    out->push_back(kHex[c & 15]);
  }
  return true;
}

int64_t cfg_int(const config::Config* cfg, const char* name, int64_t def) {
  std::string v;
  if (!cfg || !cfg->get(name, &v) || v.empty()) return def;
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (!end || *end != '\0') {
    KLOG_WARN("%s = %s is not a number; using %lld", name, v.c_str(), static_cast<long long>(def));
    return def;
  }
  return n;
}

// The job is on a claim as far as the queue is concerned.
bool on_claim(int status) {
  return status == queue::kRunning || status == queue::kSuspended;
}

std::string jid(queue::JobId id) {
  return std::to_string(id.cluster) + "." + std::to_string(id.proc);
}

bool fits(classad::ClassAd& job, const classad::ClassAd& first, classad::ClassAd* slot) {
  for (const char* k : {"RequestCpus", "RequestMemory", "RequestDisk"}) {
    double want = 0, have = 0;
    if (job.evaluate_real(k, want) && first.evaluate_real(k, have) && want > have) return false;
  }
  if (!slot) return true;
  classad::MatchPair mp(job, *slot);
  return mp.symmetric();
}

}  // namespace

std::string job_submitter(const classad::ClassAd& job, const std::string& uid_domain) {
  std::string user;
  if (!job.evaluate_string("AccountingGroup", user) || user.empty())
    job.evaluate_string("Owner", user);
  bool nice = false;
  job.evaluate_bool("NiceUser", nice);
  return accountant::submitter_name(user, uid_domain, nice);
}

ClaimLayer::ClaimLayer(cm::CmContext* ctx) : ctx_(ctx) {
  alive_interval_ = std::max<int64_t>(1, cfg_int(ctx->cfg, "ALIVE_INTERVAL", 300));
  max_missed_ = std::max<int64_t>(1, cfg_int(ctx->cfg, "MAX_CLAIM_ALIVES_MISSED", 6));
  worklife_ = cfg_int(ctx->cfg, "CLAIM_WORKLIFE", 1200);
  if (!ctx->cfg || !ctx->cfg->get("UID_DOMAIN", &uid_domain_) || uid_domain_.empty())
    uid_domain_ = "localdomain";
}

ClaimLayer::~ClaimLayer() = default;

void ClaimLayer::start() {
  int64_t now = now_s();
  for (const queue::JobSummary& j : ctx_->jobs->jobs()) {
    if (!on_claim(j.status)) continue;
    std::string err;
    classad::AdPtr ad = ctx_->jobs->job_ad(j.id, &err);
    limbo_[j.id] = now + lease_of(ad.get());
  }
  if (!limbo_.empty())
    KLOG_INFO("claims: %zu running jobs wait for their agents' reports", limbo_.size());
  timer_ = new uv_timer_t{};
  uv_timer_init(ctx_->loop, timer_);
  timer_->data = this;
  // Claims whose job has a short JobLeaseDuration are kept alive more often than
  // ALIVE_INTERVAL (set_lease): the timer ticks at the shortest interval a claim may have.
  tick_s_ = std::min<int64_t>(alive_interval_, kMinAliveInterval);
  uint64_t ms = static_cast<uint64_t>(tick_s_) * 1000;
  uv_timer_start(
      timer_, [](uv_timer_t* t) { static_cast<ClaimLayer*>(t->data)->tick(); }, ms, ms);
}

void ClaimLayer::stop() {
  if (!timer_) return;
  uv_timer_stop(timer_);
  uv_close(reinterpret_cast<uv_handle_t*>(timer_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  timer_ = nullptr;
}

int64_t ClaimLayer::lease_of(const classad::ClassAd* job) const {
  int64_t jl = 0;
  // HTCONDOR: ep-policy "The Claimed State and Leases": JobLeaseDuration, else
  // MAX_CLAIM_ALIVES_MISSED alive intervals (the agent's core computes the same).
  if (job && job->evaluate_int("JobLeaseDuration", jl) && jl > 0) return jl;
  return alive_interval_ * max_missed_;
}

void ClaimLayer::set_lease(Claim* c, const classad::ClassAd* job) const {
  c->lease = lease_of(job);
  // HTCONDOR: ep-policy "If the value of JobLeaseDuration/3 is less than the current alive
  // interval, then the alive interval is set to either this lower value or the imposed lowest
  // limit on the alive interval of 10 seconds."
  c->alive_every = alive_interval_;
  if (c->lease / 3 < c->alive_every)
    c->alive_every = std::max<int64_t>(c->lease / 3, std::min(kMinAliveInterval, alive_interval_));
}

int ClaimLayer::status_of(queue::JobId id) const {
  const auto& v = ctx_->jobs->jobs();
  auto it = std::lower_bound(v.begin(), v.end(), id,
                             [](const queue::JobSummary& s, queue::JobId k) { return s.id < k; });
  return it != v.end() && it->id == id ? it->status : 0;
}

bool ClaimLayer::busy(queue::JobId id) const {
  return job_claim_.count(id) || limbo_.count(id);
}

std::vector<ClaimLayer::RunningJob> ClaimLayer::running() const {
  std::vector<RunningJob> out;
  for (const auto& [id, c] : claims_) {
    if (c.preempting) continue;  // a request not yet answered holds no slot
    const bool running = c.state == State::kActive && c.has_job;
    out.push_back({&c.submitter, c.slot.empty() ? c.slot_name : c.slot + "@" + c.machine,
                   c.slot_ad.get(), running && c.job_ad ? c.job_ad.get() : c.first_job.get(),
                   running});
  }
  return out;
}

std::vector<queue::JobId> ClaimLayer::unreported() const {
  std::vector<queue::JobId> out;
  for (const auto& [id, deadline] : limbo_) out.push_back(id);
  return out;
}

const ClaimLayer::Claim* ClaimLayer::holder_of(const std::string& slot_name) const {
  for (const auto& [id, c] : claims_) {
    if (!c.preempting && !c.slot.empty() &&
        strcasecmp((c.slot + "@" + c.machine).c_str(), slot_name.c_str()) == 0)
      return &c;
  }
  return nullptr;
}

bool ClaimLayer::offered(const std::string& slot_name, const classad::ClassAd& ad) const {
  for (const auto& [id, c] : claims_) {
    bool pslot = false;
    if (c.slot_ad) c.slot_ad->evaluate_bool("PartitionableSlot", pslot);
    bool on_it =
        (!pslot && c.slot_name == slot_name) ||
        (!c.slot.empty() && strcasecmp((c.slot + "@" + c.machine).c_str(), slot_name.c_str()) == 0);
    if (!on_it) continue;
    if (c.state == State::kClaiming || !c.preempted_by.empty()) return false;
    std::string state;
    if (!ad.evaluate_string("State", state) || strcasecmp(state.c_str(), "Claimed") != 0)
      return false;
  }
  return true;
}

void ClaimLayer::log_committed(std::string line) {
  // The line says what the queue has on disk (tests and bench-e2e read it so): written after
  // the commit, with the frames that wait for it.
  auto log_it = [line = std::move(line)] { KLOG_INFO("%s", line.c_str()); };
  if (ctx_->commits) {
    ctx_->commits->after_commit(std::move(log_it));
  } else {
    log_it();
  }
}

void ClaimLayer::send(Claim* c, core::Json msg) {
  msg.set("claim_id", c->id);
  // After the queue's updates so far are on disk: an activation leaves once its job is
  // Running there, an exit-ack once the exit is recorded.
  if (!c->conn) return;
  if (ctx_->commits) {
    ctx_->commits->send(c->conn, std::move(msg));
  } else {
    c->conn->send(msg);
  }
}

void ClaimLayer::claim(const Match& m, classad::AdPtr job) {
  queue::JobId id{m.cluster, m.proc};
  if (busy(id) || status_of(id) != queue::kIdle) return;
  net::TlsConn* conn = ctx_->collector->node(m.machine);
  if (!conn) {
    KLOG_INFO("negotiator: %s matched %s, whose agent is not connected", jid(id).c_str(),
              m.slot.c_str());
    return;
  }
  Claim c;
  if (!new_claim_id(&c.id)) {
    KLOG_ERROR("claims: the kernel gave no random bytes for a claim id");
    return;
  }
  c.machine = m.machine;
  c.slot_name = m.slot;
  c.submitter = m.submitter;
  c.conn = conn;
  c.job = id;
  c.has_job = true;
  c.created = now_s();
  set_lease(&c, job.get());
  if (const collector::StoredAd* s = ctx_->collector->store().find("Machine", m.slot))
    c.slot_ad = classad::AdPtr(s->ad->copy());
  c.first_job = classad::AdPtr(job->copy());
  core::Json msg = core::Json::message("claim");
  msg.set("slot", m.slot.substr(0, m.slot.find('@')));
  core::set_ad(&msg, "job", *job);
  if (m.preempting) {
    // HTCONDOR: ep-policy "the machine may preempt" for a better RANK (the negotiator has
    // decided; the startd checks RANK again, retires the job and vacates it, then the new claim
    // is Claimed/Idle and this claim's "claimed" comes).
    c.preempting = true;
    // A partitionable slot preempting its dynamic slots (ALLOW_PSLOT_PREEMPTION) is the
    // startd's claim "by priority" whatever the victims' reasons: it picks the same victims.
    msg.set_bool("preempting", true)
        .set("reason", m.partitionable && !m.preempted_slots.empty() ? "priority" : m.reason);
    if (const Claim* v = holder_of(m.slot)) c.victim = v->id;
  }
  std::string cid = c.id;
  job_claim_[id] = cid;
  if (!c.victim.empty()) claims_[c.victim].preempted_by = cid;
  Claim& stored = claims_[cid] = std::move(c);
  send(&stored, std::move(msg));
  ctx_->usage_changed();
  if (m.preempting) {
    KLOG_INFO("claims: claiming %s for %s (%s), preempting %s by %s", m.slot.c_str(),
              jid(id).c_str(), m.submitter.c_str(),
              m.preempted_user.empty() ? "its claim" : m.preempted_user.c_str(), m.reason.c_str());
  } else {
    KLOG_INFO("claims: claiming %s for %s (%s)", m.slot.c_str(), jid(id).c_str(),
              m.submitter.c_str());
  }
}

ClaimLayer::Claim* ClaimLayer::claim_of(net::TlsConn* conn, const core::Json& msg) {
  auto it = claims_.find(msg.str("claim_id"));
  if (it == claims_.end()) return nullptr;
  // An agent speaks only for the claims on its own machine.
  if (!conn->peer().may_act_for_machine(it->second.machine)) {
    conn->send_error(msg.type() + ": the claim is not on your machine");
    return nullptr;
  }
  it->second.conn = conn;
  it->second.lost_since_ms = 0;
  return &it->second;
}

bool ClaimLayer::on_frame(net::TlsConn* c, core::Json& msg) {
  static const char* const kTypes[] = {"claimed", "refused",  "started",     "usage",
                                       "exit",    "released", "not-started", "claims"};
  std::string type = msg.type();
  if (std::none_of(std::begin(kTypes), std::end(kTypes), [&](const char* t) { return type == t; }))
    return false;
  if (!ctx_->collector->allowed(c, policy::AuthLevel::kDaemon, type)) return true;
  if (type == "claims") {
    on_report(c, msg);
    return true;
  }
  Claim* cl = claim_of(c, msg);
  if (!cl) {
    if (type == "exit") {
      // An exit for a claim we no longer hold (dropped after its lease): acknowledged so that
      // the agent forgets it; the job was given back to the queue when the claim was dropped.
      core::Json ack = core::Json::message("exit-ack");
      ack.set("claim_id", msg.str("claim_id"));
      c->send(ack);
    }
    return true;
  }
  if (type == "claimed") {
    on_claimed(cl, msg);
  } else if (type == "refused") {
    KLOG_INFO("claims: %s refused the claim for %s: %s", cl->slot_name.c_str(),
              jid(cl->job).c_str(), msg.str("reason").c_str());
    drop(cl->id, "refused");
  } else if (type == "started") {
    KLOG_DEBUG("claims: %s started on %s", jid(cl->job).c_str(), cl->slot_name.c_str());
  } else if (type == "suspended" || type == "continued") {
    int st = status_of(cl->job);
    std::string err;
    if (cl->has_job && st == (type == "suspended" ? queue::kRunning : queue::kSuspended) &&
        !job_suspended(ctx_->jobs, cl->job, type == "suspended", now_s(), &err))
      KLOG_ERROR("claims: %s: %s", jid(cl->job).c_str(), err.c_str());
  } else if (type == "usage") {
    // Usage while running: kept in the queue when the job ends (the exit carries it again).
  } else if (type == "exit") {
    on_exit(cl, msg);
  } else if (type == "not-started") {
    KLOG_WARN("claims: %s did not start on %s: %s", jid(cl->job).c_str(), cl->slot_name.c_str(),
              msg.str("reason").c_str());
    release(cl, "the job did not start");
  } else if (type == "released") {
    KLOG_INFO("claims: the agent ended claim on %s: %s", cl->slot_name.c_str(),
              msg.str("reason").c_str());
    drop(cl->id, msg.str("reason"));
  }
  return true;
}

void ClaimLayer::on_claimed(Claim* c, const core::Json& msg) {
  std::string slot = msg.str("slot");
  if (c->state != State::kClaiming || slot.empty() || slot.size() > 128) {
    c->conn->send_error("claimed: unexpected for this claim");
    return;
  }
  c->slot = slot;
  c->state = State::kIdle;
  c->preempting = false;
  c->victim.clear();
  queue::JobId id = c->job;
  std::string err;
  classad::AdPtr job =
      status_of(id) == queue::kIdle ? ctx_->jobs->job_ad(id, &err) : classad::AdPtr();
  if (!job) {
    // Removed or held while we were claiming: the claim may run another job.
    job_claim_.erase(id);
    c->has_job = false;
    claim_idle(c);
    return;
  }
  activate(c, id, std::move(job));
}

void ClaimLayer::activate(Claim* c, queue::JobId id, classad::AdPtr job) {
  std::string err;
  // Running in the queue before the agent hears of it: a CM that dies now finds the job
  // Running at restart and waits for the agent's report instead of matching it again.
  if (!job_running(ctx_->jobs, id, c->slot + "@" + c->machine, now_s(), &err)) {
    KLOG_ERROR("claims: %s: %s", jid(id).c_str(), err.c_str());
    job_claim_.erase(id);
    c->has_job = false;
    release(c, "the queue could not be updated");
    return;
  }
  c->job = id;
  c->has_job = true;
  c->state = State::kActive;
  c->requeue_on_stop = true;
  set_lease(c, job.get());  // the job's JobLeaseDuration is the claim's lease from its start
  job_claim_[id] = c->id;
  core::Json msg = core::Json::message("activate");
  core::set_ad(&msg, "job", *job);
  send(c, std::move(msg));
  c->job_ad = std::move(job);
  ctx_->usage_changed();
  log_committed("claims: " + jid(id) + " activated on " + c->slot + "@" + c->machine);
}

void ClaimLayer::on_exit(Claim* c, const core::Json& msg) {
  queue::JobId id{static_cast<int32_t>(msg.num("cluster", -1)),
                  static_cast<int32_t>(msg.num("proc", -1))};
  const cJSON* ex = msg.child("exit");
  if (!c->has_job || !(id == c->job) || !cJSON_IsObject(ex)) {
    KLOG_WARN("claims: an exit for %s that claim %s does not run", jid(id).c_str(),
              c->slot_name.c_str());
    send(c, core::Json::message("exit-ack"));
    return;
  }
  core::Json exit(cJSON_Duplicate(ex, true));
  std::string err, outcome = exit.str("outcome", "exit");
  if (on_claim(status_of(id))) {
    // Suspended jobs end through Running (the queue's transitions).
    if (outcome != "evict" && status_of(id) == queue::kSuspended &&
        !job_suspended(ctx_->jobs, id, false, now_s(), &err))
      KLOG_ERROR("claims: %s: %s", jid(id).c_str(), err.c_str());
    if (outcome != "evict" || c->requeue_on_stop) {
      classad::AdPtr job = ctx_->jobs->job_ad(id, &err);
      if (job && outcome == "exit" && !write_job_output(*job, exit, &err))
        KLOG_WARN("claims: %s: %s", jid(id).c_str(), err.c_str());
      if (!job_ended(ctx_->jobs, id, exit, now_s(), &err))
        KLOG_ERROR("claims: %s: %s", jid(id).c_str(), err.c_str());
    }
  }
  // Acknowledged once the queue has it on disk: until then the agent keeps the exit and
  // reports it again to a CM that restarts.
  send(c, core::Json::message("exit-ack"));
  log_committed("claims: " + jid(id) + " ended on " + c->slot + "@" + c->machine + " (" + outcome +
                ")");
  job_claim_.erase(id);
  c->has_job = false;
  c->job_ad = classad::AdPtr();
  c->state = State::kIdle;
  std::string cid = c->id;
  ctx_->usage_changed();
  claim_idle(c);
  // A claim that took the next job leaves the free slots as they were: no cycle needed.
  auto it = claims_.find(cid);
  if (it == claims_.end() || !it->second.has_job) ctx_->reschedule();
}

void ClaimLayer::claim_idle(Claim* c) {
  if (c->state != State::kIdle || c->has_job) return;
  if (!c->preempted_by.empty()) {
    // Its job was vacated for a preempting claim: the agent ends this claim when it switches
    // to the new one (a release from us now could reach the slot after the switch).
    drop(c->id, "preempted by a better claim");
    return;
  }
  if (c->ended) {
    release(c, "the agent ended the claim");
    return;
  }
  if (worklife_ >= 0 && now_s() - c->created >= worklife_) {
    release(c, "CLAIM_WORKLIFE is over");
    return;
  }
  // The same submitter's next idle job (JobPrio, then QDate) that fits what was matched.
  std::vector<const queue::JobSummary*> idle;
  for (const queue::JobSummary& j : ctx_->jobs->jobs()) {
    if (j.status == queue::kIdle && !busy(j.id)) idle.push_back(&j);
  }
  // Only the first few are read (an ad read is a SQLite lookup): the loop stays responsive
  // on a large queue, and a claim that finds none of them is released.
  constexpr size_t kMaxTried = 64;
  size_t n = std::min(kMaxTried, idle.size());
  std::partial_sort(idle.begin(), idle.begin() + static_cast<long>(n), idle.end(),
                    [](const auto* a, const auto* b) {
                      if (a->prio != b->prio) return a->prio > b->prio;
                      return a->qdate != b->qdate ? a->qdate < b->qdate : a->id < b->id;
                    });
  idle.resize(n);
  for (const queue::JobSummary* j : idle) {
    std::string err;
    classad::AdPtr ad = ctx_->jobs->job_ad(j->id, &err);
    if (!ad || job_submitter(*ad, uid_domain_) != c->submitter) continue;
    if (!fits(*ad, *c->first_job, c->slot_ad.get())) continue;
    activate(c, j->id, std::move(ad));
    return;
  }
  release(c, "no further job for this claim");
}

void ClaimLayer::release(Claim* c, const std::string& why) {
  KLOG_INFO("claims: releasing %s@%s: %s", c->slot.empty() ? c->slot_name.c_str() : c->slot.c_str(),
            c->slot.empty() ? "" : c->machine.c_str(), why.c_str());
  send(c, core::Json::message("release"));
  drop(c->id, why);
}

void ClaimLayer::drop(const std::string& id, const std::string& why) {
  auto it = claims_.find(id);
  if (it == claims_.end()) return;
  Claim& c = it->second;
  // A preemption pair: the other side forgets this one.
  auto other = claims_.find(!c.victim.empty() ? c.victim : c.preempted_by);
  if (other != claims_.end() && other != it) {
    if (other->second.preempted_by == id) other->second.preempted_by.clear();
    if (other->second.victim == id) other->second.victim.clear();
  }
  ctx_->usage_changed();
  if (c.has_job) {
    job_claim_.erase(c.job);
    std::string err;
    if (c.state == State::kActive && on_claim(status_of(c.job))) {
      KLOG_INFO("claims: %s back to Idle (%s)", jid(c.job).c_str(), why.c_str());
      if (!job_idle(ctx_->jobs, c.job, now_s(), &err))
        KLOG_ERROR("claims: %s: %s", jid(c.job).c_str(), err.c_str());
    }
  }
  claims_.erase(it);
}

void ClaimLayer::stop_job(int32_t cluster, int32_t proc, bool requeue) {
  queue::JobId id{cluster, proc};
  auto it = job_claim_.find(id);
  if (it == job_claim_.end()) return;
  Claim* c = &claims_[it->second];
  if (c->state != State::kActive) return;  // still claiming: on_claimed sees it is not Idle
  c->requeue_on_stop = requeue;
  send(c, core::Json::message("vacate-job"));
}

void ClaimLayer::on_closed(net::TlsConn* conn) {
  uint64_t now = uv_now(ctx_->loop);
  std::vector<std::string> claiming;
  for (auto& [id, c] : claims_) {
    if (c.conn != conn) continue;
    c.conn = nullptr;
    c.lost_since_ms = now;
    if (c.state == State::kClaiming) claiming.push_back(id);
  }
  // A claim request with no answer: the job was not started (it is Idle in the queue).
  for (const std::string& id : claiming) drop(id, "the agent went away while claiming");
}

void ClaimLayer::on_report(net::TlsConn* conn, const core::Json& msg) {
  const cJSON* list = msg.child("claims");
  if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > 4096) {
    conn->send_error("claims: an array of at most 4096 claims");
    return;
  }
  const std::string& machine = conn->peer().cn;
  std::set<std::string> reported;
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, list) {
    const cJSON* idj = cJSON_GetObjectItemCaseSensitive(item, "claim_id");
    if (!cJSON_IsString(idj)) continue;
    reported.insert(idj->valuestring);
    adopt(conn, machine, item);
  }
  // Ours on this machine that the agent no longer holds: their jobs are gone.
  std::vector<std::string> lost;
  for (auto& [id, c] : claims_) {
    if (strcasecmp(c.machine.c_str(), machine.c_str()) == 0 && !reported.count(id) &&
        c.state != State::kClaiming)
      lost.push_back(id);
  }
  for (const std::string& id : lost) drop(id, "the agent no longer holds the claim");
  ctx_->reschedule();
}

void ClaimLayer::adopt(net::TlsConn* conn, const std::string& machine, const cJSON* item) {
  core::Json m(cJSON_Duplicate(item, true));
  std::string id = m.str("claim_id"), slot = m.str("slot");
  queue::JobId job{static_cast<int32_t>(m.num("cluster", -1)),
                   static_cast<int32_t>(m.num("proc", -1))};
  auto it = claims_.find(id);
  if (it != claims_.end()) {
    if (!conn->peer().may_act_for_machine(it->second.machine)) return;
    it->second.conn = conn;
    it->second.lost_since_ms = 0;
  } else {
    bool ours = m.flag("running") || m.has("exit");
    auto l = limbo_.find(job);
    if (!ours || l == limbo_.end() || !on_claim(status_of(job)) || slot.empty() ||
        slot.size() > 128) {
      // Not a claim the queue knows running: the agent lets it go (and kills its job).
      KLOG_INFO("claims: %s reports an unknown claim on %s (job %s): released", machine.c_str(),
                slot.c_str(), jid(job).c_str());
      core::Json r = core::Json::message("release");
      r.set("claim_id", id);
      conn->send(r);
      return;
    }
    limbo_.erase(l);
    Claim c;
    c.id = id;
    c.machine = machine;
    c.slot = slot;
    c.slot_name = slot.substr(0, slot.find('_')) + "@" + machine;
    c.conn = conn;
    c.state = State::kActive;
    c.job = job;
    c.has_job = true;
    c.created = now_s();
    std::string err;
    classad::AdPtr ad = ctx_->jobs->job_ad(job, &err);
    if (ad) {
      c.submitter = job_submitter(*ad, uid_domain_);
      set_lease(&c, ad.get());
      c.first_job = classad::AdPtr(ad->copy());
      c.job_ad = std::move(ad);
    }
    if (!c.first_job) c.first_job = classad::AdPtr(classad::ClassAd::make());
    job_claim_[job] = id;
    claims_[id] = std::move(c);
    it = claims_.find(id);
    KLOG_INFO("claims: re-adopted %s running on %s@%s", jid(job).c_str(), slot.c_str(),
              machine.c_str());
    ctx_->usage_changed();
  }
  Claim* c = &it->second;
  c->ended = m.flag("ended");
  if (m.has("exit") && c->has_job && c->job == job) {
    core::Json e = core::Json::message("exit");
    e.set("cluster", job.cluster).set("proc", job.proc);
    e.set_json("exit", core::Json(cJSON_Duplicate(m.child("exit"), true)));
    on_exit(c, e);
  } else if (m.flag("ended")) {
    drop(id, "the agent ended the claim");
  } else if (c->state == State::kActive && c->has_job && !m.flag("running")) {
    // Our activation never reached the agent (it restarted meanwhile): the job did not start.
    KLOG_INFO("claims: %s did not start on %s@%s: back to Idle", jid(c->job).c_str(),
              c->slot.c_str(), c->machine.c_str());
    queue::JobId lost = c->job;
    std::string err;
    job_claim_.erase(lost);
    c->has_job = false;
    c->job_ad = classad::AdPtr();
    c->state = State::kIdle;
    ctx_->usage_changed();
    if (on_claim(status_of(lost)) && !job_idle(ctx_->jobs, lost, now_s(), &err))
      KLOG_ERROR("claims: %s: %s", jid(lost).c_str(), err.c_str());
    claim_idle(c);
  }
}

void ClaimLayer::tick() {
  int64_t now = now_s();
  uint64_t now_ms = uv_now(ctx_->loop);
  // Alives for the claims of each connected agent that are due one.
  std::map<net::TlsConn*, std::vector<std::string>> by_conn;
  std::vector<std::string> expired;
  for (auto& [id, c] : claims_) {
    uint64_t every_ms = static_cast<uint64_t>(c.alive_every) * 1000;
    if (c.conn && c.state != State::kClaiming && now_ms + 500 >= c.next_alive_ms) {
      by_conn[c.conn].push_back(id);
      c.next_alive_ms = now_ms + every_ms;
    }
    // HTCONDOR: ep-policy "The Claimed State and Leases". The job goes back to the queue only
    // once the claim's starter has killed it: the starter counts the lease from the moment its
    // agent went, which is no later than when we saw the agent's connection close; one more
    // alive interval covers the kill and our tick.
    uint64_t give_up_ms = static_cast<uint64_t>(c.lease) * 1000 + every_ms;
    if (!c.conn && c.lost_since_ms && now_ms - c.lost_since_ms >= give_up_ms) expired.push_back(id);
  }
  for (auto& [conn, ids] : by_conn) {
    core::Json msg = core::Json::message("alive");
    core::Json arr(cJSON_CreateArray());
    for (const std::string& id : ids)
      cJSON_AddItemToArray(arr.get(), cJSON_CreateString(id.c_str()));
    msg.set_json("claim_ids", std::move(arr));
    conn->send(msg);
  }
  for (const std::string& id : expired) drop(id, "the claim's lease ran out");
  // Running jobs nobody reported within their lease (CM restart) go back to the queue.
  bool freed = !expired.empty();
  for (auto it = limbo_.begin(); it != limbo_.end();) {
    if (now < it->second) {
      ++it;
      continue;
    }
    std::string err;
    if (on_claim(status_of(it->first))) {
      KLOG_INFO("claims: %s was not reported within its lease: back to Idle",
                jid(it->first).c_str());
      if (!job_idle(ctx_->jobs, it->first, now, &err)) KLOG_ERROR("claims: %s", err.c_str());
    }
    it = limbo_.erase(it);
    freed = true;
  }
  if (freed) ctx_->reschedule();
}

}  // namespace kite::negotiator
