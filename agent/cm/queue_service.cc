// The queue service's frames: chunked submits committed in one transaction, and queue/history
#if KITE_HAS_JOB_STORE  // the queue needs the durable store (SQLite)
// queries that examine a chunk of jobs per loop turn.
#include "agent/cm/queue_service.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <iterator>

#include "agent/cm/collector_server.h"
#include "agent/cm/job_commits.h"
#include "agent/core/log.h"
#include "agent/queue/event_log.h"
#include "agent/queue/job_events.h"
#include "agent/queue/job_log.h"
#include "agent/queue/job_projection.h"
#include "policy/classad/json.h"
#include "policy/classad/match.h"
#include "policy/classad/parser.h"

namespace kite::cm {
namespace {

using classad::AdPtr;
using classad::ClassAd;

// Replies carry ads as JSON texts, split so no frame nears the 1 MiB cap.
constexpr size_t kReplyBytes = 512 * 1024;
// Jobs a query examines per loop turn before other frames get their turn.
constexpr size_t kQueryChunk = 500;

int64_t now_s() {
  return static_cast<int64_t>(std::time(nullptr));
}

// {Attr: "expr"...} -> an ad; false with `err` naming the attribute.
bool ad_from_object(const cJSON* obj, ClassAd* ad, std::string* err) {
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, obj) {
    if (!item->string || !cJSON_IsString(item)) {
      *err = "submit: attribute values must be expression texts";
      return false;
    }
    classad::ParseError pe;
    classad::ExprPtr e = classad::parse_expr(item->valuestring, &pe);
    if (!e) {
      *err = std::string("submit: attribute ") + item->string + ": " + pe.to_string();
      return false;
    }
    ad->insert(item->string, e.release());
  }
  return true;
}

// True when a proc ad holds nothing of its own but its id: it ends the same as the cluster.
bool only_proc_id(const ClassAd& proc) {
  for (const ClassAd::Entry& e : proc.entries())
    if (e.name->view() != "ProcId") return false;
  return true;
}

// Counts a job as condor_q's totals lines do: Transferring output is running; DAGMan jobs
// (scheduler universe) are not counted.
void count_job(queue::JobCounts& t, int64_t status, bool scheduler_universe) {
  if (scheduler_universe) return;
  switch (status) {
    case queue::kIdle: ++t.idle; break;
    case queue::kRunning:
    case queue::kTransferringOutput: ++t.running; break;
    case queue::kRemoved: ++t.removed; break;
    case queue::kCompleted: ++t.completed; break;
    case queue::kHeld: ++t.held; break;
    case queue::kSuspended: ++t.suspended; break;
    default: break;
  }
}

core::Json counts_json(const queue::JobCounts& n) {
  core::Json o = core::Json::object();
  o.set("idle", n.idle);
  o.set("running", n.running);
  o.set("removed", n.removed);
  o.set("completed", n.completed);
  o.set("held", n.held);
  o.set("suspended", n.suspended);
  return o;
}

std::string schedd_name() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || !host[0]) return "kite-cm";
  return host;
}

}  // namespace

QueueService::QueueService(CmContext* ctx, QueueSettings settings)
    : ctx_(ctx), settings_(std::move(settings)), schedd_ad_(ClassAd::make()) {
  schedd_ad_->insert_value("MyType", classad::Value::string("Scheduler"));
  schedd_ad_->insert_value("Name", classad::Value::string(schedd_name()));
  idle_ = new uv_idle_t;
  uv_idle_init(ctx_->loop, idle_);
  idle_->data = this;
  periodic_timer_ = new uv_timer_t;
  uv_timer_init(ctx_->loop, periodic_timer_);
  periodic_timer_->data = this;
  uint64_t every_ms = static_cast<uint64_t>(settings_.periodic_interval_s) * 1000;
  uv_timer_start(
      periodic_timer_, [](uv_timer_t* t) { static_cast<QueueService*>(t->data)->run_periodic(); },
      every_ms, every_ms);
}

QueueService::~QueueService() {
  stop();
}

void QueueService::stop() {
  running_.clear();
  pending_.clear();
  if (idle_) {
    uv_close(reinterpret_cast<uv_handle_t*>(idle_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_idle_t*>(h); });
    idle_ = nullptr;
  }
  if (periodic_timer_) {
    uv_close(reinterpret_cast<uv_handle_t*>(periodic_timer_),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    periodic_timer_ = nullptr;
  }
}

void QueueService::run_periodic() {
  if (!ctx_->jobs) return;
  std::vector<queue::JobId> stopped;
  bool released = false;
  std::string err;
  int n = queue::apply_periodic_policy(*ctx_->jobs, settings_.periodic, now_s(), &stopped,
                                       &released, &err);
  if (n) KLOG_INFO("queue: periodic policy changed %d job(s)", n);
  for (const queue::JobId& id : stopped) ctx_->stop_job(id.cluster, id.proc, false);
  if (released) ctx_->reschedule();
}

bool QueueService::submitter_of(const net::TlsConn* c, std::string* owner) {
  const std::string& role = c->peer().role;
  if (role != "user" && role != "admin") return false;
  *owner = c->peer().cn;
  return !owner->empty();
}

bool QueueService::authorized(net::TlsConn* c, policy::AuthLevel level, const char* what) {
  return ctx_->collector->allowed(c, level, what);
}

bool QueueService::on_frame(net::TlsConn* c, core::Json& msg) {
  std::string type = msg.type();
  if (type == "submit") {
    submit(c, msg);
  } else if (type == "new_cluster") {
    new_cluster(c);
  } else if (type == "job_query") {
    query(c, msg);
  } else if (type == "job_action") {
    action(c, msg);
  } else {
    return false;
  }
  return true;
}

void QueueService::on_closed(net::TlsConn* c) {
  // A client gone mid-submit commits nothing: its procs were only ever in memory.
  auto it = pending_.find(c);
  if (it != pending_.end()) {
    KLOG_INFO("queue: %s disconnected mid-submit; %zu proc(s) dropped", c->peer().cn.c_str(),
              it->second.procs.size());
    release(it->second.reserved);
    pending_.erase(it);
  }
  auto r = reserved_.find(c);
  if (r != reserved_.end()) {
    release(r->second);
    reserved_.erase(r);
  }
  running_.remove_if([c](const RunningQuery& q) { return q.conn == c; });
}

void QueueService::release(int32_t reserved) {
  if (ctx_->jobs) ctx_->jobs->release_cluster(reserved);
}

void QueueService::new_cluster(net::TlsConn* c) {
  if (!authorized(c, policy::AuthLevel::kWrite, "submit")) return;
  std::string owner;
  if (!submitter_of(c, &owner)) {
    c->send_error("new_cluster: only user and admin certificates may submit jobs");
    return;
  }
  if (!ctx_->jobs) {
    c->send_error("new_cluster: this central manager has no job queue");
    return;
  }
  // One reservation per connection: asking again hands the previous one back first, so a
  // client looping on new_cluster cannot walk the id space.
  auto prev = reserved_.find(c);
  if (prev != reserved_.end()) release(prev->second);
  int32_t id = ctx_->jobs->reserve_cluster();
  reserved_[c] = id;
  core::Json reply = core::Json::message("new_cluster");
  reply.set("cluster", static_cast<int64_t>(id));
  c->send(reply);
}

void QueueService::submit(net::TlsConn* c, core::Json& msg) {
  if (!authorized(c, policy::AuthLevel::kWrite, "submit")) return;
  std::string owner, err;
  if (!submitter_of(c, &owner)) {
    c->send_error("submit: only user and admin certificates may submit jobs (not " +
                  c->peer().role + "/" + c->peer().cn + ")");
    return;
  }
  auto it = pending_.find(c);
  // A refused submit is dropped whole, and its reserved cluster id given back.
  auto refuse = [&](const std::string& why) {
    release(it->second.reserved);
    pending_.erase(it);
    c->send_error(why);
  };
  const cJSON* cluster = msg.child("cluster");
  if (it == pending_.end()) {
    if (!cluster) {
      c->send_error("submit: the first frame of a submit must carry the cluster ad");
      return;
    }
    int64_t wanted = msg.num("cluster_id", 0);
    auto r = reserved_.find(c);
    if (wanted != 0 && (r == reserved_.end() || r->second != wanted)) {
      c->send_error("submit: cluster " + std::to_string(wanted) +
                    " was not reserved by this connection (send new_cluster first)");
      return;
    }
    it = pending_.emplace(c, PendingSubmit{AdPtr(ClassAd::make()), {}}).first;
    if (wanted != 0) {
      it->second.reserved = static_cast<int32_t>(wanted);
      reserved_.erase(r);
    }
    if (!ad_from_object(cluster, it->second.cluster.get(), &err)) {
      refuse(err);
      return;
    }
  } else if (cluster) {
    refuse("submit: a cluster ad in the middle of a submit");
    return;
  }
  PendingSubmit& p = it->second;
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, msg.child("procs")) {
    if (static_cast<int64_t>(p.procs.size()) >= settings_.max_procs) {
      refuse("submit: more than MAX_JOBS_PER_SUBMISSION (" + std::to_string(settings_.max_procs) +
             ") procs");
      return;
    }
    p.procs.emplace_back(ClassAd::make());
    if (!ad_from_object(item, p.procs.back().get(), &err)) {
      refuse(err);
      return;
    }
  }
  if (msg.flag("more")) return;
  PendingSubmit done = std::move(p);
  pending_.erase(it);
  if (!commit(c, &done, &err)) {
    release(done.reserved);
    c->send_error(err);  // a submit requirement's reason as is
  }
}

bool QueueService::commit(net::TlsConn* c, PendingSubmit* p, std::string* err) {
  if (!ctx_->jobs) {
    *err = "this central manager has no job queue";
    return false;
  }
  if (p->procs.empty()) {
    *err = "no procs";
    return false;
  }
  std::string owner;
  submitter_of(c, &owner);
  // The owner is who the certificate says, whatever the submit file wrote.
  ClassAd& cluster = *p->cluster;
  cluster.insert_value("Owner", classad::Value::string(owner));
  for (AdPtr& proc : p->procs) proc->remove("Owner");
  // Procs with attributes of their own are transformed from the untransformed cluster ad.
  AdPtr original(policy_.transforms.empty() ? nullptr : cluster.copy());
  if (!queue_policy::apply_transforms(policy_, &cluster, err)) return false;
  queue_policy::RequirementOutcome shared =
      queue_policy::check_submit_requirements(policy_, *schedd_ad_, cluster);
  std::string warning = shared.warning;
  if (shared.refused) {
    *err = shared.error;
    return false;
  }
  // A proc with attributes of its own is transformed and checked as its own merged ad; the
  // others end as the cluster did (no copy per proc: 10,000-proc submits stay cheap).
  if (!policy_.empty()) {
    for (AdPtr& proc : p->procs) {
      if (only_proc_id(*proc)) continue;
      AdPtr merged = queue::merge(original ? *original : cluster, *proc);
      if (!queue_policy::apply_transforms(policy_, merged.get(), err)) return false;
      queue_policy::RequirementOutcome o =
          queue_policy::check_submit_requirements(policy_, *schedd_ad_, *merged);
      if (o.refused) {
        *err = o.error;
        return false;
      }
      if (!o.warning.empty()) warning = o.warning;
      merged->remove("ClusterId");  // the queue numbers the cluster
      proc = std::move(merged);
    }
  }
  std::vector<const ClassAd*> procs;
  procs.reserve(p->procs.size());
  for (const AdPtr& a : p->procs) procs.push_back(a.get());
  int64_t now = now_s();
  int32_t cluster_id = 0;
  // The job updates still open go first, through the commit that stops the CM when it fails
  // (frames wait on them); the submit is then its own transaction.
  if (ctx_->commits) ctx_->commits->commit();
  if (!ctx_->jobs->submit(cluster, procs, now, &cluster_id, err, p->reserved)) return false;
  KLOG_INFO("queue: %s submitted %zu job(s) as cluster %d", owner.c_str(), procs.size(),
            cluster_id);
  core::Json reply = core::Json::message("submitted");
  reply.set("cluster", static_cast<int64_t>(cluster_id));
  reply.set("procs", static_cast<int64_t>(procs.size()));
  if (!warning.empty()) reply.set("warning", warning);
  c->send(reply);
  // The submit event of every proc, to the log the submit file named (after the commit: the
  // job exists once it is durable).
  std::string log = queue::job_log_path(cluster);
  if (!log.empty()) {
    std::string text;
    std::string host = "<" + c->address() + ">";
    for (size_t i = 0; i < procs.size(); ++i) {
      queue::event_submit(text, {cluster_id, static_cast<int64_t>(i), 0}, now, host);
    }
    std::string e;
    if (!queue::append_job_log(log, text, &e)) KLOG_WARN("queue: %s", e.c_str());
  }
  ctx_->reschedule();
  return true;
}

void QueueService::query(net::TlsConn* c, core::Json& msg) {
  if (!authorized(c, policy::AuthLevel::kRead, "job query")) return;
  for (const RunningQuery& r : running_) {
    if (r.conn == c) {
      c->send_error("job query: a query of this connection is still running");
      return;
    }
  }
  if (!ctx_->jobs) {
    c->send_error("job query: this central manager has no job queue");
    return;
  }
  RunningQuery q;
  q.conn = c;
  q.limit = msg.num("limit", -1);
  std::string err;
  const cJSON* item = nullptr;
  cJSON_ArrayForEach(item, msg.child("args")) {
    if (cJSON_IsString(item)) q.selection.add_positional(item->valuestring);
  }
  cJSON_ArrayForEach(item, msg.child("constraints")) {
    if (cJSON_IsString(item) && !q.selection.add_constraint(item->valuestring, &err)) {
      c->send_error("job query: " + err);
      return;
    }
  }
  // condor_q shows the asker's own jobs unless told which (ids, owners, -allusers).
  if (msg.flag("mine") && q.selection.ids.empty() && q.selection.owners.empty()) {
    submitter_of(c, &q.owner);
  }
  if (msg.flag("history")) {
    history(c, msg, &q);
    return;
  }
  std::vector<std::string> projection;
  cJSON_ArrayForEach(item, msg.child("projection")) {
    if (cJSON_IsString(item)) projection.push_back(item->valuestring);
  }
  bool opaque = false;
  if (msg.flag("totals")) {
    q.kind = QueryKind::kTotals;
  } else if (!projection.empty()) {
    if (!queue::projection_ids(projection, &q.projection, &opaque, &err)) {
      c->send_error("job query: " + err);
      return;
    }
    if (!opaque) q.kind = QueryKind::kProjected;  // else whole ads, as without one
  }
  if (answer_from_summaries(&q)) {
    send_jobs(&q, true);
    return;
  }
  running_.push_back(std::move(q));
  if (running_.size() == 1 && idle_) {
    uv_idle_start(idle_, [](uv_idle_t* h) { static_cast<QueueService*>(h->data)->run_queries(); });
  }
}

void QueueService::history(net::TlsConn* c, core::Json& msg, RunningQuery* q) {
  int64_t limit = msg.num("limit", -1);
  bool filtered = !q->selection.ids.empty() || !q->selection.owners.empty() ||
                  !q->selection.constraints.empty() || !q->owner.empty();
  std::vector<AdPtr> ads;
  std::string err;
  // A limit past int's range reads the whole history (the loop below still stops at it).
  const bool fits = limit >= 0 && limit <= INT32_MAX;
  if (!ctx_->jobs->history(filtered || !fits ? -1 : static_cast<int>(limit), &ads, &err)) {
    c->send_error("history: " + err);
    return;
  }
  int64_t n = 0;
  for (const AdPtr& ad : ads) {
    if (limit >= 0 && n >= limit) break;
    std::string owner;
    if (!q->owner.empty() && (!queue::ad_string(*ad, "Owner", &owner) || owner != q->owner))
      continue;
    if (!q->selection.selects(*ad)) continue;
    ++n;
    q->texts.push_back(classad::classad_to_json(*ad, false));
    q->bytes += q->texts.back().size();
    if (q->bytes >= kReplyBytes) send_jobs(q, false);
  }
  send_jobs(q, true);
}

bool QueueService::picks(const RunningQuery& q, queue::JobId id, const std::string& owner) const {
  const queue::JobSelection& sel = q.selection;
  if (!q.owner.empty() && owner != q.owner) return false;
  if (sel.ids.empty() && sel.owners.empty()) return true;
  for (const queue::JobSelection::Id& i : sel.ids)
    if (i.cluster == id.cluster && (i.proc < 0 || i.proc == id.proc)) return true;
  for (const std::string& o : sel.owners)
    if (o == owner) return true;
  return false;
}

bool QueueService::selects(const RunningQuery& q, queue::JobId id, const ClassAd& job) const {
  std::string owner;
  if (!queue::ad_string(job, "Owner", &owner)) queue::ad_string(*q.cluster, "Owner", &owner);
  if (!picks(q, id, owner)) return false;
  if (q.selection.constraints.empty()) return true;
  // The whole job, as the client would see it: a cluster attribute that reads one of the
  // proc's (MemoryUsage reading ResidentSetSize) must see the proc's value.
  AdPtr whole = queue::merge(*q.cluster, job);
  for (const classad::ExprPtr& c : q.selection.constraints)
    if (!classad::requirements_accept(whole->evaluate_expr(c.get()))) return false;
  return true;
}

bool QueueService::answer_from_summaries(RunningQuery* q) {
  if (!q->selection.constraints.empty()) return false;
  // What a summary holds of a job: its id and its status (the ad's JobStatus moves with it).
  static const uint32_t kCluster = classad::intern_name("ClusterId").id,
                        kProc = classad::intern_name("ProcId").id,
                        kStatus = classad::intern_name("JobStatus").id;
  bool with_status = false;
  if (q->kind == QueryKind::kProjected) {
    for (uint32_t id : q->projection) {
      if (id != kCluster && id != kProc && id != kStatus) return false;
      with_status = with_status || id == kStatus;
    }
  } else if (q->kind != QueryKind::kTotals) {
    return false;
  }
  // The facts of every queued cluster: kept from earlier queries, read once for new clusters.
  std::map<int32_t, ClusterFacts> facts;
  std::string err;
  for (const queue::JobSummary& s : ctx_->jobs->jobs()) {
    if (!facts.empty() && std::prev(facts.end())->first == s.id.cluster) continue;
    auto old = facts_.find(s.id.cluster);
    if (old != facts_.end()) {
      facts.emplace_hint(facts.end(), s.id.cluster, old->second);
      continue;
    }
    classad::AdPtr ad = ctx_->jobs->cluster_ad(s.id.cluster, &err);
    if (!ad) {
      KLOG_WARN("queue: query: %s", err.c_str());
      return false;  // the query walks the ads instead
    }
    ClusterFacts f;
    queue::ad_string(*ad, "Owner", &f.owner);
    int64_t universe = 5;
    queue::ad_int(*ad, "JobUniverse", &universe);
    f.scheduler_universe = universe == 7;
    facts.emplace_hint(facts.end(), s.id.cluster, std::move(f));
  }
  facts_ = std::move(facts);
  auto it = facts_.begin();
  for (const queue::JobSummary& s : ctx_->jobs->jobs()) {
    while (it->first != s.id.cluster) ++it;  // both in cluster order
    if (!picks(*q, s.id, it->second.owner)) continue;
    if (q->kind == QueryKind::kTotals) {
      count_job(q->counts, s.status, it->second.scheduler_universe);
      continue;
    }
    if (q->limit >= 0 && q->picked++ >= q->limit) break;
    char text[96];
    int n = with_status ? std::snprintf(text, sizeof text,
                                        "{\"ClusterId\":%d,\"ProcId\":%d,\"JobStatus\":%d}",
                                        s.id.cluster, s.id.proc, s.status)
                        : std::snprintf(text, sizeof text, "{\"ClusterId\":%d,\"ProcId\":%d}",
                                        s.id.cluster, s.id.proc);
    q->texts.emplace_back(text, static_cast<size_t>(n));
    q->bytes += static_cast<size_t>(n);
    if (q->bytes >= kReplyBytes) send_jobs(q, false);
  }
  return true;
}

void QueueService::run_queries() {
  std::vector<queue::JobStore::ScanRow> rows;
  for (auto it = running_.begin(); it != running_.end();) {
    RunningQuery& q = *it;
    std::string err;
    const int64_t now = now_s();
    rows.clear();
    bool ok = ctx_->jobs->scan(q.last, kQueryChunk, &rows, &err);
    // Trees the projection has walked stay alive while its memo knows them.
    negotiator::RefMemo memo;
    std::vector<AdPtr> walked;
    for (queue::JobStore::ScanRow& r : rows) {
      q.last = r.id;
      if (r.id.cluster != q.cluster_id) {
        q.cluster_id = r.id.cluster;
        if (q.cluster) walked.push_back(std::move(q.cluster));
        q.cluster = ctx_->jobs->cluster_ad(r.id.cluster, &err);
        q.cluster_sent = false;
      }
      if (!q.cluster) continue;
      r.proc->set_parent(q.cluster.get());  // JobUniverse and the like come from the cluster
      if (!selects(q, r.id, *r.proc)) continue;
      if (q.kind == QueryKind::kTotals) {
        int64_t status = 0, universe = 5;
        queue::ad_int(*r.proc, "JobStatus", &status);
        queue::ad_int(*r.proc, "JobUniverse", &universe);
        count_job(q.counts, status, universe == 7);
        continue;
      }
      if (q.limit >= 0 && q.picked >= q.limit) break;
      ++q.picked;
      r.proc->insert_value("ClusterId", classad::Value::integer(r.id.cluster));
      // As a schedd's answer: the time the run times are counted to.
      r.proc->insert_value("ServerTime", classad::Value::integer(now));
      if (q.kind == QueryKind::kProjected) {
        AdPtr p = queue::project_job(*r.proc, *q.cluster, q.projection, memo);
        q.texts.push_back(classad::classad_to_json(*p, false));
      } else {
        if (!q.cluster_sent) {
          q.clusters.push_back(classad::classad_to_json(*q.cluster, false));
          q.bytes += q.clusters.back().size();
          q.cluster_sent = true;
        }
        q.texts.push_back(classad::classad_to_json(*r.proc, false));
      }
      q.bytes += q.texts.back().size();
      if (q.bytes >= kReplyBytes) send_jobs(&q, false);
    }
    if (!ok) KLOG_WARN("queue: query: %s", err.c_str());
    const bool full = q.limit >= 0 && q.picked >= q.limit;
    if (ok && rows.size() == kQueryChunk && !full) {
      ++it;
      continue;
    }
    send_jobs(&q, true);
    it = running_.erase(it);
  }
  if (running_.empty() && idle_) uv_idle_stop(idle_);
}

void QueueService::send_jobs(RunningQuery* q, bool done) {
  core::Json reply = core::Json::message("jobs");
  for (auto [key, texts] : {std::pair{"clusters", &q->clusters}, std::pair{"ads", &q->texts}}) {
    cJSON* arr = cJSON_CreateArray();
    for (const std::string& text : *texts)
      cJSON_AddItemToArray(arr, cJSON_CreateString(text.c_str()));
    reply.set_json(key, core::Json(arr));
    texts->clear();
  }
  reply.set_bool("done", done);
  if (done) {
    reply.set("schedd", schedd_name());
    // "Total for all users": the whole queue, from the summaries kept in memory.
    queue::JobCounts all;
    for (const queue::JobSummary& s : ctx_->jobs->jobs()) count_job(all, s.status, false);
    reply.set_json("all", counts_json(all));
    if (q->kind == QueryKind::kTotals) {
      reply.set_json("query", counts_json(q->counts));
      reply.set("server_time", now_s());
    }
  }
  q->conn->send(reply);
  q->bytes = 0;
}

}  // namespace kite::cm
#endif  // KITE_HAS_JOB_STORE
