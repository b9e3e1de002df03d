// condor_q's and condor_history's outputs for a set of job ads: the batch table, -nobatch,
// -hold, -run, -totals, -l, -json, -af, with their headers and "Total for query" lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/queue/job_render.h"
#include "policy/classad/classad.h"
#include "policy/classad/expr.h"

namespace kite::queue {

// Which jobs: job ids (`C` or `C.P`) and owners on the command line (any of them), and every
// -constraint (all of them).
struct JobSelection {
  struct Id {
    int64_t cluster;
    int64_t proc;  // -1: the whole cluster
  };
  std::vector<Id> ids;
  std::vector<std::string> owners;
  std::vector<classad::ExprPtr> constraints;
  bool selects(const classad::ClassAd& ad) const;
  // Parses `-constraint` text; false with `err` saying why.
  bool add_constraint(const std::string& text, std::string* err);
  // A positional argument: `C`, `C.P` or an owner name.
  void add_positional(const std::string& arg);
};

// Jobs by status, as the totals lines count them.
struct JobCounts {
  int64_t idle = 0, running = 0, removed = 0, completed = 0, held = 0, suspended = 0;
  int64_t jobs() const { return idle + running + removed + completed + held + suspended; }
};

// kFormat: -format FMT EXPR pairs, and kXml: -xml, which the CLI prints over select_queue()'s jobs.
enum class QueueView {
  kBatch,
  kNoBatch,
  kHold,
  kRun,
  kIdle,
  kTotals,
  kLong,
  kJson,
  kJsonLines,
  kXml,
  kAutoformat,
  kFormat
};

struct QueueRequest {
  QueueView view = QueueView::kBatch;
  JobSelection selection;
  Autoformat af;
  std::vector<std::string> format_exprs;  // -format's expressions (what kFormat reads)
  // -attributes A,B: the only attributes -l, -json and -xml print (empty: all of them).
  std::vector<std::string> attributes;
  // The "-- <label> @ <time>" title: condor_q -jobads FILE prints "Jobads: FILE".
  std::string source_label;
  // The time in the title when no selected ad carries ServerTime.
  int64_t now = 0;
  // The whole queue's counts for "Total for all users" (a schedd's answer; a file has none).
  bool has_all_users = false;
  JobCounts all_users;
  // The ads are the schedd's answer to this selection already (cut to a projection, they may
  // lack what the constraints read): they are not selected again.
  bool preselected = false;
  // -totals answered by the schedd: the selected jobs' counts, without their ads.
  bool has_query_counts = false;
  JobCounts query_counts;
};

// What `req`'s output reads of each job (attribute names and -af expressions), for a schedd
// to send only that; empty when the output needs whole ads (-l, -json). -totals needs none:
// ask the schedd for the counts instead.
std::vector<std::string> queue_projection(const QueueRequest& req);

// The jobs `req` selects, in job id order (as every view lists them).
std::vector<const classad::ClassAd*> select_queue(const std::vector<classad::AdPtr>& ads,
                                                  const QueueRequest& req);

// -attributes: each ad of `ads` cut to the attributes named in `attrs` (any case; all of them when
// `attrs` is empty), and without HTCondor's private attributes when `drop_private` (condor_q's
// -l, -json and -xml; condor_history prints them). The cut copies live in `keep`.
void project_ads(std::vector<const classad::ClassAd*>* ads, const std::vector<std::string>& attrs,
                 bool drop_private, std::vector<classad::AdPtr>* keep);

// The whole output, as condor_q prints it. False with `err` (a bad -af expression).
bool format_queue(const std::vector<classad::AdPtr>& ads, const QueueRequest& req, std::string* out,
                  std::string* err);

enum class HistoryView { kTable, kLong, kJson, kJsonLines, kAutoformat, kXml, kFormat };

struct HistoryRequest {
  HistoryView view = HistoryView::kTable;
  JobSelection selection;
  Autoformat af;
  int limit = -1;         // <0: no limit
  bool forwards = false;  // oldest first (-forwards) instead of newest first
  // The default table's lines (heading included) are cut to this many characters: -wide:N
  // gives N; without -wide condor_history uses the terminal's width less one, 1024 for a pipe.
  int width = 1024;  // 0: never cut (-wide)
  // -attributes A,B: the only attributes -l, -json, -jsonl and -xml print (empty: all of them).
  std::vector<std::string> attributes;
};

// The ads `req` selects (constraint, ids, owners, -limit) in the order they print: newest first,
// or oldest first with -forwards. `ads` are in the order they left the queue.
std::vector<const classad::ClassAd*> select_history(const std::vector<classad::AdPtr>& ads,
                                                    const HistoryRequest& req);

// `ads` in the order they left the queue (a history file's order); printed newest first.
// -xml and -format output belong to the CLI (over select_history()).
bool format_history(const std::vector<classad::AdPtr>& ads, const HistoryRequest& req,
                    std::string* out, std::string* err);

}  // namespace kite::queue
