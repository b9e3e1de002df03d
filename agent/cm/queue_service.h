// The job queue of `kite cm` on the wire: submits (chunked, committed once, then acknowledged),
// queue and history queries (run a chunk per loop turn), and the job tools' actions (rm, hold,
// release, prio, vacate-job) with each user acting on their own jobs only.
//
// Frames (client -> CM, each answered as noted; any refusal is an "error" frame):
//   new_cluster {} -> {type: new_cluster, cluster}: a cluster id reserved for this connection's
//              next submit (the client expands $(Cluster) with it)
//   submit     {cluster?: {Attr: "expr"...}, cluster_id?, procs: [{Attr: "expr"...}...],
//              more: bool} the first frame carries the cluster ad (and the reserved id, if any);
//              the last (more false) commits and is answered {type: submitted, cluster, procs,
//              warning?}
//   job_query  {history: bool, mine: bool, args: ["3", "3.1", "alice"...], constraints: [...],
//              limit, projection?: ["attr or expression"...], totals?: bool}
//              -> {type: jobs, clusters: [json...], ads: [json...], done, schedd,
//              all: {idle, running, ...}, query?: {...}, server_time?}: a queue's procs come as
//              their own attributes (with ClusterId) after their cluster's ad; with a
//              projection, each job as one ad holding only what the projection needs; with
//              totals, no ads but the selected jobs' counts in `query`; history ads are whole
//   job_action {action: rm|hold|release|prio|vacate, target: {id|owner|constraint|all},
//              reason?, prio?, relative?} -> {type: job_action_done, matched, acted, denied}
#pragma once

#include <uv.h>

#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "agent/cm/cm_service.h"
#include "agent/queue/job_store.h"
#include "agent/queue/job_tables.h"
#include "policy/queue/job_policy.h"
#include "policy/queue/submit_policy.h"
#include "policy/security/authz.h"

namespace kite::cm {

// The queue's configuration (agent/cm/cm_services.cc reads it).
struct QueueSettings {
  queue_policy::SubmitPolicy submit;      // JOB_TRANSFORM_*, SUBMIT_REQUIREMENT_*
  queue_policy::SystemPeriodic periodic;  // SYSTEM_PERIODIC_*
  int64_t max_procs = 100000;             // MAX_JOBS_PER_SUBMISSION
  int64_t periodic_interval_s = 60;       // PERIODIC_EXPR_INTERVAL
};

class QueueService final : public CmService {
 public:
  QueueService(CmContext* ctx, QueueSettings settings);
  ~QueueService() override;
  bool on_frame(net::TlsConn* c, core::Json& msg) override;
  void on_closed(net::TlsConn* c) override;
  void stop() override;

  /// The identity a connection acts as (a user's or admin's certificate CN); false for
  /// others (agents, CMs), which may not own jobs.
  static bool submitter_of(const net::TlsConn* c, std::string* owner);

 private:
  struct PendingSubmit {
    classad::AdPtr cluster;
    std::vector<classad::AdPtr> procs;
    int32_t reserved = 0;  // the cluster id from new_cluster, 0: the next one
  };
  // A queue query walks the queue a chunk per loop turn; each cluster's ad travels once
  // (before its first selected proc) and procs as their own ads, merged by the client.
  enum class QueryKind { kWhole, kProjected, kTotals };
  struct RunningQuery {
    net::TlsConn* conn = nullptr;
    QueryKind kind = QueryKind::kWhole;
    std::vector<uint32_t> projection;  // interned attribute ids (kProjected)
    queue::JobCounts counts;           // the selected jobs (kTotals)
    queue::JobId last{0, -1};          // the scan resumes after this job
    queue::JobSelection selection;
    std::string owner;  // "" = every owner
    int32_t cluster_id = 0;
    classad::AdPtr cluster;
    bool cluster_sent = false;
    int64_t limit = -1;                        // condor_q -limit: at most this many jobs (<0: all)
    int64_t picked = 0;                        // jobs sent so far
    std::vector<std::string> clusters, texts;  // not yet sent, as JSON
    size_t bytes = 0;
  };
  bool selects(const RunningQuery& q, queue::JobId id, const classad::ClassAd& job) const;
  bool picks(const RunningQuery& q, queue::JobId id, const std::string& owner) const;
  // What a totals query without constraints needs of a cluster, kept while it is queued.
  struct ClusterFacts {
    std::string owner;
    bool scheduler_universe = false;  // DAGMan: not in the totals
  };
  // Answers a query the job summaries hold all of (no constraint; totals, or a projection of
  // ClusterId, ProcId and JobStatus) without reading a job's ad; false when it cannot.
  bool answer_from_summaries(RunningQuery* q);

  void new_cluster(net::TlsConn* c);
  void release(int32_t reserved);
  void submit(net::TlsConn* c, core::Json& msg);
  bool commit(net::TlsConn* c, PendingSubmit* p, std::string* err);
  void query(net::TlsConn* c, core::Json& msg);
  void history(net::TlsConn* c, core::Json& msg, RunningQuery* q);
  void run_queries();
  void send_jobs(RunningQuery* q, bool done);
  void action(net::TlsConn* c, core::Json& msg);
  bool authorized(net::TlsConn* c, policy::AuthLevel level, const char* what);
  void run_periodic();

  CmContext* ctx_;
  QueueSettings settings_;
  const queue_policy::SubmitPolicy& policy_ = settings_.submit;
  classad::AdPtr schedd_ad_;  // MY of the submit requirements
  std::map<net::TlsConn*, PendingSubmit> pending_;
  std::map<net::TlsConn*, int32_t> reserved_;  // new_cluster's id, until a submit takes it
  std::list<RunningQuery> running_;
  std::map<int32_t, ClusterFacts> facts_;
  uv_idle_t* idle_ = nullptr;
  uv_timer_t* periodic_timer_ = nullptr;
};

}  // namespace kite::cm
