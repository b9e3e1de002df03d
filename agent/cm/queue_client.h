// The job tools' side of the CM's queue (agent/cm/queue_service.h has the frames): submitting
// a submit file's procs in chunks, fetching job ads for `kite q` / `kite history`, and the
// actions of rm, hold, release, prio and vacate-job.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "agent/queue/job_tables.h"
#include "policy/classad/classad.h"
#include "policy/submit/submit.h"

namespace kite::cli {

struct SubmitReply {
  int cluster = 0;
  int procs = 0;
  std::string warning;
  bool not_expanded = false;  // the expansion failed (and said why): nothing was sent
};
/// Expands the submit file into `r` with $(Cluster) = `cluster`; false when the file is bad
/// (the function reports why itself).
using ExpandFn = std::function<bool(int cluster, submit::Result* r)>;
/// As condor_submit: asks the CM at `pool` for a new cluster id, expands the file with it,
/// sends the procs (one submit, chunked under the frame cap) and waits for the commit. False
/// with `err` (the CM's reason when it refused), or with reply->not_expanded.
bool submit_to_cm(const std::string& pool, const ExpandFn& expand, SubmitReply* reply,
                  std::string* err);

struct JobQuery {
  bool history = false;
  bool mine = true;  // only the asker's jobs unless args name ids or owners
  std::vector<std::string> args, constraints;
  int limit = -1;
  std::vector<std::string> projection;  // only what these read crosses the wire (none: all)
  bool totals = false;                  // the selected jobs' counts instead of their ads
};
struct JobQueryReply {
  std::vector<classad::AdPtr> ads;
  std::string schedd;
  queue::JobCounts all;
  bool counted = false;  // `query` holds the counts a totals query asked for
  queue::JobCounts query;
  int64_t server_time = 0;
};
bool query_jobs(const std::string& pool, const JobQuery& q, JobQueryReply* reply, std::string* err);

}  // namespace kite::cli
