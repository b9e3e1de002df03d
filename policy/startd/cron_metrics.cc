// Resource-monitor metrics: the METRICS list and the device, slot and job accounting.
#include "policy/startd/cron_metrics.h"

#include <strings.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "policy/startd/text_util.h"

namespace kite::startd {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

std::string real_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

}  // namespace

std::string CronMetric::report_attr() const {
  return "Uptime" + name + (sum ? "Seconds" : "PeakUsage");
}

bool cron_metrics_parse(const std::string& text, std::vector<CronMetric>* out, std::string* err) {
  out->clear();
  for (const std::string& item : split_list(text)) {
    size_t colon = item.find(':');
    std::string kind = colon == std::string::npos ? "" : item.substr(0, colon);
    CronMetric m;
    m.name = colon == std::string::npos ? "" : item.substr(colon + 1);
    bool name_ok = !m.name.empty();
    for (char c : m.name) {
      bool ok =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      name_ok = name_ok && ok;
    }
    if (strcasecmp(kind.c_str(), "SUM") == 0) {
      m.sum = true;
    } else if (strcasecmp(kind.c_str(), "PEAK") == 0) {
      m.sum = false;
    } else {
      *err = "'" + item + "' is not SUM:<name> or PEAK:<name>";
      return false;
    }
    if (!name_ok) {
      *err = "'" + item + "': the metric name must be letters, digits and _";
      return false;
    }
    out->push_back(std::move(m));
  }
  if (out->empty()) {
    *err = "no metric listed";
    return false;
  }
  return true;
}

bool cron_metrics_same(const std::vector<CronMetric>& a, const std::vector<CronMetric>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].sum != b[i].sum || a[i].name != b[i].name) return false;
  }
  return true;
}

void CronMonitorState::report(CronRecord* rec, int64_t now, std::vector<std::string>* errors) {
  Device& d = devices_[rec->tag];
  d.total.resize(metrics_.size(), 0);
  d.last.assign(metrics_.size(), kNone);
  d.updated = now;
  std::vector<std::pair<std::string, std::string>> others;
  for (auto& [name, text] : rec->attrs) {
    size_t m = 0;
    while (m < metrics_.size() &&
           strcasecmp(name.c_str(), (prefix_ + metrics_[m].report_attr()).c_str()) != 0) {
      ++m;
    }
    if (m == metrics_.size()) {
      others.emplace_back(std::move(name), std::move(text));
      continue;
    }
    // A number literal (the monitor prints values, not expressions).
    std::string t = trim(text);
    char* end = nullptr;
    double x = t.empty() ? kNone : std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0' || !std::isfinite(x) || x < 0) {
      errors->push_back("record " + rec->tag + ": metric " + name + " = " + text +
                        " is not a finite number of 0 or more: ignored");
      continue;
    }
    d.last[m] = x;
    d.total[m] = metrics_[m].sum ? d.total[m] + x : std::max(d.total[m], x);
  }
  rec->attrs = std::move(others);
  CronRecord route;
  route.tag = rec->tag;
  if (rec->merge_constraint)
    route.merge_constraint = classad::ExprPtr(classad::expr_copy(rec->merge_constraint.get()));
  route.slot_name = rec->slot_name;
  route.slot_type_id = rec->slot_type_id;
  route.slot_id = rec->slot_id;
  routes_[rec->tag] = std::move(route);
}

double CronMonitorState::aggregate(size_t m, const std::vector<std::string>& devices) const {
  double v = 0;
  for (const std::string& tag : devices) {
    auto it = devices_.find(tag);
    if (it == devices_.end() || it->second.total.size() <= m) continue;
    double t = it->second.total[m];
    v = metrics_[m].sum ? v + t : std::max(v, t);
  }
  return v;
}

std::vector<std::pair<std::string, std::string>> CronMonitorState::slot_attrs(
    const std::string& slot, const std::vector<std::string>& devices,
    const std::vector<std::string>& fresh, const std::string& job, int64_t now, int64_t since) {
  std::vector<std::pair<std::string, std::string>> out;
  Slot& s = slots_[slot];
  if (job != s.job) {
    // A new job (or none): the job's accounting starts from the devices' totals now, over the
    // time since their last report (HTCondor's StartOfJob / FirstUpdate).
    s.job = job;
    s.job_start.assign(metrics_.size(), 0);
    s.job_peak.assign(metrics_.size(), kNone);
    for (size_t m = 0; m < metrics_.size(); ++m) s.job_start[m] = aggregate(m, devices);
    s.first = 0;
    for (const std::string& tag : devices) {
      auto it = devices_.find(tag);
      if (it != devices_.end() && it->second.updated > s.first) s.first = it->second.updated;
    }
    if (s.first == 0) s.first = now;
    s.last = s.first;
  }
  if (!job.empty() && !fresh.empty()) {
    s.last = now;
    for (size_t m = 0; m < metrics_.size(); ++m) {
      if (metrics_[m].sum) continue;
      for (const std::string& tag : fresh) {
        auto it = devices_.find(tag);
        if (it == devices_.end() || it->second.last.size() <= m) continue;
        double x = it->second.last[m];
        if (std::isnan(x)) continue;
        s.job_peak[m] = std::isnan(s.job_peak[m]) ? x : std::max(s.job_peak[m], x);
      }
    }
  }
  const double uptime = static_cast<double>(now - since > 0 ? now - since : 1);
  for (size_t m = 0; m < metrics_.size(); ++m) {
    const CronMetric& mt = metrics_[m];
    double total = aggregate(m, devices);
    if (mt.sum) {
      out.emplace_back("Device" + mt.name + "AverageUsage", real_text(total / uptime));
      std::string avg = "undefined";
      if (!job.empty() && s.last > s.first)
        avg = real_text((total - s.job_start[m]) / static_cast<double>(s.last - s.first));
      out.emplace_back(mt.name + "AverageUsage", avg);
    } else {
      out.emplace_back("Device" + mt.name + "PeakUsage", real_text(total));
      out.emplace_back(mt.name + "Usage", job.empty() || std::isnan(s.job_peak[m])
                                              ? "undefined"
                                              : real_text(s.job_peak[m]));
    }
  }
  return out;
}

}  // namespace kite::startd
