// The job tools' side of the CM's queue (agent/cm/queue_service.h has the frames): submitting
// a submit file's procs in chunks, fetching job ads for `kite q` / `kite history`, and the
// actions of rm, hold, release, prio and vacate-job.
#pragma once

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
};
/// Sends `r`'s procs to the CM at `pool` (one submit, chunked under the frame cap) and waits
/// for the commit. False with `err` (the CM's reason when it refused).
bool submit_to_cm(const std::string& pool, const submit::Result& r, SubmitReply* reply,
                  std::string* err);

struct JobQuery {
  bool history = false;
  bool mine = true;  // only the asker's jobs unless args name ids or owners
  std::vector<std::string> args, constraints;
  int limit = -1;
};
struct JobQueryReply {
  std::vector<classad::AdPtr> ads;
  std::string schedd;
  queue::JobCounts all;
};
bool query_jobs(const std::string& pool, const JobQuery& q, JobQueryReply* reply, std::string* err);

}  // namespace kite::cli
