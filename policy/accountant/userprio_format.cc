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

namespace {

// One table row's values (a submitter's, or a group's in the hierarchical layout).
struct Row {
  std::string label;  // the name, indented under its group in the hierarchical layout
  double eup = 0, rup = 0, factor = 0;
  double in_use = 0, usage = 0;  // weighted slots now, weighted seconds
  int64_t begin = 0, last = 0;
  double floor = 0, ceiling = -1;
  bool now = false;  // in use, or used since the last update: "<now>"
};

Row row_of(const Accountant& acc, const Record& r, std::string label) {
  Row row;
  row.label = std::move(label);
  row.eup = acc.effective_priority(r.name);
  row.rup = r.priority;
  row.factor = acc.factor(r.name);
  row.in_use = r.weighted_in_use;
  row.usage = r.weighted_accumulated;
  row.begin = r.begin_usage;
  row.last = r.last_usage;
  row.floor = r.floor;
  row.ceiling = r.ceiling;
  row.now = r.weighted_in_use > 0 || r.resources_used > 0 || acc.last_update() - r.last_usage <= 0;
  return row;
}

void append_row(std::string& out, const Accountant& acc, const UserprioView& view, const Row& r) {
  const bool all = view.table == UserprioTable::kAll;
  const bool usage_only = view.table == UserprioTable::kUsage;
  appendf(out, "%-24s", r.label.c_str());
  if (!usage_only) {
    appendf(out, " %12.2f", r.eup);
    if (all) appendf(out, " %8.2f", r.rup);
    appendf(out, " %9.2f", r.factor);
  }
  in_use_cell(out, r.in_use);
  appendf(out, " %12.2f", r.usage / 3600);
  if (all || usage_only) {
    out += ' ' + date_time(r.begin, view.utc_offset);
    out += ' ' + date_time(r.last, view.utc_offset);
  }
  if (!usage_only) {
    appendf(out, " %10s", r.now ? "<now>" : userprio_duration(acc.last_update() - r.last).c_str());
    limit_cell(out, r.floor, r.floor > 0);
    limit_cell(out, r.ceiling, r.ceiling >= 0);
  }
  out += '\n';
}

// The configured group a submitter's name belongs to, "<none>" for none.
std::string group_of_user(const fairshare::GroupSettings& groups, const std::string& name) {
  return fairshare::group_of(groups, std::string_view(name).substr(0, name.rfind('@')));
}

}  // namespace

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
  const bool hierarchical = view.groups && !view.groups->groups.empty() && !view.flat;
  std::string out = last_update_line(acc, view);
  if (hierarchical) {
    // The name column's heading says it holds groups with their users beneath.
    std::string h = header;
    h.replace(0, 5, "Group");
    h.replace(h.find('\n') + 1, 11, "  User Name");
    out += h;
  } else {
    out += header;
  }
  out += rule;
  const bool all = view.table == UserprioTable::kAll;
  const bool usage_only = view.table == UserprioTable::kUsage;
  double total_in_use = 0, total_usage = 0;
  for (const Record* r : rows) {
    total_in_use += r->weighted_in_use;
    total_usage += r->weighted_accumulated;
  }
  if (!hierarchical) {
    for (const Record* r : rows) append_row(out, acc, view, row_of(acc, *r, r->name));
  } else {
    // Groups parent first (a dotted name after its parent), "<none>" last.
    std::vector<std::string> names;
    for (const fairshare::GroupConfig& g : view.groups->groups) names.push_back(g.name);
    std::stable_sort(names.begin(), names.end());
    names.push_back(std::string(fairshare::kNoGroup));
    for (const std::string& g : names) {
      std::vector<const Record*> members;
      for (const Record* r : rows)
        if (group_of_user(*view.groups, r->name) == g) members.push_back(r);
      const Record* own = acc.find(g);
      Record empty;
      empty.name = g;
      Row grow = row_of(acc, own ? *own : empty, g);
      if (view.group_rollup) {
        // The group's subtree: its own users and its subgroups' users.
        grow.in_use = 0;
        grow.usage = 0;
        for (const Record* r : rows) {
          std::string ug = group_of_user(*view.groups, r->name);
          bool in_subtree =
              g == fairshare::kNoGroup || ug == g ||
              (ug.size() > g.size() && ug.compare(0, g.size(), g) == 0 && ug[g.size()] == '.');
          if (!in_subtree) continue;
          grow.in_use += r->weighted_in_use;
          grow.usage += r->weighted_accumulated;
        }
      }
      append_row(out, acc, view, grow);
      for (const Record* r : members) append_row(out, acc, view, row_of(acc, *r, "  " + r->name));
    }
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
    std::vector<classad::ClassAd::Entry> entries = ad->sorted_entries();
    // condor_userprio -long sorts plainly, case-insensitively (not shorter names first).
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      std::string_view x = a.name->view(), y = b.name->view();
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        int cx = std::tolower(static_cast<unsigned char>(x[i]));
        int cy = std::tolower(static_cast<unsigned char>(y[i]));
        if (cx != cy) return cx < cy;
      }
      return x.size() < y.size();
    });
    for (const classad::ClassAd::Entry& e : entries) {
      std::string_view name = e.name->view();
      if (name.rfind("Kite", 0) == 0) continue;  // storage-only state
      out.append(name);
      out += " = ";
      classad::unparse_expr_old(out, e.expr);
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
