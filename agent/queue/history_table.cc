// condor_history's outputs for the ads of a history file (see job_tables.h): newest first,
// the default table (no title, no totals), -l, -json and -af.
#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "agent/queue/job_tables.h"

namespace kite::queue {

using classad::AdPtr;
using classad::ClassAd;

namespace {

void append_cell(std::string& out, std::string_view s, int width, bool left, bool first) {
  if (!first) out += ' ';
  append_padded(out, s, width, left);
}

void history_row(std::string& out, const ClassAd& ad) {
  int64_t cluster = 0, proc = 0, t = 0;
  ad_int(ad, "ClusterId", &cluster);
  ad_int(ad, "ProcId", &proc);
  char id[48];
  std::snprintf(id, sizeof id, "%" PRId64 ".%" PRId64, cluster, proc);
  append_cell(out, id, 12, true, true);
  std::string owner;
  if (!ad_string(ad, "Owner", &owner)) owner = "[????????????]";
  append_cell(out, owner, 14, true, false);
  append_cell(out, ad_int(ad, "QDate", &t) ? format_date(t) : "", 11, false, false);
  double wall = 0;
  append_cell(
      out,
      ad_real(ad, "RemoteWallClockTime", &wall) ? format_duration(static_cast<int64_t>(wall)) : "",
      12, false, false);
  std::string st;
  job_status_text(ad, &st);
  append_cell(out, st, 0, true, false);
  int64_t done = 0;
  append_cell(out, ad_int(ad, "CompletionDate", &done) && done > 0 ? format_date(done) : "", 11,
              false, false);
  std::string cmd;
  job_description(ad, &cmd);
  append_cell(out, cmd, 0, true, false);
  out += '\n';
}

}  // namespace

std::vector<const ClassAd*> select_history(const std::vector<AdPtr>& ads,
                                           const HistoryRequest& req) {
  std::vector<const ClassAd*> selected;
  for (size_t i = 0; i < ads.size(); ++i) {
    if (req.limit >= 0 && static_cast<int>(selected.size()) >= req.limit) break;
    const ClassAd* ad = req.forwards ? ads[i].get() : ads[ads.size() - 1 - i].get();
    if (req.selection.selects(*ad)) selected.push_back(ad);
  }
  return selected;
}

bool format_history(const std::vector<AdPtr>& ads, const HistoryRequest& req, std::string* out,
                    std::string* err) {
  std::vector<const ClassAd*> selected = select_history(ads, req);
  std::vector<AdPtr> projected;
  project_ads(&selected, req.attributes, false, &projected);
  switch (req.view) {
    case HistoryView::kLong:
      for (const ClassAd* a : selected) append_long_ad(*out, *a);
      return true;
    case HistoryView::kJson: *out += json_ads(selected); return true;
    case HistoryView::kJsonLines: *out += json_lines(selected); return true;
    case HistoryView::kAutoformat: return format_autoformat(req.af, selected, out, err);
    case HistoryView::kXml:
    case HistoryView::kFormat:
      if (err) *err = "-xml and -format output is printed over select_history() by the CLI";
      return false;
    case HistoryView::kTable: break;
  }
  std::string table = " ID          OWNER            SUBMITTED   RUN_TIME   ST   COMPLETED CMD\n";
  for (const ClassAd* a : selected) history_row(table, *a);
  if (req.width <= 0) {
    *out += table;
    return true;
  }
  // condor_history's print mask cuts each row (not its newline) to the overall width.
  const size_t keep = static_cast<size_t>(req.width);
  for (size_t start = 0; start < table.size();) {
    size_t nl = table.find('\n', start);
    out->append(table, start, std::min(nl - start, keep));
    *out += '\n';
    start = nl + 1;
  }
  return true;
}

}  // namespace kite::queue
