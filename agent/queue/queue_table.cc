// condor_q's outputs for a set of job ads (see job_tables.h). Column layouts, widths and the
// batch grouping follow what HTCondor 25's condor_q prints (tests/data/queue holds its real
// outputs).
#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>

#include <strings.h>

#include "agent/queue/job_tables.h"
#include "agent/queue/private_attrs.h"

namespace kite::queue {

using classad::AdPtr;
using classad::ClassAd;

namespace {

struct Job {
  const ClassAd* ad;
  int64_t cluster;
  int64_t proc;
};

// The selected jobs in job id order (ads without ClusterId last, in file order).
std::vector<Job> select_jobs(const std::vector<AdPtr>& ads, const JobSelection& sel, QueueView view,
                             bool preselected) {
  std::vector<Job> jobs;
  int64_t seq = 0;
  for (const AdPtr& a : ads) {
    if (!preselected && !sel.selects(*a)) continue;
    int64_t status = 0;
    ad_int(*a, "JobStatus", &status);
    if (view == QueueView::kHold && status != 5) continue;
    if (view == QueueView::kRun && status != 2 && status != 6 && status != 7) continue;
    if (view == QueueView::kIdle && status != 1) continue;
    Job j{a.get(), INT_MAX, seq++};
    if (ad_int(*a, "ClusterId", &j.cluster)) {
      if (!ad_int(*a, "ProcId", &j.proc)) j.proc = -1;
    }
    jobs.push_back(j);
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& x, const Job& y) {
    return x.cluster != y.cluster ? x.cluster < y.cluster : x.proc < y.proc;
  });
  return jobs;
}

using Totals = JobCounts;

// As condor_q counts: Transferring output is running; scheduler-universe jobs (DAGMan) are
// counted apart and not shown in these lines.
Totals count_jobs(const std::vector<Job>& jobs) {
  Totals t;
  for (const Job& j : jobs) {
    int64_t status = 0, universe = 5;
    ad_int(*j.ad, "JobStatus", &status);
    ad_int(*j.ad, "JobUniverse", &universe);
    if (universe == 7) continue;
    switch (status) {
      case 1: ++t.idle; break;
      case 2:
      case 6: ++t.running; break;
      case 3: ++t.removed; break;
      case 4: ++t.completed; break;
      case 5: ++t.held; break;
      case 7: ++t.suspended; break;
      default: break;
    }
  }
  return t;
}

// One totals line: "Total for <whose>: N jobs; C completed, ...".
std::string counts_text(const char* whose, const Totals& t) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "Total for %s: %" PRId64 " jobs; %" PRId64 " completed, %" PRId64
                " removed, %" PRId64 " idle, %" PRId64 " running, %" PRId64 " held, %" PRId64
                " suspended",
                whose, t.jobs(), t.completed, t.removed, t.idle, t.running, t.held, t.suspended);
  return buf;
}

// The footer. A schedd's answer has the whole queue's counts for "Total for all users";
// condor_q -jobads has none: that line's seven fields are undefined and print as nothing,
// leaving their separators.
void append_totals(std::string& out, const Totals& t, bool leading_blank, const Totals* all) {
  if (leading_blank) out += '\n';
  out += counts_text("query", t);
  if (all) {
    out += " \n" + counts_text("all users", *all) + "\n\n";
  } else {
    out += "       \n\n";
  }
}

void append_title(std::string& out, const std::string& label, const std::vector<Job>& jobs,
                  int64_t now) {
  int64_t t = 0;
  for (const Job& j : jobs) {
    if (ad_int(*j.ad, "ServerTime", &t) && t) break;
    t = 0;
  }
  if (!t) t = now;
  time_t tt = static_cast<time_t>(t);
  struct tm tm {};
  localtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, " @ %m/%d/%y %H:%M:%S", &tm);
  out += "\n\n-- " + label + buf + "\n";
}

// A table column: heading, width (negative: left-aligned; 0: as wide as the value) and
// whether it follows the previous column without the separating blank.
struct Column {
  std::string heading;
  int width;
  bool no_prefix = false;
};

void append_row(std::string& out, const std::vector<Column>& cols,
                const std::vector<std::string>& cells, bool heading) {
  for (size_t i = 0; i < cols.size(); ++i) {
    if (i > 0 && !cols[i].no_prefix) out += ' ';
    int w = cols[i].width;
    append_padded(out, cells[i], w < 0 ? -w : w, heading || w < 0);
  }
  out += '\n';
}

void append_table(std::string& out, const std::vector<Column>& cols,
                  const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::string> heads;
  for (const Column& c : cols) heads.push_back(c.heading);
  append_row(out, cols, heads, true);
  for (const auto& r : rows) append_row(out, cols, r, false);
}

std::string fmt_int(const char* f, int64_t v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

int digits(int64_t v) {
  return static_cast<int>(fmt_int("%" PRId64, v).size());
}

std::string owner_of(const ClassAd& ad) {
  std::string o;
  return ad_string(ad, "Owner", &o) ? o : "[????????????]";
}

// The ID, OWNER columns every per-job table starts with, widened as condor_q does when the
// ids or names are long.
struct IdColumns {
  int cluster_width = 4, proc_width = 3;
  size_t memory_width = 4;
  void fit(const std::vector<Job>& jobs) {
    int64_t max_cluster = 0, max_proc = 0;
    size_t longest = 0;
    double max_mem = 0;
    for (const Job& j : jobs) {
      max_cluster = std::max(max_cluster, j.cluster);
      max_proc = std::max(max_proc, j.proc);
      std::string o;
      if (ad_string(*j.ad, "Owner", &o)) longest = std::max(longest, o.size());
      double mb = 0;
      if (job_memory_mb(*j.ad, &mb)) max_mem = std::max(max_mem, mb);
    }
    if (max_cluster < 9999 && max_proc < 999 && longest <= 14) return;
    int cw = digits(max_cluster), pw = digits(max_proc);
    if (cw > 4 && cw <= 9) cluster_width = cw;
    if (pw > 3 && pw <= 9) proc_width = pw;
    char buf[64];
    memory_width =
        std::max<size_t>(4, static_cast<size_t>(std::snprintf(buf, sizeof buf, "%.1f", max_mem)));
  }
  void columns(std::vector<Column>& cols) const {
    cols.push_back({" ID", cluster_width + 1});
    cols.push_back({" ", -proc_width, true});
    cols.push_back({"OWNER", -14});
  }
  // An ad without ClusterId or ProcId leaves that cell blank (it sorts after the others).
  void cells(std::vector<std::string>& row, const Job& j) const {
    int64_t v = 0;
    row.push_back(ad_int(*j.ad, "ClusterId", &v)
                      ? fmt_int(("%" + std::to_string(cluster_width) + PRId64 ".").c_str(), v)
                      : "");
    row.push_back(ad_int(*j.ad, "ProcId", &v)
                      ? fmt_int(("%-" + std::to_string(proc_width) + PRId64).c_str(), v)
                      : "");
    row.push_back(owner_of(*j.ad));
  }
};

std::string date_cell(const ClassAd& ad, const char* attr) {
  int64_t t = 0;
  return ad_int(ad, attr, &t) ? format_date(t) : "";
}

std::string run_time_cell(const ClassAd& ad) {
  int64_t secs = 0;
  return job_run_time(ad, &secs) ? format_duration(secs) : "";
}

void nobatch_table(std::string& out, const std::vector<Job>& jobs) {
  IdColumns id;
  id.fit(jobs);
  std::vector<Column> cols;
  id.columns(cols);
  int pri_width = 3;
  std::vector<std::vector<std::string>> rows;
  for (const Job& j : jobs) {
    std::vector<std::string> r;
    id.cells(r, j);
    r.push_back(date_cell(*j.ad, "QDate"));
    r.push_back(run_time_cell(*j.ad));
    std::string st;
    job_status_text(*j.ad, &st);
    r.push_back(st);
    classad::Value prio = j.ad->evaluate_attr("JobPrio");
    r.push_back(prio.is_exceptional() ? "" : value_text(prio, false));
    pri_width = std::max(pri_width, static_cast<int>(r.back().size()));
    double mb = 0;
    char buf[64] = "";
    if (job_memory_mb(*j.ad, &mb)) std::snprintf(buf, sizeof buf, "%.1f", mb);
    r.push_back(buf);
    std::string cmd;
    job_description(*j.ad, &cmd);
    r.push_back(cmd);
    rows.push_back(std::move(r));
  }
  cols.push_back({"  SUBMITTED", 11});
  cols.push_back({"    RUN_TIME", 12});
  cols.push_back({"ST", 0});
  cols.push_back({"PRI", -pri_width});
  cols.push_back({"SIZE", static_cast<int>(id.memory_width)});
  cols.push_back({"CMD", 0});
  append_table(out, cols, rows);
}

void hold_table(std::string& out, const std::vector<Job>& jobs) {
  IdColumns id;
  id.fit(jobs);
  std::vector<Column> cols;
  id.columns(cols);
  cols.push_back({"HELD_SINCE", 11});
  cols.push_back({"CODE/SUB", 8});
  cols.push_back({"HOLD_REASON", 0});
  std::vector<std::vector<std::string>> rows;
  for (const Job& j : jobs) {
    std::vector<std::string> r;
    id.cells(r, j);
    r.push_back(date_cell(*j.ad, "EnteredCurrentStatus"));
    int64_t code = 0, sub = 0;
    std::string cs;
    if (ad_int(*j.ad, "HoldReasonCode", &code)) {
      ad_int(*j.ad, "HoldReasonSubCode", &sub);
      cs = fmt_int("%4" PRId64, code) + "/" + fmt_int("%-3" PRId64, sub);
    }
    r.push_back(cs);
    std::string reason;
    ad_string(*j.ad, "HoldReason", &reason);
    r.push_back(reason);
    rows.push_back(std::move(r));
  }
  append_table(out, cols, rows);
}

void run_table(std::string& out, const std::vector<Job>& jobs) {
  IdColumns id;
  id.fit(jobs);
  std::vector<Column> cols;
  id.columns(cols);
  cols.push_back({"  SUBMITTED", 11});
  cols.push_back({"    RUN_TIME", 12});
  cols.push_back({"HOST(S)", 0});
  std::vector<std::vector<std::string>> rows;
  for (const Job& j : jobs) {
    std::vector<std::string> r;
    id.cells(r, j);
    r.push_back(date_cell(*j.ad, "QDate"));
    r.push_back(run_time_cell(*j.ad));
    std::string host;
    ad_string(*j.ad, "RemoteHost", &host);
    r.push_back(host);
    rows.push_back(std::move(r));
  }
  append_table(out, cols, rows);
}

// HTCondor's universe names as condor_q -idle prints them (CondorUniverseNameUcFirst).
const char* universe_name(int64_t u) {
  static const char* const kNames[] = {"NULL",    "Standard", "Pipe",      "Linda", "PVM",
                                       "Vanilla", "PVMD",     "Scheduler", "MPI",   "Grid",
                                       "Java",    "Parallel", "Local",     "VM"};
  if (u < 0 || u >= static_cast<int64_t>(sizeof kNames / sizeof kNames[0])) return "Unknown";
  return kNames[u];
}

// condor_q -idle: the idle jobs' universe, requests, starts and last host. Columns without a
// WIDTH are at least as wide as their heading and grow to their longest value (a print
// format's AUTO width); no totals.
void idle_table(std::string& out, const std::vector<Job>& jobs) {
  IdColumns id;
  id.fit(jobs);
  std::vector<Column> cols;
  id.columns(cols);
  cols.push_back({"UNIVERSE ", -9});
  cols.push_back({"CPUS", -4});
  cols.push_back({"MEMORY", -6});
  cols.push_back({"STARTS", -6});
  cols.push_back({"LAST_HOST", 0});
  std::vector<std::vector<std::string>> rows;
  for (const Job& j : jobs) {
    std::vector<std::string> r;
    id.cells(r, j);
    int64_t v = 0;
    r.push_back(ad_int(*j.ad, "JobUniverse", &v) ? universe_name(v) : "");
    r.push_back(ad_int(*j.ad, "RequestCpus", &v) ? fmt_int("%4" PRId64, v) : "");
    r.push_back(ad_int(*j.ad, "RequestMemory", &v) ? fmt_int("%6" PRId64, v) : "");
    if (!ad_int(*j.ad, "NumShadowStarts", &v)) v = 0;
    r.push_back(fmt_int("%6" PRId64, v));
    std::string host;
    ad_string(*j.ad, "LastRemoteHost", &host);
    r.push_back(host);
    for (size_t c = 3; c + 1 < cols.size(); ++c)
      cols[c].width = -std::max(-cols[c].width, static_cast<int>(r[c].size()));
    rows.push_back(std::move(r));
  }
  append_table(out, cols, rows);
}

// One line of the batch table: the procs of a cluster, plus the later clusters of the same
// owner that share its JobBatchName.
// The cluster of the DAGMan job that a DAG node belongs to (DAGManJobId, a number or the
// old "C.P" string), or -1.
int64_t dagman_cluster(const ClassAd& ad) {
  classad::Value v = ad.evaluate_attr("DAGManJobId");
  if (v.is_integer()) return v.as_integer() > 0 ? v.as_integer() : -1;
  if (!v.is_string()) return -1;
  std::string text(v.as_string());
  char* end = nullptr;
  long long id = std::strtoll(text.c_str(), &end, 10);
  return id > 0 && end != text.c_str() && (*end == '.' || *end == 0) ? id : -1;
}

struct BatchRow {
  const Job* first = nullptr;
  std::string owner, name;
  int64_t done = 0, run = 0, idle = 0, held = 0, total = 0;
  bool unknown_total = false;
  int64_t min_cluster = 0, min_proc = 0, max_cluster = 0, max_proc = 0;
  bool has_ids = false;
};

void batch_table(std::string& out, const std::vector<Job>& jobs, bool partial) {
  std::vector<BatchRow> rows;
  std::map<std::string, size_t> by_batch;    // batch name + owner -> row
  std::map<int64_t, size_t> row_of_cluster;  // cluster (with its proc 0 shown) -> row
  size_t owner_col = 5;                      // AUTO: the heading, then every job's owner
  for (size_t i = 0; i < jobs.size();) {
    size_t end = i;
    while (end < jobs.size() && jobs[end].cluster == jobs[i].cluster) ++end;
    const ClassAd& first = *jobs[i].ad;
    const int64_t cluster = jobs[i].cluster;
    std::string owner = owner_of(first);
    std::string batch, node;
    bool named = ad_string(first, "JobBatchName", &batch);
    int64_t universe = 5;
    ad_int(first, "JobUniverse", &universe);
    const bool dagman = universe == 7;  // a DAGMan job: its row sums up its DAG's nodes
    const int64_t parent = dagman_cluster(first);
    // A DAG node goes into its DAGMan's row (when that job is shown); other clusters join the
    // first cluster of the same owner and JobBatchName, except DAGMan jobs, which keep their
    // own rows.
    size_t row_index = rows.size();
    if (parent > 0) {
      auto it = row_of_cluster.find(parent);
      if (it != row_of_cluster.end()) row_index = it->second;
    } else if (named) {
      auto [it, fresh] = by_batch.emplace(batch + "\n" + owner, rows.size());
      if (!fresh && !dagman) row_index = it->second;
    }
    if (row_index == rows.size()) rows.emplace_back();
    if (jobs[i].proc == 0) row_of_cluster.emplace(cluster, row_index);
    BatchRow& row = rows[row_index];
    if (!row.first) {
      row.first = &jobs[i];
      row.owner = owner;
      if (named) {
        row.name = batch;
      } else if (dagman) {
        row.name = "DAG: " + std::to_string(cluster);
      } else if (parent > 0 && ad_string(first, "DAGNodeName", &node)) {
        row.name = "NODE: " + node;
      } else {
        row.name = "ID: " + std::to_string(cluster);
      }
    }
    if (dagman) {
      int64_t total = 0, done = 0;
      if (ad_int(first, "DAG_NodesTotal", &total) || ad_int(first, "TotalSubmitProcs", &total)) {
        row.total += total;
      }
      if (ad_int(first, "DAG_NodesDone", &done)) row.done += done;
      for (size_t k = i; k < end; ++k) {
        owner_col = std::max(owner_col, owner_of(*jobs[k].ad).size());
      }
      i = end;
      continue;
    }
    int64_t total_procs = 0;
    int64_t num_procs = 0;
    bool has_total = ad_int(first, "TotalSubmitProcs", &total_procs);
    if (has_total) num_procs = 1;
    int64_t min_proc = INT64_MAX, max_proc = 0;
    for (size_t k = i; k < end; ++k) {
      owner_col = std::max(owner_col, owner_of(*jobs[k].ad).size());
      if (k > i) ++num_procs;
      if (jobs[k].proc < 0) continue;
      min_proc = std::min(min_proc, jobs[k].proc);
      max_proc = std::max(max_proc, jobs[k].proc);
      int64_t st = 0;
      ad_int(*jobs[k].ad, "JobStatus", &st);
      if (st == 1 || st == 7) ++row.idle;
      if (st == 2 || st == 6) ++row.run;
      if (st == 5) ++row.held;
    }
    if (parent > 0) {
      // DAG nodes: the DAGMan job's own counts give DONE and TOTAL.
    } else if (has_total && total_procs) {
      row.total += total_procs;
      if (!partial) row.done += total_procs - num_procs;
    } else {
      row.unknown_total = true;
    }
    if (min_proc != INT64_MAX) {
      int64_t c = jobs[i].cluster;
      if (!row.has_ids || c < row.min_cluster ||
          (c == row.min_cluster && min_proc < row.min_proc)) {
        row.min_cluster = c;
        row.min_proc = min_proc;
      }
      if (!row.has_ids || c > row.max_cluster ||
          (c == row.max_cluster && max_proc > row.max_proc)) {
        row.max_cluster = c;
        row.max_proc = max_proc;
      }
      row.has_ids = true;
    }
    i = end;
  }
  // Widths as condor_q fits them to the data.
  int owner_width = 5, name_width = 12;
  bool any_held = false;
  if (!rows.empty()) {
    size_t longest_owner = 0, longest_name = 0;
    for (const BatchRow& r : rows) {
      longest_owner = std::max(longest_owner, r.owner.size());
      longest_name = std::max(longest_name, r.name.size());
      any_held = any_held || r.held > 0;
    }
    owner_width = longest_owner < owner_col ? std::max<int>(8, static_cast<int>(longest_owner))
                                            : static_cast<int>(longest_owner);
    name_width = std::max<int>(10, static_cast<int>(longest_name));
  } else {
    any_held = true;  // the empty table keeps every column
  }
  std::vector<Column> cols = {{"OWNER", -owner_width}, {"BATCH_NAME", -name_width},
                              {"   SUBMITTED", 12},    {"  DONE", 6},
                              {"  RUN ", 6},           {"  IDLE", 6}};
  if (any_held) cols.push_back({"  HOLD", 6});
  cols.push_back({" TOTAL", 6});
  cols.push_back({"JOB_IDS", 0});
  auto count = [](int64_t n) { return n > 0 ? std::to_string(n) : std::string("_"); };
  std::vector<std::vector<std::string>> cells;
  for (const BatchRow& r : rows) {
    std::vector<std::string> c;
    c.push_back(r.owner);
    c.push_back(r.name);
    c.push_back(date_cell(*r.first->ad, "QDate"));
    c.push_back(count(r.unknown_total ? 0 : r.done));
    c.push_back(count(r.run));
    c.push_back(count(r.idle));
    if (any_held) c.push_back(count(r.held));
    c.push_back(count(r.unknown_total ? 0 : r.total));
    std::string ids = "0.0";  // a DAG with no node shown: condor_q prints an empty id
    if (r.has_ids) {
      ids = std::to_string(r.min_cluster) + "." + std::to_string(r.min_proc);
      if (r.min_cluster == r.max_cluster && r.min_proc != r.max_proc) {
        ids += "-" + std::to_string(r.max_proc);
      } else if (r.min_cluster != r.max_cluster) {
        ids += " ... " + std::to_string(r.max_cluster) + "." + std::to_string(r.max_proc);
      }
    }
    c.push_back(ids);
    cells.push_back(std::move(c));
  }
  append_table(out, cols, cells);
}

}  // namespace

std::vector<std::string> queue_projection(const QueueRequest& req) {
  // Every table: the id and owner columns (with SIZE's width), the status filter and totals.
  std::vector<std::string> attrs = {"ClusterId",   "ProcId",     "Owner",       "JobStatus",
                                    "JobUniverse", "ServerTime", "MemoryUsage", "ImageSize"};
  auto add = [&](std::initializer_list<const char*> more) {
    for (const char* a : more) attrs.emplace_back(a);
  };
  const std::initializer_list<const char*> run_time = {"QDate", "RemoteUserCpu", "ShadowBday",
                                                       "LastRemoteWallClockTime"};
  switch (req.view) {
    case QueueView::kBatch:
      add({"QDate", "JobBatchName", "DAGManJobId", "DAGNodeName", "DAG_NodesTotal", "DAG_NodesDone",
           "TotalSubmitProcs"});
      break;
    case QueueView::kNoBatch:
      add(run_time);
      add({"TransferringInput", "TransferringOutput", "TransferQueued", "JobPrio", "Cmd",
           "MATCH_EXP_JobDescription", "JobDescription", "Args", "Arguments"});
      break;
    case QueueView::kHold:
      add({"EnteredCurrentStatus", "HoldReasonCode", "HoldReasonSubCode", "HoldReason"});
      break;
    case QueueView::kRun:
      add(run_time);
      add({"RemoteHost"});
      break;
    case QueueView::kIdle:
      add({"JobUniverse", "RequestCpus", "RequestMemory", "NumShadowStarts", "LastRemoteHost"});
      break;
    case QueueView::kAutoformat:
      attrs = {"ClusterId", "ProcId"};  // -af:j
      attrs.insert(attrs.end(), req.af.exprs.begin(), req.af.exprs.end());
      break;
    case QueueView::kFormat:
      attrs = {"ClusterId", "ProcId"};  // the job id order
      attrs.insert(attrs.end(), req.format_exprs.begin(), req.format_exprs.end());
      break;
    case QueueView::kTotals:
    case QueueView::kLong:
    case QueueView::kJson:
    case QueueView::kJsonLines:
    case QueueView::kXml: return {};
  }
  return attrs;
}

std::vector<const ClassAd*> select_queue(const std::vector<AdPtr>& ads, const QueueRequest& req) {
  std::vector<const ClassAd*> selected;
  for (const Job& j : select_jobs(ads, req.selection, req.view, req.preselected))
    selected.push_back(j.ad);
  return selected;
}

void project_ads(std::vector<const ClassAd*>* ads, const std::vector<std::string>& attrs,
                 bool drop_private, std::vector<AdPtr>* keep) {
  if (attrs.empty() && !drop_private) return;
  for (const ClassAd*& ad : *ads) {
    std::vector<std::string> drop;
    for (const auto& e : ad->entries()) {
      std::string name(e.name->view());
      bool wanted = attrs.empty();
      for (const std::string& a : attrs)
        wanted = wanted || strcasecmp(a.c_str(), name.c_str()) == 0;
      if (!wanted || (drop_private && private_attr(name))) drop.push_back(name);
    }
    if (drop.empty()) continue;
    AdPtr copy(ad->copy());
    for (const std::string& name : drop) copy->remove(name);
    ad = copy.get();
    keep->push_back(std::move(copy));
  }
}

bool format_queue(const std::vector<AdPtr>& ads, const QueueRequest& req, std::string* out,
                  std::string* err) {
  std::vector<Job> jobs = select_jobs(ads, req.selection, req.view, req.preselected);
  std::vector<const ClassAd*> selected;
  for (const Job& j : jobs) selected.push_back(j.ad);
  std::vector<AdPtr> projected;
  if (req.view == QueueView::kLong || req.view == QueueView::kJson ||
      req.view == QueueView::kJsonLines)
    project_ads(&selected, req.attributes, true, &projected);
  switch (req.view) {
    case QueueView::kLong:
      // An ad left with no attribute prints nothing, not even its blank line.
      for (const ClassAd* a : selected)
        if (a->entries().begin() != a->entries().end()) append_long_ad(*out, *a);
      return true;
    case QueueView::kJson: *out += json_ads(selected); return true;
    case QueueView::kJsonLines: *out += json_lines(selected); return true;
    case QueueView::kAutoformat: return format_autoformat(req.af, selected, out, err);
    case QueueView::kFormat:
    case QueueView::kXml:
      // -format's printf conversions and the XML form belong to the CLI (agent/cli/).
      if (err) *err = "-format output is printed over select_queue() by the CLI";
      return false;
    default: break;
  }
  append_title(*out, req.source_label, jobs, req.now);
  // Job ids, -constraint, -hold and -run may select part of a cluster: DONE is then unknown.
  bool partial = !req.selection.constraints.empty() || req.view == QueueView::kHold ||
                 req.view == QueueView::kRun || req.view == QueueView::kIdle;
  for (const JobSelection::Id& id : req.selection.ids) partial = partial || id.proc >= 0;
  switch (req.view) {
    case QueueView::kBatch: batch_table(*out, jobs, partial); break;
    case QueueView::kNoBatch: nobatch_table(*out, jobs); break;
    case QueueView::kHold: hold_table(*out, jobs); break;
    case QueueView::kRun: run_table(*out, jobs); return true;    // -run prints no totals
    case QueueView::kIdle: idle_table(*out, jobs); return true;  // nor does -idle
    default: break;
  }
  append_totals(*out, req.has_query_counts ? req.query_counts : count_jobs(jobs),
                req.view != QueueView::kTotals, req.has_all_users ? &req.all_users : nullptr);
  return true;
}

}  // namespace kite::queue
