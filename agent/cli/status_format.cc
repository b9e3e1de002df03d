// condor_status's output forms (see status_format.h): which ads each mode shows, in which order,
// with which columns and totals; -af, -format, -l and -json.
#include "agent/cli/status_format.h"

#include <strings.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "agent/cli/status_columns.h"
#include "agent/cli/status_compact.h"
#include "agent/cli/status_totals.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::cli {
namespace {

// Column sets, after condor_status's print formats (condor_status.V6/prettyPrint.cpp).
const ColumnSpec kName{"Name", "Name", -34, true, Render::kPrintf, "%s", "??"};
const ColumnSpec kOpSys{"OpSys", "OpSys", -10, false, Render::kPlain, nullptr, "??"};
const ColumnSpec kArch{"Arch", "Arch", -8, false, Render::kPlain, nullptr, "??"};
const ColumnSpec kLoadAv{"LoadAv", "CondorLoadAvg", 6,   false, Render::kLoadAvg, nullptr,
                         "??",     false,           true};

std::vector<ColumnSpec> slot_columns() {
  return {kName,
          kOpSys,
          kArch,
          {"State", "State", 0, true, Render::kPlain, nullptr, "??"},
          {"Activity", "Activity", -8, false, Render::kActivityOcu, nullptr, "??"},
          kLoadAv,
          {"Mem", "Memory", 6, false, Render::kPrintf, "%6d", "??"},
          {"  ActvtyTime", "EnteredCurrentActivity", 12, false, Render::kActivityTime, nullptr, "-",
           true, true}};
}

std::vector<ColumnSpec> claimed_columns() {
  return {kName,
          kOpSys,
          kArch,
          kLoadAv,
          {"RemoteUser", "RemoteUser", -20, false, Render::kPlain, nullptr, "??"},
          {"ClientMachine", "ClientMachine", -16, false, Render::kPlain, nullptr, "??"}};
}

std::vector<ColumnSpec> server_columns() {
  return {kName,
          kOpSys,
          kArch,
          kLoadAv,
          {"Memory", "Memory", 8, false, Render::kPrintf, "%8d", "??"},
          {"Disk", "Disk", 9, false, Render::kPrintf, "%9d", "??"},
          {"Mips", "Mips", 7, false, Render::kPrintf, "%7d", "??"},
          {"KFlops", "KFlops", 9, false, Render::kPrintf, "%9d", "??"}};
}

std::vector<ColumnSpec> state_columns() {
  return {kName,
          {"Cpu", "Cpus", 0, true, Render::kPlain, nullptr, "??"},
          {" Mem", "Memory", 5, false, Render::kPlain, nullptr, "??"},
          kLoadAv,
          {"  KbdIdle", "KeyboardIdle", 12, false, Render::kDuration, nullptr, "??", false, true},
          {"State", "State", -7, false, Render::kPlain, nullptr, "??"},
          {"  StateTime", "EnteredCurrentState", 12, false, Render::kElapsed, nullptr, "??", false,
           true},
          {"Activ", "Activity", 0, true, Render::kPlain, nullptr, "??"},
          {"  ActvtyTime", "EnteredCurrentActivity", 12, false, Render::kElapsed, nullptr, "-",
           false, true}};
}

std::vector<ColumnSpec> compact_columns() {
  return {{"Machine", "Machine", 0, true, Render::kPlain, nullptr, ""},
          {"Platform", "OpSys", 0, true, Render::kPlatform, nullptr, ""},
          {"Slot", "NumDynamicSlots", 0, true, Render::kPrintf, "%4d", " "},
          {"s", "SlotType", 0, true, Render::kSlotTag, nullptr, "", true},
          {"Cpus", "TotalSlotCpus", 0, true, Render::kPrintf, "%4d", ""},
          {"Gpus", "TotalSlotGpus", 0, true, Render::kPrintf, "%4d", ""},
          {" TotalGb", "TotalSlotMemory/1024.0", 0, true, Render::kPrintf, "%8.2f", ""},
          {"FreCpu", "Cpus", 0, true, Render::kPrintf, "%6d", ""},
          {" FreeGb ", "Memory/1024.0", 0, true, Render::kPrintf, "%8.2f", ""},
          {"CpuLoad", "TotalLoadAvg*1.0/TotalCpus", 0, true, Render::kPrintf, "%7.2f", ""},
          {"ST", "Activity", 2, true, Render::kActivityCode, nullptr, ""},
          {"Jobs/Min", "RecentJobStarts/20.0", 0, true, Render::kPrintf, "%8.2f", "_"},
          {"MaxSlotGb", "Max(ChildMemory)/1024.0", 0, true, Render::kPrintf, "%9.2f", "*"}};
}

std::vector<ColumnSpec> absent_columns() {
  return {
      kName,
      kOpSys,
      kArch,
      {"Went Absent", "LastHeardFrom", -11, false, Render::kDate, nullptr, "??"},
      {"Will Forget", "LastHeardFrom + ClassAdLifetime", -11, false, Render::kDate, nullptr, ""}};
}

std::vector<ColumnSpec> offline_columns() {
  return {kName,
          {"Offline Universes", "join(\", \", OfflineUniverses)", -42, false, Render::kPlain,
           nullptr, "  "}};
}

std::vector<ColumnSpec> schedd_columns() {
  return {{"Name", "Name", 0, true, Render::kPlain, nullptr, ""},
          {"Machine", "Machine", -12, true, Render::kPlain, nullptr, ""},
          {"RunningJobs", "TotalRunningJobs", 0, true, Render::kPrintf, "%11d", ""},
          {"  IdleJobs", "TotalIdleJobs", 0, true, Render::kPrintf, "%10d", ""},
          {"  HeldJobs", "TotalHeldJobs", 0, true, Render::kPrintf, "%10d", ""}};
}

std::vector<ColumnSpec> schedd_run_columns() {
  return {{"Name", "Name", 0, true, Render::kPlain, nullptr, ""},
          {"TotalJobs", "TotalJobAds", 0, true, Render::kPrintf, "%9d", ""},
          {"Shadows", "ShadowsRunning", 0, true, Render::kPrintf, "%7d", ""},
          {"ActiveDAGs", "TotalSchedulerJobsRunning", 0, true, Render::kPrintf, "%10d", ""},
          {"IdleDAGs", "TotalSchedulerJobsIdle", 0, true, Render::kPrintf, "%8d", ""},
          {"RcntDone", "RecentJobsCompleted", 0, true, Render::kPrintf, "%8d", ""},
          {"RcntStart", "RecentJobsStarted", 0, true, Render::kPrintf, "%9d", ""}};
}

std::vector<ColumnSpec> submitter_columns() {
  return {{"Name", "Name", 0, true, Render::kPlain, nullptr, ""},
          {"Machine", "Machine", -12, true, Render::kPlain, nullptr, ""},
          {"RunningJobs", "RunningJobs", 0, true, Render::kPrintf, "%11d", ""},
          {"  IdleJobs", "IdleJobs", 0, true, Render::kPrintf, "%10d", ""},
          {"  HeldJobs", "HeldJobs", 0, true, Render::kPrintf, "%10d", ""}};
}

// -any: every ad by its type and name.
std::vector<ColumnSpec> any_columns() {
  return {{"MyType", "MyType", -18, true, Render::kPlain, nullptr, ""},
          {"TargetType", "TargetType", -18, true, Render::kPlain, nullptr, "None"},
          {"Name", "Name", 0, true, Render::kPlain, nullptr, ""}};
}

std::vector<ColumnSpec> negotiator_columns() {
  return {{"Name", "Name", 0, true, Render::kPlain, nullptr, ""},
          {"LastCycleEnd", "LastNegotiationCycleEnd0", 12, false, Render::kDate, nullptr, ""},
          {"(Sec)", "LastNegotiationCycleDuration0", 0, true, Render::kPrintf, "%5d", ""},
          {"  Slots", "LastNegotiationCycleCandidateSlots0", 0, true, Render::kPrintf, "%7d", ""},
          {"Submitrs", "LastNegotiationCycleActiveSubmitterCount0", 0, true, Render::kPrintf, "%8d",
           ""},
          {"Schedds", "LastNegotiationCycleNumSchedulers0", 0, true, Render::kPrintf, "%7d", ""},
          {"   Jobs", "LastNegotiationCycleNumIdleJobs0", 0, true, Render::kPrintf, "%7d", ""},
          {"Matches", "LastNegotiationCycleMatches0", 0, true, Render::kPrintf, "%7d", ""},
          {"Rejections", "LastNegotiationCycleRejections0", 0, true, Render::kPrintf, "%10d", ""}};
}

std::vector<ColumnSpec> collector_columns() {
  return {{"Name", "Name", 0, true, Render::kPlain, nullptr, ""},
          {"Machine", "Machine", -18, true, Render::kPlain, nullptr, ""},
          {"RunningJobs", "RunningJobs", 0, true, Render::kPrintf, "%11d", ""},
          {"  IdleJobs", "IdleJobs", 0, true, Render::kPrintf, "%10d", ""},
          {"HostsTotal", "HostsTotal", 0, true, Render::kPrintf, "%10d", ""}};
}

bool is_slot_mode(StatusMode m) {
  return m == StatusMode::kSlots || m == StatusMode::kClaimed || m == StatusMode::kServer ||
         m == StatusMode::kState || m == StatusMode::kAvail || m == StatusMode::kAbsent ||
         m == StatusMode::kOffline;
}

TotalsStyle totals_style(StatusMode m) {
  switch (m) {
    case StatusMode::kSlots:
    case StatusMode::kAvail:
    case StatusMode::kAbsent:
    case StatusMode::kOffline: return TotalsStyle::kSlots;
    case StatusMode::kClaimed: return TotalsStyle::kRun;
    case StatusMode::kServer: return TotalsStyle::kServer;
    case StatusMode::kState: return TotalsStyle::kState;
    case StatusMode::kSchedd: return TotalsStyle::kSchedd;
    case StatusMode::kSubmitters: return TotalsStyle::kSubmitter;
    default: return TotalsStyle::kNone;
  }
}

std::vector<ColumnSpec> columns_for(const StatusOptions& o) {
  switch (o.mode) {
    case StatusMode::kClaimed: return claimed_columns();
    case StatusMode::kServer: return server_columns();
    case StatusMode::kState: return state_columns();
    case StatusMode::kAbsent: return absent_columns();
    case StatusMode::kOffline: return offline_columns();
    case StatusMode::kSchedd: return schedd_columns();
    case StatusMode::kScheddRun: return schedd_run_columns();
    case StatusMode::kSubmitters: return submitter_columns();
    case StatusMode::kNegotiator: return negotiator_columns();
    case StatusMode::kCollector: return collector_columns();
    case StatusMode::kAny: return any_columns();
    default: return o.compact ? compact_columns() : slot_columns();
  }
}

std::string quote(const std::string& s) {
  std::string out;
  classad::unparse_string(out, s);
  return out;
}

// One ad's value of one sort key, with what the comparison needs worked out once per ad rather
// than once per comparison.
struct SortKey {
  bool number = false, exceptional = false;
  double x = 0;
  std::string text;  // plain_text of the value (compared when not both numbers)
};

SortKey sort_key(const classad::Value& v) {
  SortKey k;
  k.number = v.is_number() && v.to_number(k.x);
  k.exceptional = v.is_exceptional();
  k.text = plain_text(v);
  return k;
}

// Sort key comparison: numbers numerically, strings case-insensitively, undefined first.
int compare_keys(const SortKey& a, const SortKey& b) {
  if (a.number && b.number) return a.x < b.x ? -1 : a.x > b.x ? 1 : 0;
  if (a.exceptional != b.exceptional) return a.exceptional ? -1 : 1;
  int c = strcasecmp(a.text.c_str(), b.text.c_str());
  return c ? c : a.text.compare(b.text);
}

const char kCompactAct[] = "ibrvsek";

// The two-letter code of a partitionable slot in -compact: its own, rolled up with its
// children's (ChildState/ChildActivity), as condor_status does.
std::string rolled_up_code(const classad::ClassAd& ad, const std::string& own) {
  auto consensus = [&](const char* attr, bool state) {
    const classad::Expr* e = ad.lookup(attr);
    classad::Value v = e ? ad.evaluate_expr(e) : classad::Value();
    char code = 0;  // 0: none yet; '#': mixed
    if (!v.is_list()) return code;
    for (const classad::Expr* item : v.as_list()->items) {
      if (item->kind != classad::ExprKind::kLiteral) continue;
      const classad::Value& iv = classad::as_literal(item)->value;
      if (!iv.is_string()) continue;
      std::string s(iv.as_string());
      std::string two = state ? activity_code(s, "") : activity_code("", s);
      char c = state ? two[0] : two[1];
      if (c == ' ') continue;
      if (code == 0) {
        code = c;
      } else if (code != c) {
        if (state ? c == 'P' : c == 'v') return c;
        code = '#';
      }
    }
    return code;
  };
  char cs = consensus("ChildState", true), ca = consensus("ChildActivity", false);
  char bsc = cs ? cs : ' ', bac = ca ? ca : ' ';
  char asc = own[0], aac = own[1];
  double cpus = 0;
  ad.evaluate_real("Cpus", cpus);
  if (asc == 'U' && aac == 'i' && cpus < 0.1) {
    asc = bsc;
    aac = bac;
  } else if (asc == 'D' && bsc == 'C') {
    asc = bsc;
  }
  if (bsc == 'P') asc = bsc;
  if (bac == 'v') aac = bac;
  if (cs && asc != bsc) asc = '*';
  if (ca && aac != bac) aac = '*';
  (void)kCompactAct;
  return std::string{asc, aac};
}

void print_af(const StatusOptions& o, const std::vector<const classad::ClassAd*>& ads,
              const std::vector<classad::ExprPtr>& exprs, std::string* out) {
  bool quoted = o.af_opts.find('V') != std::string::npos;
  bool label = o.af_opts.find('l') != std::string::npos;
  bool headings = o.af_opts.find('h') != std::string::npos;
  bool raw = o.af_opts.find_first_of("ro") != std::string::npos;
  std::string sep = " ", row_end = "\n";
  if (o.af_opts.find(',') != std::string::npos) sep = ", ";
  if (o.af_opts.find('t') != std::string::npos) sep = "\t";
  if (o.af_opts.find('n') != std::string::npos) sep = "\n";
  std::vector<std::vector<std::string>> rows;
  for (const classad::ClassAd* ad : ads) {
    std::vector<std::string> row;
    for (size_t i = 0; i < exprs.size(); ++i) {
      std::string text;
      const classad::Expr* bound = raw ? ad->lookup(o.af[i]) : nullptr;
      if (bound) {
        classad::unparse_expr(text, bound);  // :r prints the expression, not its value
      } else {
        classad::Value v = ad->evaluate_expr(exprs[i].get());
        text = quoted || !v.is_string() ? classad::to_string(v) : plain_text(v);
      }
      if (label) text = o.af[i] + " = " + text;
      row.push_back(std::move(text));
    }
    rows.push_back(std::move(row));
  }
  std::vector<size_t> widths(exprs.size(), 0);
  if (headings) {
    for (size_t i = 0; i < exprs.size(); ++i) {
      widths[i] = o.af[i].size();
      for (const auto& r : rows) widths[i] = std::max(widths[i], r[i].size());
    }
  }
  auto emit = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size(); ++i) {
      if (i) *out += sep;
      *out += r[i];
      if (r[i].size() < widths[i]) out->append(widths[i] - r[i].size(), ' ');
    }
    *out += row_end;
  };
  if (headings && !rows.empty()) emit(o.af);
  for (const auto& r : rows) emit(r);
}

// `-l` prints values as condor_status does, in old ClassAd syntax (reals as %.16G, with ".0"
// on whole numbers; =?= and =!= as written).
void append_long_value(std::string* out, const classad::Expr* e) {
  classad::unparse_expr_old(*out, e);
}

std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char c = s[++i];
      out += c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

const char* status_mode_ad_type(StatusMode mode) {
  switch (mode) {
    case StatusMode::kSchedd:
    case StatusMode::kScheddRun: return "Scheduler";
    case StatusMode::kSubmitters: return "Submitter";
    case StatusMode::kNegotiator: return "Negotiator";
    case StatusMode::kCollector: return "Collector";
    case StatusMode::kAny: return "";
    default: return "Machine";
  }
}

std::string status_mode_constraint(const StatusOptions& o) {
  std::vector<std::string> parts;
  switch (o.mode) {
    case StatusMode::kAvail:
      parts.push_back("State == \"Unclaimed\" && Cpus > 0 && Memory > 0");
      break;
    case StatusMode::kClaimed: parts.push_back("State == \"Claimed\""); break;
    case StatusMode::kAbsent: parts.push_back("Absent"); break;
    case StatusMode::kOffline: parts.push_back("size(OfflineUniverses) != 0"); break;
    case StatusMode::kScheddRun:
      parts.push_back("(ShadowsRunning+TotalSchedulerJobsRunning) > 0");
      break;
    default: break;
  }
  if (o.compact && (o.mode == StatusMode::kSlots || o.mode == StatusMode::kAvail)) {
    parts.push_back("PartitionableSlot =?= true || DynamicSlot =!= true");
  }
  if (!o.names.empty()) {
    std::string any;
    for (const std::string& n : o.names) {
      if (!any.empty()) any += " || ";
      // With -claimed a name is the user running the jobs, as in condor_status.
      any += o.mode == StatusMode::kClaimed ? "RemoteUser == " + quote(n)
                                            : "Name == " + quote(n) + " || Machine == " + quote(n);
    }
    parts.push_back(any);
  }
  if (!o.constraint.empty()) parts.push_back(o.constraint);
  std::string all;
  for (const std::string& p : parts) {
    if (!all.empty()) all += " && ";
    all += "(" + p + ")";
  }
  return all;
}

bool status_counts_only(const StatusOptions& o) {
  bool compact_table = o.compact && is_slot_mode(o.mode) && o.mode != StatusMode::kClaimed &&
                       o.mode != StatusMode::kServer && o.mode != StatusMode::kState;
  // -claimed's totals add up reals (LoadAvg), whose sum depends on the order.
  return o.total_only && !o.json && !o.longform && !o.have_af && o.formats.empty() &&
         !compact_table && totals_style(o.mode) != TotalsStyle::kRun;
}

std::vector<std::string> status_needed_attrs(const StatusOptions& o) {
  std::vector<std::string> attrs;
  if (status_counts_only(o)) {
    attrs = Totals::attrs(totals_style(o.mode));
  } else if ((o.mode == StatusMode::kSlots || o.mode == StatusMode::kAvail) && !o.compact &&
             !o.total_only && o.sort.empty() && !o.json && !o.longform && !o.have_af &&
             o.formats.empty()) {
    // slot_columns() and what their renderers read, the default order (Machine, Name) and the
    // totals (Arch, OpSys, State).
    attrs = {"Name",          "Machine",      "OpSys",         "Arch",   "State",
             "Activity",      "OCU",          "CondorLoadAvg", "Memory", "EnteredCurrentActivity",
             "MyCurrentTime", "LastHeardFrom"};
  } else {
    return attrs;
  }
  attrs.push_back("MyType");  // which ads a mode shows
  return attrs;
}

bool render_status(const StatusOptions& o, const std::vector<classad::AdPtr>& ads, std::string* out,
                   std::string* err) {
  return render_status(o, ads, {}, out, err);
}

bool render_status(const StatusOptions& o, const std::vector<classad::AdPtr>& ads,
                   const std::vector<uint64_t>& counts, std::string* out, std::string* err) {
  // Totals alone need neither the order nor the table's cells.
  bool counted = status_counts_only(o);
  // Which ads: the mode's type, then its constraint.
  std::string constraint = o.filtered ? std::string() : status_mode_constraint(o);
  classad::ExprPtr filter;
  if (!constraint.empty()) {
    classad::ParseError perr;
    filter = classad::parse_expr(constraint, &perr);
    if (!filter) {
      *err = "bad constraint '" + constraint + "': " + perr.to_string();
      return false;
    }
  }
  const char* type = status_mode_ad_type(o.mode);
  std::vector<const classad::ClassAd*> shown;
  std::vector<uint64_t> shown_counts;
  for (size_t i = 0; i < ads.size(); ++i) {
    const classad::AdPtr& ad = ads[i];
    std::string my_type;
    if (!ad->evaluate_string("MyType", my_type)) my_type = "Machine";
    if (*type && strcasecmp(my_type.c_str(), type) != 0) continue;
    if (filter) {
      classad::Value v = ad->evaluate_expr(filter.get());
      if (!v.is_boolean() || !v.as_boolean()) continue;
    }
    shown.push_back(ad.get());
    shown_counts.push_back(i < counts.size() ? counts[i] : 1);
  }
  // Order: -sort keys, else Machine then Name.
  std::vector<std::string> keys = o.sort;
  if (keys.empty()) keys = {"Machine", "Name"};
  // -compact groups a machine's slots by type: Machine:SlotTypeId leads, as in condor_status.
  if (o.compact && is_slot_mode(o.mode))
    keys.insert(keys.begin(), "join(\":\", Machine, SlotTypeId)");
  std::vector<classad::ExprPtr> key_exprs;
  for (const std::string& k : keys) {
    classad::ParseError perr;
    classad::ExprPtr e = classad::parse_expr(k, &perr);
    if (!e) {
      *err = "bad sort expression '" + k + "': " + perr.to_string();
      return false;
    }
    key_exprs.push_back(std::move(e));
  }
  if (!counted) {
    // Each ad's keys are evaluated once, then the ads are ordered by them (stable, as before).
    std::vector<std::vector<SortKey>> ad_keys(shown.size());
    std::vector<size_t> order(shown.size());
    for (size_t i = 0; i < shown.size(); ++i) {
      order[i] = i;
      ad_keys[i].reserve(key_exprs.size());
      for (const auto& e : key_exprs)
        ad_keys[i].push_back(sort_key(shown[i]->evaluate_expr(e.get())));
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      for (size_t k = 0; k < key_exprs.size(); ++k) {
        int c = compare_keys(ad_keys[a][k], ad_keys[b][k]);
        if (c) return c < 0;
      }
      return false;
    });
    std::vector<const classad::ClassAd*> sorted(shown.size());
    for (size_t i = 0; i < order.size(); ++i) sorted[i] = shown[order[i]];
    shown.swap(sorted);
  }

  if (o.json) {
    if (shown.empty()) return true;
    // condor_status writes "[" or "," on a line of its own before each ad: `}\n,\n{`.
    for (size_t i = 0; i < shown.size(); ++i) {
      *out += i ? ",\n" : "[\n";
      classad::classad_append_json(*out, *shown[i], true);
      *out += '\n';
    }
    *out += "]\n";
    return true;
  }
  if (o.longform) {
    for (const classad::ClassAd* ad : shown) {
      std::vector<const classad::ClassAd::Entry*> entries;
      for (const auto& e : ad->entries()) entries.push_back(&e);
      std::sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) {
        std::string x(a->name->view()), y(b->name->view());
        return strcasecmp(x.c_str(), y.c_str()) < 0;
      });
      for (const auto* e : entries) {
        classad::unparse_attr_name(*out, e->name->view());
        *out += " = ";
        append_long_value(out, e->expr);
        *out += '\n';
      }
      *out += '\n';
    }
    return true;
  }
  if (o.have_af) {
    std::vector<classad::ExprPtr> exprs;
    for (const std::string& a : o.af) {
      classad::ParseError perr;
      classad::ExprPtr e = classad::parse_expr(a, &perr);
      if (!e) {
        *err = "bad -af expression '" + a + "': " + perr.to_string();
        return false;
      }
      exprs.push_back(std::move(e));
    }
    print_af(o, shown, exprs, out);
    return true;
  }
  if (!o.formats.empty()) {
    for (const classad::ClassAd* ad : shown) {
      for (const FormatItem& f : o.formats) {
        classad::ParseError perr;
        classad::ExprPtr e = classad::parse_expr(f.attr, &perr);
        if (!e) {
          *err = "bad -format expression '" + f.attr + "': " + perr.to_string();
          return false;
        }
        std::string text;
        if (printf_value(unescape(f.format).c_str(), ad->evaluate_expr(e.get()), &text))
          *out += text;
      }
    }
    return true;
  }

  // The table and its totals; nothing at all when no ad matched.
  if (shown.empty()) return true;
  Table table(columns_for(o));
  if (!table.ok()) {
    *err = table.error();
    return false;
  }
  Totals totals(totals_style(o.mode));
  if (counted) {
    for (size_t i = 0; i < shown.size(); ++i) totals.add(*shown[i], "", false, shown_counts[i]);
    if (totals.enabled()) {
      *out += '\n';
      totals.print(out);
    }
    return true;
  }
  bool compact = o.compact && is_slot_mode(o.mode) && o.mode != StatusMode::kClaimed &&
                 o.mode != StatusMode::kServer && o.mode != StatusMode::kState;
  for (const classad::ClassAd* ad : shown) {
    table.add_row(*ad);
    if (compact) {
      std::string& st = table.last_row()[10];
      bool pslot = false;
      if (ad->evaluate_bool("PartitionableSlot", pslot) && pslot) st = rolled_up_code(*ad, st);
      totals.add(*ad, table.last_row()[1], true);
    } else {
      totals.add(*ad, "", false);
    }
  }
  if (compact) fold_compact_rows(shown, &table);
  if (!o.total_only) table.print(out);
  if (totals.enabled()) {
    *out += '\n';
    totals.print(out);
  }
  return true;
}

}  // namespace kite::cli
