// `kite q` and `kite history`: condor_q / condor_history over the central manager's queue and
// history, or over job ads read from a file (`-jobads FILE`, `-file FILE`), printing what those
// tools print for the same ads.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>

#include "agent/cli/cm_client.h"
#include "agent/cli/commands.h"
#include "agent/cli/status_format.h"
#include "agent/cli/status_pool.h"
#include "agent/cli/status_xml.h"
#include "agent/cm/queue_client.h"
#include "agent/queue/job_ads_file.h"
#include "agent/queue/job_analyze.h"
#include "agent/queue/job_tables.h"
#include "policy/classad/unparse.h"

namespace kite::cli {

namespace {

using queue::Autoformat;

// HTCondor's option matching: `-name` or any prefix of it at least `min` letters long, with
// an optional `:opts` tail.
bool option(const char* arg, const char* name, size_t min, const char** opts = nullptr) {
  if (arg[0] != '-') return false;
  const char* a = arg + 1;
  if (*a == '-') ++a;
  size_t n = std::strcspn(a, ":");
  if (n < min || n > std::strlen(name) || std::strncmp(a, name, n) != 0) return false;
  if (a[n] == ':' && !opts) return false;
  if (opts) *opts = a[n] == ':' ? a + n + 1 : "";
  return true;
}

// -attributes A,B: the attributes -l, -json and -xml print, separated by commas or blanks.
void split_attributes(const char* list, std::vector<std::string>* out) {
  for (const char* p = list; *p;) {
    size_t n = std::strcspn(p, ", \t");
    if (n > 0) out->emplace_back(p, n);
    p += n;
    if (*p) ++p;
  }
}

// -af[:opts] attr ...: the attributes run to the next argument that starts with '-'.
bool take_autoformat(int argc, char** argv, int* i, const char* opts, Autoformat* af) {
  af->opts = opts;
  while (*i + 1 < argc && argv[*i + 1][0] != '-') af->exprs.push_back(argv[++*i]);
  if (af->exprs.empty()) {
    std::fprintf(stderr, "Error: -autoformat requires at least one attribute parameter\n");
    return false;
  }
  return true;
}

int64_t current_time() {
  const char* env = std::getenv("KITE_NOW");
  if (env && *env) return std::strtoll(env, nullptr, 10);
  return static_cast<int64_t>(std::time(nullptr));
}

int emit(bool ok, const std::string& out, const std::string& err) {
  std::fputs(out.c_str(), stdout);
  if (!ok) {
    std::fprintf(stderr, "Error: %s\n", err.c_str());
    return 1;
  }
  return 0;
}

// -better-analyze (and -analyze, which prints the same here): each selected job against the
// slot ads of -slotads FILE, else the Machine ads of the CM's collector.
int analyze_jobs(const std::vector<classad::AdPtr>& jobs, const queue::JobSelection& selection,
                 const std::string& label, const std::string& slot_file, const std::string& pool) {
  std::vector<classad::AdPtr> slots;
  std::string err, cm;
  if (!slot_file.empty()) {
    if (!queue::read_job_ads_file(slot_file, &slots, &err)) return emit(false, "", err);
  } else if (!cm_address(pool, &cm, &err) || !query_pool(cm, StatusOptions{}, &slots, &err)) {
    return emit(false, "", "the slot ads to analyze against: " + err);
  }
  std::string out = "\n\n-- " + label + "\n";
  for (const classad::AdPtr& job : jobs) {
    if (selection.selects(*job)) out += queue::format_better_analyze(*job, slots);
  }
  return emit(true, out, "");
}

// Fetches the jobs `q` asks for from the CM at `pool` (-pool, else COLLECTOR_HOST).
bool fetch_jobs(const std::string& pool, const JobQuery& q, JobQueryReply* reply,
                std::string* err) {
  std::string cm;
  return cm_address(pool, &cm, err) && query_jobs(cm, q, reply, err);
}

}  // namespace

int q_main(int argc, char** argv) {
  queue::QueueRequest req;
  JobQuery remote;
  std::string file, slot_file, pool, err;
  std::vector<FormatItem> formats;
  bool analyze = false;
  const char* opts = nullptr;
  // The table (-batch/-nobatch), the -hold/-run selections, and an output form that wins over both.
  queue::QueueView table = queue::QueueView::kBatch;
  int held = 0, run = 0, idle = 0;
  std::optional<queue::QueueView> output;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    bool needs_value = option(a, "jobads", 1, &opts) || option(a, "constraint", 1) ||
                       option(a, "pool", 4) || option(a, "slotads", 2) ||
                       option(a, "attributes", 2) || option(a, "limit", 3);
    if (needs_value && i + 1 >= argc) {
      std::fprintf(stderr, "Error: %s requires an argument\n", a);
      return 1;
    }
    if (a[0] != '-') {
      req.selection.add_positional(a);
      remote.args.push_back(a);
    } else if (option(a, "jobads", 1, &opts)) {
      file = argv[++i];
    } else if (option(a, "pool", 4)) {
      pool = argv[++i];
    } else if (option(a, "constraint", 1)) {
      if (!req.selection.add_constraint(argv[++i], &err)) return emit(false, "", err);
      remote.constraints.push_back(argv[i]);
    } else if (option(a, "slotads", 2)) {
      slot_file = argv[++i];
    } else if (option(a, "better-analyze", 2) || option(a, "analyze", 2)) {
      analyze = true;
    } else if (option(a, "nobatch", 3)) {
      table = queue::QueueView::kNoBatch;
    } else if (option(a, "batch", 2)) {
      table = queue::QueueView::kBatch;
    } else if (option(a, "hold", 2) || option(a, "held", 2) || option(a, "run", 1) ||
               option(a, "idle", 3)) {
      // As condor_q: -hold, -run and -idle select (ANDed with the rest of the query) and choose
      // the table, which -totals, -l, -json, -af and -format override in any order.
      char which = a[1] == '-' ? a[2] : a[1];
      int& mine = which == 'h' ? held : which == 'r' ? run : idle;
      if (held + run + idle > mine) {
        std::fprintf(stderr, "-run and -hold/held or -idle are incompatible\n");
        return 1;
      }
      mine = 1;
      const char* expr = which == 'h'   ? "JobStatus == 5"
                         : which == 'i' ? "JobStatus == 1"
                                        : "JobStatus == 2 || JobStatus == 6 || JobStatus == 7";
      if (!req.selection.add_constraint(expr, &err)) return emit(false, "", err);
      remote.constraints.push_back(expr);
    } else if (option(a, "totals", 3)) {
      output = queue::QueueView::kTotals;
    } else if (option(a, "long", 1, &opts)) {
      // -long:json, -long:jsonl and -long:xml choose the form (-long:nosort changes nothing here)
      output = queue::QueueView::kLong;
      for (const char* p = opts ? opts : ""; *p;) {
        size_t n = std::strcspn(p, ", ");
        std::string form(p, n);
        if (form == "json") output = queue::QueueView::kJson;
        if (form == "jsonl") output = queue::QueueView::kJsonLines;
        if (form == "xml") output = queue::QueueView::kXml;
        p += n;
        if (*p) ++p;
      }
    } else if (option(a, "json", 2)) {
      output = queue::QueueView::kJson;
    } else if (option(a, "xml", 3)) {
      output = queue::QueueView::kXml;
    } else if (option(a, "attributes", 2)) {
      split_attributes(argv[++i], &req.attributes);
    } else if (option(a, "limit", 3)) {
      // condor_q caps a schedd's answer at N jobs; a file of job ads is read whole.
      char* end = nullptr;
      long n = std::strtol(argv[++i], &end, 10);
      if (*end || n > 1000000000L) {
        std::fprintf(stderr, "Error: Unable to convert (%s) to a number for -limit.\n", argv[i]);
        return 1;
      }
      if (n <= 0) {
        std::fprintf(stderr, "Error: %ld is not a valid for -limit.\n", n);
        return 1;
      }
      remote.limit = static_cast<int>(n);
    } else if (option(a, "af", 2, &opts) || option(a, "autoformat", 5, &opts)) {
      if (!take_autoformat(argc, argv, &i, opts, &req.af)) return 1;
      output = queue::QueueView::kAutoformat;
    } else if (option(a, "format", 1)) {
      // -format FMT EXPR, as condor_q: one printf conversion per pair, no title or totals.
      if (i + 2 >= argc) {
        std::fprintf(stderr, "Error: -format requires format and attribute parameters\n");
        return 1;
      }
      formats.push_back({argv[i + 1], argv[i + 2]});
      req.format_exprs.push_back(argv[i + 2]);
      output = queue::QueueView::kFormat;
      i += 2;
    } else if (option(a, "submitter", 1)) {
      // condor_q -submitter NAME: the jobs NAME's usage is charged to (its accounting group,
      // else its owner; condor_utils/condor_q.cpp), from every owner.
      if (i + 1 >= argc) {
        std::fprintf(stderr, "Error: -submitter requires the name of a user.\n");
        return 1;
      }
      std::string name = argv[++i];
      if (name.rfind("nice-user.", 0) == 0) name.erase(0, 10);
      std::string expr = "(AccountingGroup ?: Owner) == ";
      classad::unparse_string(expr, name);
      if (!req.selection.add_constraint(expr, &err)) return emit(false, "", err);
      remote.constraints.push_back(expr);
      remote.mine = false;
    } else if (option(a, "allusers", 2) || option(a, "all-users", 2)) {
      remote.mine = false;  // every job in a file is shown anyway
    } else if (option(a, "wide", 1, &opts)) {
      // output is never cut to a terminal's width
    } else {
      std::fprintf(stderr, "Error: unrecognized argument %s\n", a);
      return 1;
    }
  }
  if (output) {
    req.view = *output;
  } else if (held || run || idle) {
    req.view = held  ? queue::QueueView::kHold
               : run ? queue::QueueView::kRun
                     : queue::QueueView::kIdle;
  } else {
    req.view = table;
  }
  std::vector<classad::AdPtr> ads;
  req.now = current_time();
  if (file.empty()) {
    // Only what the output reads crosses the wire: the counts for -totals, a projection for
    // the tables and -af; whole ads for -l, -json and -analyze.
    if (!analyze) {
      remote.totals = req.view == queue::QueueView::kTotals;
      remote.projection = queue::queue_projection(req);
    }
    JobQueryReply reply;
    if (!fetch_jobs(pool, remote, &reply, &err)) return emit(false, "", err);
    ads = std::move(reply.ads);
    req.preselected = true;
    if (reply.counted) {
      req.has_query_counts = true;
      req.query_counts = reply.query;
      if (reply.query.jobs() > 0) req.now = reply.server_time;  // a job's ServerTime, as before
    }
    std::string cm;
    cm_address(pool, &cm, &err);
    req.source_label = "Schedd: " + reply.schedd + " : <" + cm + "?...";
    req.has_all_users = true;
    req.all_users = reply.all;
  } else {
    if (!queue::read_job_ads_file(file, &ads, &err)) return emit(false, "", err);
    req.source_label = "Jobads: " + file;
  }
  if (analyze) return analyze_jobs(ads, req.selection, req.source_label, slot_file, pool);
  std::string out;
  if (req.view == queue::QueueView::kFormat) {
    bool ok = format_ads(formats, queue::select_queue(ads, req), &out, &err);
    return emit(ok, out, err);
  }
  if (req.view == queue::QueueView::kXml) {
    // condor_q writes the ads through its list writer: no blank line between them, and the
    // document's header and footer even when no job was selected.
    out = kXmlHeader;
    std::vector<const classad::ClassAd*> selected = queue::select_queue(ads, req);
    std::vector<classad::AdPtr> projected;
    queue::project_ads(&selected, req.attributes, true, &projected);
    for (const classad::ClassAd* ad : selected) {
      append_xml_ad(&out, *ad);
      out.pop_back();
    }
    out += kXmlFooter;
    return emit(true, out, err);
  }
  bool ok = queue::format_queue(ads, req, &out, &err);
  return emit(ok, out, err);
}

int history_main(int argc, char** argv) {
  queue::HistoryRequest req;
  std::vector<FormatItem> formats;
  JobQuery remote;
  remote.history = true;
  remote.mine = false;  // condor_history shows every owner's jobs
  std::string file, pool, err;
  const char* opts = nullptr;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    bool needs_value = option(a, "file", 1) || option(a, "constraint", 1) ||
                       option(a, "attributes", 2) || option(a, "limit", 3) ||
                       option(a, "match", 3) || option(a, "pool", 4);
    if (needs_value && i + 1 >= argc) {
      std::fprintf(stderr, "Error: %s requires an argument\n", a);
      return 1;
    }
    if (a[0] != '-') {
      req.selection.add_positional(a);
      remote.args.push_back(a);
    } else if (option(a, "file", 1)) {
      file = argv[++i];
    } else if (option(a, "pool", 4)) {
      pool = argv[++i];
    } else if (option(a, "constraint", 1)) {
      if (!req.selection.add_constraint(argv[++i], &err)) return emit(false, "", err);
      remote.constraints.push_back(argv[i]);
    } else if (option(a, "forwards", 3)) {
      req.forwards = true;
    } else if (option(a, "backwards", 3)) {
      req.forwards = false;
    } else if (option(a, "limit", 3) || option(a, "match", 3)) {
      char* end = nullptr;
      long n = std::strtol(argv[++i], &end, 10);
      if (*end || n <= 0 || n > 1000000000L) {
        std::fprintf(stderr, "Error: -limit needs a positive number, not '%s'\n", argv[i]);
        return 1;
      }
      req.limit = static_cast<int>(n);
    } else if (option(a, "long", 1, &opts)) {
      req.view = queue::HistoryView::kLong;
    } else if (option(a, "json", 2)) {
      req.view = queue::HistoryView::kJson;
    } else if (option(a, "af", 2, &opts) || option(a, "autoformat", 5, &opts)) {
      if (!take_autoformat(argc, argv, &i, opts, &req.af)) return 1;
      req.view = queue::HistoryView::kAutoformat;
    } else if (option(a, "xml", 3)) {
      req.view = queue::HistoryView::kXml;
    } else if (option(a, "jsonl", 5)) {
      req.view = queue::HistoryView::kJsonLines;
    } else if (option(a, "attributes", 2)) {
      split_attributes(argv[++i], &req.attributes);
    } else if (option(a, "format", 1)) {
      // -format FMT EXPR, as condor_history: printf conversions, no header.
      if (i + 2 >= argc) {
        std::fprintf(stderr,
                     "Error: Argument -format requires a spec and classad attribute name as "
                     "parameters.\n");
        return 1;
      }
      formats.push_back({argv[i + 1], argv[i + 2]});
      req.view = queue::HistoryView::kFormat;
      i += 2;
    } else if (option(a, "wide", 1, &opts)) {
      // -wide: no cut; -wide:N cuts the table's lines to N characters (as condor_history,
      // which for N <= 80 also truncates again; -wide:80 is its old fixed layout, not made).
      req.width = opts ? std::atoi(opts) : 0;
      if (req.width < 0) req.width = 0;
    } else {
      std::fprintf(stderr, "Error: unrecognized argument %s\n", a);
      return 1;
    }
  }
  std::vector<classad::AdPtr> ads;
  if (file.empty()) {
    // -forwards needs the oldest, which a limit counted from the newest would not give.
    remote.limit = req.forwards ? -1 : req.limit;
    JobQueryReply reply;
    if (!fetch_jobs(pool, remote, &reply, &err)) return emit(false, "", err);
    // The CM answers newest first; the table takes them in the order they left the queue.
    ads.assign(std::make_move_iterator(reply.ads.rbegin()),
               std::make_move_iterator(reply.ads.rend()));
  } else if (!queue::read_job_ads_file(file, &ads, &err)) {
    return emit(false, "", err);
  }
  std::string out;
  if (req.view == queue::HistoryView::kFormat) {
    bool ok = format_ads(formats, queue::select_history(ads, req), &out, &err);
    return emit(ok, out, err);
  }
  if (req.view == queue::HistoryView::kXml) {
    // condor_history prints the document's header and footer each with one more newline.
    out = std::string(kXmlHeader) + "\n";
    std::vector<const classad::ClassAd*> selected = queue::select_history(ads, req);
    std::vector<classad::AdPtr> projected;
    queue::project_ads(&selected, req.attributes, false, &projected);
    for (const classad::ClassAd* ad : selected) append_xml_ad(&out, *ad);
    out = out + kXmlFooter + "\n";
    return emit(true, out, err);
  }
  bool ok = queue::format_history(ads, req, &out, &err);
  return emit(ok, out, err);
}

}  // namespace kite::cli
