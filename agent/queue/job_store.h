// The central manager's durable job queue: clusters and procs in SQLite (WAL), job status
// transitions, attribute updates, removal to history, reload at start.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agent/queue/job_render.h"
#include "policy/classad/classad.h"

struct sqlite3;
struct sqlite3_stmt;

namespace kite::queue {

// JobStatus values (job-classad-attributes.rst).
enum JobStatus : int {
  kIdle = 1,
  kRunning = 2,
  kRemoved = 3,
  kCompleted = 4,
  kHeld = 5,
  kTransferringOutput = 6,
  kSuspended = 7,
};

struct JobId {
  int32_t cluster = 0;
  int32_t proc = 0;
  bool operator==(const JobId& o) const { return cluster == o.cluster && proc == o.proc; }
  bool operator<(const JobId& o) const {
    return cluster != o.cluster ? cluster < o.cluster : proc < o.proc;
  }
};

// What the queue keeps in memory per job: what the negotiator orders idle jobs by and what the
// totals of `kite q` count. Everything else is read from SQLite when asked for.
struct JobSummary {
  JobId id;
  int64_t qdate = 0;
  int32_t prio = 0;
  int8_t status = kIdle;
};

// True when HTCondor lets a job go from `from` to `to` (Removed and Completed are final).
bool status_transition_allowed(int from, int to);

class JobStore {
 public:
  JobStore() = default;
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // Opens (creating if needed) the queue database at `path` and loads the job summaries.
  // False with `err` naming the file and what failed.
  bool open(const std::string& path, std::string* err);
  void close();

  // One submit: the cluster ad shared by all procs plus one ad per proc holding what differs
  // (attributes equal to the cluster's are dropped). Assigns ClusterId, ProcId, QDate = now,
  // JobStatus (Idle unless the ads say Held), EnteredCurrentStatus; one transaction, durable
  // on disk before this returns true.
  // `reserved` (from reserve_cluster(), 0: the next id) is the cluster id the submit takes.
  bool submit(const classad::ClassAd& cluster_ad, std::span<const classad::ClassAd* const> procs,
              int64_t now, int32_t* cluster_out, std::string* err, int32_t reserved = 0);
  // A cluster id no other submit will take (condor_submit's NewCluster: the client expands
  // $(Cluster) with it before sending the procs). Kept in memory only: the id is written to
  // disk by the submit that uses it, and one never used (its client gone, or the CM
  // restarted, which also ends that client's conversation) is simply skipped.
  int32_t reserve_cluster() { return next_cluster_++; }
  // Gives back a reservation no submit used (refused, or its client gone): the newest one is
  // handed out again, so refused submits leave no gaps; an older one stays a skipped id.
  void release_cluster(int32_t id) {
    if (id > 0 && id + 1 == next_cluster_) --next_cluster_;
  }

  // Sets `name` to the expression `expr_text` in one job's own ad (or the cluster ad when
  // `id.proc` is -1). JobStatus goes through set_status().
  bool set_attribute(JobId id, std::string_view name, std::string_view expr_text, std::string* err);
  // Moves a job to `status` (LastJobStatus, EnteredCurrentStatus = now); a job that becomes
  // Removed or Completed leaves the queue for the history table in the same transaction.
  // `attrs` (name, expression text) are set in the job's own ad in that transaction too
  // (HoldReason with the hold, RemoveReason with the removal).
  bool set_status(JobId id, int status, int64_t now, std::string* err,
                  std::span<const std::pair<std::string, std::string>> attrs = {});

  // The job's full ad (cluster ad overlaid by its proc ad), or null when there is none.
  classad::AdPtr job_ad(JobId id, std::string* err) const;
  // The cluster ad alone (what its procs share), or null when there is none.
  classad::AdPtr cluster_ad(int32_t cluster, std::string* err) const;
  // Up to `max` jobs after `after` in id order, each as its own ad (what differs from its
  // cluster's: ProcId, JobStatus, ...), for scans of the whole queue in chunks.
  struct ScanRow {
    JobId id;
    classad::AdPtr proc;
  };
  bool scan(JobId after, size_t max, std::vector<ScanRow>* rows, std::string* err) const;
  // Full ads of the history, most recently ended first; at most `limit` (<0: all).
  bool history(int limit, std::vector<classad::AdPtr>* out, std::string* err) const;

  const std::vector<JobSummary>& jobs() const { return jobs_; }
  int32_t next_cluster_id() const { return next_cluster_; }

  // Group commit (`kite cm` turns it on: one fsync per loop turn, not one per job event).
  // While grouped, set_status() and set_attribute() go into one open transaction (each change
  // in its own savepoint, so a refused change undoes only itself) and become durable at
  // commit_group(). Whoever answers for a change (an acknowledgement, a frame that relies on
  // it) does so after commit_group() returned true. submit() commits an open group first and
  // stays its own transaction, durable before it returns. A failed commit rolls the group back
  // and reloads the summaries from disk.
  void set_grouped(bool on) { grouped_ = on; }
  bool group_open() const { return group_open_; }
  size_t group_changes() const { return group_changes_; }  // in the open group
  bool commit_group(std::string* err);

 private:
  bool exec(const char* sql, std::string* err) const;
  bool fail(std::string* err, const char* what) const;
  JobSummary* find(JobId id);
  bool load(std::string* err);
  bool read_ads(JobId id, classad::AdPtr* cluster, classad::AdPtr* proc, std::string* err) const;
  bool write_proc(JobId id, int status, const classad::ClassAd& ad, std::string* err);
  // One change's transaction: its own BEGIN/COMMIT, or a savepoint in the open group.
  bool begin_change(std::string* err);
  bool end_change(bool ok, std::string* err);

  sqlite3* db_ = nullptr;
  std::string path_;
  std::vector<JobSummary> jobs_;  // sorted by id
  int32_t next_cluster_ = 1;
  bool grouped_ = false;
  bool group_open_ = false;
  size_t group_changes_ = 0;
};

}  // namespace kite::queue
