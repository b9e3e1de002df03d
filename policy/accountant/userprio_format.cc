// condor_userprio's layouts: fixed-width columns, totals, -long and -af.
#include "policy/accountant/userprio_format.h"

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <ctime>

#include "policy/classad/unparse.h"

namespace kite::accountant {
namespace {

void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) out.append(buf, std::min<size_t>(size_t(n), sizeof buf - 1));
}

std::tm broken_down(int64_t t, int32_t offset) {
  std::time_t tt = std::time_t(t + offset);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  return tm;
}

// "11/22/2026 00:47"
std::string date_time(int64_t t, int32_t offset) {
  std::tm tm = broken_down(t, offset);
  std::string out;
  appendf(out, "%02d/%02d/%04d %02d:%02d", tm.tm_mon + 1, tm.tm_mday, tm.tm_year + 1900, tm.tm_hour,
          tm.tm_min);
  return out;
}

std::string last_update_line(const Accountant& acc, const UserprioView& view) {
  std::tm tm = broken_down(acc.last_update(), view.utc_offset);
  std::string out;
  appendf(out, "Last Priority Update: %02d/%02d %02d:%02d\n", tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
          tm.tm_min);
  return out;
}

void in_use_cell(std::string& out, double w) {
  if (w == double(int64_t(w))) {
    appendf(out, " %6lld", static_cast<long long>(w));
  } else {
    appendf(out, " %6.2f", w);
  }
}

void limit_cell(std::string& out, double v, bool set) {
  if (set) {
    appendf(out, " %9.2f", v);
  } else {
    out += "          ";
  }
}

constexpr const char* kDefaultHeader =
    "                          Effective   Priority  Wghted Total Usage  Time Since Submitter "
    "Submitter\n"
    "User Name                  Priority    Factor   In Use (wghted-hrs) Last Usage   Floor    "
    "Ceiling \n";
constexpr const char* kDefaultRule =
    "------------------------ ------------ --------- ------ ------------ ---------- --------- "
    "---------\n";
constexpr const char* kAllHeader =
    "                          Effective     Real   Priority  Wghted Total Usage       Usage   "
    "          Last       Time Since Submitter Submitter\n"
    "User Name                  Priority   Priority  Factor   In Use (wghted-hrs)    Start Time "
    "      Usage Time    Last Usage   Floor    Ceiling \n";
constexpr const char* kAllRule =
    "------------------------ ------------ -------- --------- ------ ------------ "
    "---------------- ---------------- ---------- --------- ---------\n";
constexpr const char* kUsageHeader =
    "                         Wghted Total Usage       Usage             Last      \n"
    "User Name                In Use (wghted-hrs)    Start Time       Usage Time   \n";
constexpr const char* kUsageRule =
    "------------------------ ------ ------------ ---------------- ----------------\n";
constexpr const char* kQuotasHeader =
    "Group                    Effective  Config     Use    Subtree  Requested\n"
    "Name                       Quota     Quota   Surplus   Quota   Resources\n";
constexpr const char* kQuotasRule =
    "------------------------ --------- --------- ------- --------- ----------\n";

}  // namespace

std::string userprio_duration(int64_t secs) {
  if (secs < 0) secs = 0;
  std::string out;
  appendf(out, "%lld+%02lld:%02lld", static_cast<long long>(secs / 86400),
          static_cast<long long>(secs % 86400 / 3600), static_cast<long long>(secs % 3600 / 60));
  return out;
}

std::string render_userprio_table(const Accountant& acc, const UserprioView& view) {
  const int64_t active_from = view.now - view.active_window;
  std::vector<const Record*> rows;
  for (const Record& r : acc.records()) {
    if (r.is_group || r.name == fairshare::kNoGroup) continue;
    bool active = r.weighted_in_use > 0 || r.resources_used > 0 || r.last_usage >= active_from;
    bool named = view.users.empty() ||
                 std::find(view.users.begin(), view.users.end(), r.name) != view.users.end();
    if ((active || view.all_users) && named) rows.push_back(&r);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const Record* a, const Record* b) {
    double ea = acc.effective_priority(a->name), eb = acc.effective_priority(b->name);
    if (ea != eb) return ea < eb;
    return a->name < b->name;
  });
  const char* header = kDefaultHeader;
  const char* rule = kDefaultRule;
  if (view.table == UserprioTable::kAll) {
    header = kAllHeader;
    rule = kAllRule;
  } else if (view.table == UserprioTable::kUsage) {
    header = kUsageHeader;
    rule = kUsageRule;
  }
  std::string out = last_update_line(acc, view);
  out += header;
  out += rule;
  const bool all = view.table == UserprioTable::kAll;
  const bool usage_only = view.table == UserprioTable::kUsage;
  double total_in_use = 0, total_usage = 0;
  for (const Record* r : rows) {
    total_in_use += r->weighted_in_use;
    total_usage += r->weighted_accumulated;
    appendf(out, "%-24s", r->name.c_str());
    if (!usage_only) {
      appendf(out, " %12.2f", acc.effective_priority(r->name));
      if (all) appendf(out, " %8.2f", r->priority);
      appendf(out, " %9.2f", acc.factor(r->name));
    }
    in_use_cell(out, r->weighted_in_use);
    appendf(out, " %12.2f", r->weighted_accumulated / 3600);
    if (all || usage_only) {
      out += ' ' + date_time(r->begin_usage, view.utc_offset);
      out += ' ' + date_time(r->last_usage, view.utc_offset);
    }
    if (!usage_only) {
      // In use, or used since the last update: "<now>".
      int64_t since = acc.last_update() - r->last_usage;
      bool now = r->weighted_in_use > 0 || r->resources_used > 0 || since <= 0;
      appendf(out, " %10s", now ? "<now>" : userprio_duration(since).c_str());
      limit_cell(out, r->floor, r->floor > 0);
      limit_cell(out, r->ceiling, r->ceiling >= 0);
    }
    out += '\n';
  }
  out += rule;
  std::string users = "Number of users: " + std::to_string(rows.size());
  appendf(out, "%-24s", users.c_str());
  if (!usage_only) out += all ? std::string(1 + 12 + 1 + 8 + 1 + 9, ' ') : std::string(23, ' ');
  in_use_cell(out, total_in_use);
  appendf(out, " %12.2f", total_usage / 3600);
  if (all || usage_only)
    out += std::string(17, ' ') + ' ' + date_time(active_from, view.utc_offset);
  if (!usage_only) {
    // How far back the listing reaches, counted from the last priority update.
    appendf(out, " %10s", userprio_duration(acc.last_update() - active_from).c_str());
    out += std::string(20, ' ');
  }
  out += '\n';
  return out;
}

std::string render_userprio_quotas(const Accountant& acc,
                                   const std::vector<fairshare::GroupQuota>& quotas,
                                   const UserprioView& view) {
  std::string out = last_update_line(acc, view);
  out += kQuotasHeader;
  out += kQuotasRule;
  size_t n = 0;
  for (const fairshare::GroupQuota& g : quotas) {
    if (g.name == fairshare::kNoGroup) continue;
    ++n;
    appendf(out, "%-24s %9.2f %9.2f %-7s %9.2f %10.0f\n", g.name.c_str(), g.effective_quota,
            g.config_quota, g.accept_surplus ? "yes" : "no", g.effective_quota,
            g.subtree_requested);
  }
  out += kQuotasRule;
  std::string users = "Number of users: " + std::to_string(n);
  appendf(out, "%-51sByQuota\n", users.c_str());
  return out;
}

std::string render_userprio_long(const std::vector<const classad::ClassAd*>& ads) {
  std::string out;
  for (const classad::ClassAd* ad : ads) {
    std::vector<const classad::ClassAd::Entry*> entries = ad->sorted_entries();
    // condor_userprio -long sorts plainly, case-insensitively (not shorter names first).
    std::stable_sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) {
      std::string_view x = a->name->view(), y = b->name->view();
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        int cx = std::tolower(static_cast<unsigned char>(x[i]));
        int cy = std::tolower(static_cast<unsigned char>(y[i]));
        if (cx != cy) return cx < cy;
      }
      return x.size() < y.size();
    });
    for (const classad::ClassAd::Entry* e : entries) {
      std::string_view name = e->name->view();
      if (name.rfind("Kite", 0) == 0) continue;  // storage-only state
      out.append(name);
      out += " = ";
      classad::unparse_expr_old(out, e->expr);
      out += '\n';
    }
    out += '\n';
  }
  return out;
}

std::string render_userprio_af(const std::vector<const classad::ClassAd*>& ads,
                               const std::vector<std::string>& attrs, bool header) {
  std::string out;
  if (header) {
    for (size_t i = 0; i < attrs.size(); ++i) out += (i ? " " : "") + attrs[i];
    out += '\n';
  }
  for (const classad::ClassAd* ad : ads) {
    bool group = false;
    ad->evaluate_bool("IsAccountingGroup", group);
    for (size_t i = 0; i < attrs.size(); ++i) {
      std::string value;
      const classad::Expr* e = ad->lookup(attrs[i]);
      std::string s;
      if (!e) {
        value = "undefined";
      } else if (ad->evaluate_string(attrs[i], s)) {
        value = s;
      } else {
        classad::unparse_expr_old(value, e);
      }
      if (i) out += ' ';
      if (header && i > 0) {
        appendf(out, "%-21s", value.c_str());
      } else if (header && group) {
        appendf(out, "%-24s", value.c_str());
      } else {
        out += value;
      }
    }
    out += '\n';
  }
  return out;
}

}  // namespace kite::accountant
