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
#include "agent/cli/status_xml.h"
#include "agent/queue/private_attrs.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"

namespace kite::cli {
namespace {

// Column sets, after condor_status's print formats (condor_status.V6/prettyPrint.cpp).
// Name is at least 34 wide and grows with the longest name (condor_status gives the slot
// tables' Name column an automatic width: prettyPrint.cpp, ppAdjustProjection).
const ColumnSpec kName{"Name", "Name", -34, true, Render::kString, nullptr, "??"};
// -absent and -offline keep it at 34: a longer name pushes the rest of its own row right.
const ColumnSpec kFixedName{"Name", "Name", -34, false, Render::kString, nullptr, "??"};
// A fixed WIDTH without a format prints strings only: another value, or none, prints blank.
const ColumnSpec kOpSys{"OpSys", "OpSys", -10, false, Render::kFixedString, nullptr, "??"};
const ColumnSpec kArch{"Arch", "Arch", -8, false, Render::kFixedString, nullptr, "??"};
const ColumnSpec kLoadAv{"LoadAv", "CondorLoadAvg", 6,   false, Render::kLoadAvg, nullptr,
                         "??",     false,           true};

// `wide` (-wide): the activity time gets its full header and a separating blank.
std::vector<ColumnSpec> slot_columns(bool wide) {
  return {kName,
          kOpSys,
          kArch,
          {"State", "State", 0, true, Render::kPlain, nullptr, "??"},
          {"Activity", "Activity", -8, false, Render::kActivityOcu, nullptr, "??"},
          kLoadAv,
          {"Mem", "Memory", 6, false, Render::kPrintf, "%6d", "??"},
          wide ? ColumnSpec{"ActivityTime", "EnteredCurrentActivity", 12, false,
                            Render::kActivityTime, nullptr, "-", false, true}
               : ColumnSpec{"  ActvtyTime", "EnteredCurrentActivity", 12, false,
                            Render::kActivityTime, nullptr, "-", true, true}};
}

std::vector<ColumnSpec> claimed_columns() {
  return {kName,
          kOpSys,
          kArch,
          kLoadAv,
          {"RemoteUser", "RemoteUser", -20, false, Render::kFixedString, nullptr, "??"},
          {"ClientMachine", "ClientMachine", -16, false, Render::kFixedString, nullptr, "??"}};
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
          {" Mem", "Memory", 5, false, Render::kFixedString, nullptr, "??"},
          kLoadAv,
          {"  KbdIdle", "KeyboardIdle", 12, false, Render::kDuration, nullptr, "??", false, true},
          {"State", "State", -7, false, Render::kFixedString, nullptr, "??"},
          {"  StateTime", "EnteredCurrentState", 12, false, Render::kElapsed, nullptr, "??", false,
           true},
          {"Activ", "Activity", 0, true, Render::kPlain, nullptr, "??"},
          {"  ActvtyTime", "EnteredCurrentActivity", 12, false, Render::kElapsed, nullptr, "-",
           false, true}};
}

// The compact tables (condor_status.V6/prettyPrint.cpp: startdCompact, serverCompact,
// stateCompact and claimedCompact print formats): one row per machine and slot type. The
// default one's Machine column is at least 12 wide; the others' grow from their header.
std::vector<ColumnSpec> compact_lead(int machine_width) {
  return {{"Machine", "Machine", machine_width, true, Render::kPlain, nullptr, ""},
          {"Platform", "OpSys", 0, true, Render::kPlatform, nullptr, ""},
          {"Slot", "NumDynamicSlots", 0, true, Render::kPrintf, "%4d", " "},
          {"s", "SlotType", 0, true, Render::kSlotTag, nullptr, "", true}};
}

const ColumnSpec kCompactCpus{"Cpus", "TotalSlotCpus", 0, true, Render::kPrintf, "%4d", ""};
const ColumnSpec kCompactGpus{"Gpus", "TotalSlotGpus", 0, true, Render::kPrintf, "%4d", ""};
const ColumnSpec kCompactTotalGb{
    " TotalGb", "TotalSlotMemory/1024.0", 0, true, Render::kPrintf, "%8.2f", ""};
const ColumnSpec kCompactCpuLoad{
    "CpuLoad", "TotalLoadAvg*1.0/TotalCpus", 0, true, Render::kPrintf, "%7.2f", ""};
const ColumnSpec kCompactCode{"ST", "Activity", 2, true, Render::kActivityCode, nullptr, ""};
const ColumnSpec kCompactJobsMin{
    "Jobs/Min", "RecentJobStarts/20.0", 0, true, Render::kPrintf, "%8.2f", "_"};

std::vector<ColumnSpec> compact_columns() {
  std::vector<ColumnSpec> c = compact_lead(-12);
  c.insert(c.end(),
           {kCompactCpus,
            kCompactGpus,
            kCompactTotalGb,
            {"FreCpu", "Cpus", 0, true, Render::kPrintf, "%6d", ""},
            {" FreeGb ", "Memory/1024.0", 0, true, Render::kPrintf, "%8.2f", ""},
            kCompactCpuLoad,
            kCompactCode,
            kCompactJobsMin,
            {"MaxSlotGb", "Max(ChildMemory)/1024.0", 0, true, Render::kPrintf, "%9.2f", "*"}});
  return c;
}

std::vector<ColumnSpec> server_compact_columns() {
  std::vector<ColumnSpec> c = compact_lead(0);
  c.insert(c.end(), {kCompactCpus,
                     kCompactGpus,
                     kCompactTotalGb,
                     {" Mips  ", "Mips", 0, true, Render::kPrintf, "%7d", "-"},
                     {" KFlops  ", "KFlops", 0, true, Render::kPrintf, "%9d", "-"},
                     kCompactCpuLoad,
                     kCompactCode,
                     kCompactJobsMin});
  return c;
}

std::vector<ColumnSpec> state_compact_columns() {
  std::vector<ColumnSpec> c = compact_lead(0);
  c.insert(c.end(), {kCompactCpus, kCompactGpus, kCompactTotalGb, kCompactCpuLoad, kCompactCode,
                     kCompactJobsMin});
  return c;
}

// -claimed -compact: the users of a partitionable slot's dynamic slots (a static slot has no
// ChildRemoteUser, so its Users cell is blank).
std::vector<ColumnSpec> claimed_compact_columns() {
  std::vector<ColumnSpec> c = compact_lead(0);
  c.push_back({"Users", "ChildRemoteUser", 0, true, Render::kUnique, nullptr, ""});
  return c;
}

// Which columns of each compact table the folding of static slots touches.
CompactLayout compact_layout(StatusMode m) {
  CompactLayout at;
  switch (m) {
    case StatusMode::kServer:
      at.activity = 10;
      at.job_starts = 11;
      break;
    case StatusMode::kState:
      at.activity = 8;
      at.job_starts = 9;
      break;
    case StatusMode::kClaimed: break;
    default:
      at.free_cpus = 7;
      at.free_mem = 8;
      at.activity = 10;
      at.job_starts = 11;
      at.max_slot = 12;
  }
  return at;
}

std::vector<ColumnSpec> absent_columns() {
  return {kFixedName,
          kOpSys,
          kArch,
          {"Went Absent", "LastHeardFrom", -11, false, Render::kDate, nullptr, "??"},
          {"Will Forget", "LastHeardFrom + (ClassAdLifetime ?: 0)", -11, false, Render::kDate,
           nullptr, ""}};
}

std::vector<ColumnSpec> offline_columns() {
  return {kFixedName,
          {"Offline Universes", "join(\", \", OfflineUniverses)", -42, false, Render::kPlain,
           nullptr, "  "}};
}

// The daemon tables' Name and Machine columns grow from the minimums condor_status gives them
// (15 and 12 for schedds and submitters, 12 for negotiators).
std::vector<ColumnSpec> schedd_columns() {
  return {{"Name", "Name", -15, true, Render::kPlain, nullptr, ""},
          {"Machine", "Machine", -12, true, Render::kPlain, nullptr, ""},
          {"RunningJobs", "TotalRunningJobs", 0, true, Render::kPrintf, "%11d", ""},
          {"  IdleJobs", "TotalIdleJobs", 0, true, Render::kPrintf, "%10d", ""},
          {"  HeldJobs", "TotalHeldJobs", 0, true, Render::kPrintf, "%10d", ""}};
}

std::vector<ColumnSpec> schedd_run_columns() {
  return {{"Name", "Name", -15, true, Render::kPlain, nullptr, ""},
          {"TotalJobs", "TotalJobAds", 0, true, Render::kPrintf, "%9d", ""},
          {"Shadows", "ShadowsRunning", 0, true, Render::kPrintf, "%7d", ""},
          {"ActiveDAGs", "TotalSchedulerJobsRunning", 0, true, Render::kPrintf, "%10d", ""},
          {"IdleDAGs", "TotalSchedulerJobsIdle", 0, true, Render::kPrintf, "%8d", ""},
          {"RcntDone", "RecentJobsCompleted", 0, true, Render::kPrintf, "%8d", ""},
          {"RcntStart", "RecentJobsStarted", 0, true, Render::kPrintf, "%9d", ""}};
}

std::vector<ColumnSpec> submitter_columns() {
  return {{"Name", "Name", -15, true, Render::kPlain, nullptr, ""},
          {"Machine", "Machine", -12, true, Render::kPlain, nullptr, ""},
          {"RunningJobs", "RunningJobs", 0, true, Render::kPrintf, "%11d", ""},
          {"  IdleJobs", "IdleJobs", 0, true, Render::kPrintf, "%10d", ""},
          {"  HeldJobs", "HeldJobs", 0, true, Render::kPrintf, "%10d", ""}};
}

// -any: every ad by its type and name.
std::vector<ColumnSpec> any_columns() {
  return {{"MyType", "MyType ?: \"None\"", -18, false, Render::kFixedString, nullptr, ""},
          {"TargetType", "TargetType ?: \"None\"", -18, false, Render::kFixedString, nullptr, ""},
          {"Name", "Name", -41, false, Render::kFixedString, nullptr, "?"}};
}

std::vector<ColumnSpec> negotiator_columns() {
  return {{"Name", "Name", -12, true, Render::kPlain, nullptr, ""},
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

// The collector's Machine column stays 18 wide (a longer name pushes its own row right).
std::vector<ColumnSpec> collector_columns(bool wide) {
  return {{"Name", "Name", 0, true, Render::kPlain, nullptr, ""},
          {"Machine", "Machine", wide ? -34 : -18, wide, Render::kPlain, nullptr, ""},
          {"RunningJobs", "RunningJobs", 0, true, Render::kPrintf, "%11d", ""},
          {"  IdleJobs", "IdleJobs", 0, true, Render::kPrintf, "%10d", ""},
          {"HostsTotal", "HostsTotal", 0, true, Render::kPrintf, "%10d", ""}};
}

// -master: each master's version, detected cores and memory, and uptime (no totals).
std::vector<ColumnSpec> master_columns() {
  return {{"Name", "Name", -12, true, Render::kPlain, nullptr, ""},
          {"Version", "CondorVersion", -14, false, Render::kVersion, nullptr, ""},
          {"Cpus", "DetectedCpus", 4, false, Render::kPrintf, "%4d", "??"},
          {"  Memory", "DetectedMemory", 10, false, Render::kReadableMb, nullptr, "??"},
          {"   Uptime", "DaemonStartTime", 13, false, Render::kElapsed, nullptr, ""}};
}

// The slot tables that have a compact form.
bool has_compact_form(StatusMode m) {
  return m == StatusMode::kSlots || m == StatusMode::kAvail || m == StatusMode::kServer ||
         m == StatusMode::kState || m == StatusMode::kClaimed;
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
  if (o.compact && has_compact_form(o.mode)) {
    switch (o.mode) {
      case StatusMode::kServer: return server_compact_columns();
      case StatusMode::kState: return state_compact_columns();
      case StatusMode::kClaimed: return claimed_compact_columns();
      default: return compact_columns();
    }
  }
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
    case StatusMode::kCollector: return collector_columns(o.wide);
    case StatusMode::kMaster: return master_columns();
    case StatusMode::kAny: return any_columns();
    default: return slot_columns(o.wide);
  }
}

std::string quote(const std::string& s) {
  std::string out;
  classad::unparse_string(out, s);
  return out;
}

}  // namespace

int natural_compare(const char* a, const char* b) {
  size_t i = 0;
  while (a[i] && a[i] == b[i]) ++i;
  if (a[i] == b[i]) return 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t run = i;  // where the digits leading up to the mismatch start
  while (run > 0 && digit(a[run - 1])) --run;
  if (run == i && (!digit(a[i]) || !digit(b[i]))) return a[i] - b[i];
  size_t za = run, zb = run;
  while (a[za] == '0') ++za;
  while (b[zb] == '0') ++zb;
  // A lone final zero is the number zero, not a leading zero.
  if (za > run && !digit(a[za])) --za;
  if (zb > run && !digit(b[zb])) --zb;
  if (za != zb) return static_cast<int>(zb) - static_cast<int>(za);
  if (za > run) return a[i] - b[i];
  size_t ea = za, eb = zb;
  while (digit(a[ea])) ++ea;
  while (digit(b[eb])) ++eb;
  if (ea != eb) return static_cast<int>(ea) - static_cast<int>(eb);
  return a[i] - b[i];
}

namespace {

// An ad's sort key as condor_status builds it: each key's value as text (integers and booleans
// in decimal, a real as the decimal of its IEEE bits, strings as they are, anything else
// unparsed) ending in a newline, then the ad's position in hex as the key of last resort.
std::string sort_key(const classad::ClassAd& ad, const std::vector<classad::ExprPtr>& exprs,
                     size_t ordinal) {
  std::string key;
  char buf[32];
  for (const auto& e : exprs) {
    classad::Value v = ad.evaluate_expr(e.get());
    if (v.is_real()) {
      double d = v.as_real();
      long long bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      std::snprintf(buf, sizeof buf, "%lld", bits);
      key += buf;
    } else if (v.is_integer() || v.is_boolean()) {
      double d = 0;
      v.to_number(d);
      std::snprintf(buf, sizeof buf, "%lld",
                    v.is_integer() ? static_cast<long long>(v.as_integer())
                    : d != 0       ? 1LL
                                   : 0LL);
      key += buf;
    } else if (v.is_string()) {
      key += v.as_string();
    } else {
      key += classad::to_string(v);
    }
    key += '\n';
  }
  std::snprintf(buf, sizeof buf, "%08zX", ordinal);
  key += buf;
  return key;
}

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
  lookup_number(ad, "Cpus", &cpus);
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
  return std::string{asc, aac};
}

// -af[:letters] as HTCondor's autoformat (ad_printmask.cpp, parse_autoformat_args): a blank
// before each value but the first ('t': a tab; 'g': none, and a newline before each row), ','
// or 'n' after each value but the last (the later letter wins), 'l' labels, 'h' a heading row
// with every column padded to its widest value, 'V' quoted strings, 'r'/'o' the expression as
// written, 'T' a time span, 'Y' a date.
void print_af(const StatusOptions& o, const std::vector<const classad::ClassAd*>& ads,
              const std::vector<classad::ExprPtr>& exprs, std::string* out) {
  bool quoted = false, label = false, headings = false, raw = false, span = false, date = false,
       job_id = false;
  std::string row_pre, col_pre = " ", col_post;
  for (char c : o.af_opts) {
    switch (c) {
      case ',': col_post = ","; break;
      case 'n': col_post = "\n"; break;
      case 'g':
        col_pre.clear();
        row_pre = "\n";
        break;
      case 't': col_pre = "\t"; break;
      case 'l': label = true; break;
      case 'V': quoted = true; break;
      case 'r':
      case 'o': raw = true; break;
      case 'T': span = true; break;
      case 'Y': date = true; break;
      case 'h': headings = true; break;
      case 'j': job_id = true; break;
      default: break;
    }
  }
  if (headings) label = false;  // a heading replaces the labels
  struct Cell {
    std::string text;
    bool sized;  // sizes its column before the heading is printed (not undefined, booleans)
  };
  std::vector<std::vector<Cell>> rows;
  for (const classad::ClassAd* ad : ads) {
    std::vector<Cell> row;
    if (job_id) {
      // 'j' leads with ClusterId.ProcId (ProcId -1 when missing), else a JobId string, else
      // nothing at all (not even the label).
      Cell cell{std::string(), true};
      long long cluster = 0, proc = -1;
      std::string id;
      if (lookup_integer(*ad, "ClusterId", &cluster)) {
        lookup_integer(*ad, "ProcId", &proc);
        cell.text = std::to_string(cluster) + "." + std::to_string(proc);
      } else if (!ad->evaluate_string("JobId", cell.text)) {
        cell.sized = false;
      }
      if (label && cell.sized) cell.text = "ID = " + cell.text;
      row.push_back(std::move(cell));
    }
    for (size_t i = 0; i < exprs.size(); ++i) {
      Cell cell{std::string(), true};
      const classad::Expr* bound = ad->lookup(o.af[i]);
      if (raw) {
        // :r prints the expression as written (%r): a missing attribute, or one that is only
        // a reference to another, is undefined.
        cell.text = raw_text(bound ? bound : exprs[i].get());
      } else {
        classad::Value v = ad->evaluate_expr(exprs[i].get());
        double d = 0;
        cell.sized = v.is_string() || v.is_number();
        if ((span || date) && !quoted) {
          // %T / %Y take numbers; anything else prints nothing.
          if (v.to_number(d)) {
            cell.text = span ? duration_text(static_cast<long long>(d)) : date_text(d);
          } else {
            cell.sized = false;
          }
        } else {
          cell.text = quoted && v.is_string() ? classad::to_string(v) : plain_text(v);
        }
      }
      if (label) cell.text = o.af[i] + " = " + cell.text;
      row.push_back(std::move(cell));
    }
    rows.push_back(std::move(row));
  }
  // (The heading row is printed even when no ad matched, as condor_status does.)
  size_t ncols = exprs.size() + (job_id ? 1 : 0);
  std::vector<size_t> widths(ncols, 0);
  if (headings) {
    for (size_t i = 0; i < ncols; ++i) {
      widths[i] = job_id && i == 0 ? 3 : o.af[i - (job_id ? 1 : 0)].size();
      for (const auto& r : rows) {
        if (r[i].sized) widths[i] = std::max(widths[i], r[i].text.size());
      }
    }
  }
  auto emit = [&](const std::vector<Cell>& r, bool heading) {
    *out += row_pre;
    for (size_t i = 0; i < r.size(); ++i) {
      if (i) *out += col_pre;
      // A value wider than its column widens it for the rows after (not the heading).
      if (headings && !heading) widths[i] = std::max(widths[i], r[i].text.size());
      *out += r[i].text;
      if (r[i].text.size() < widths[i]) out->append(widths[i] - r[i].text.size(), ' ');
      if (i + 1 < r.size()) *out += col_post;
    }
    *out += '\n';
  };
  if (headings) {
    std::vector<Cell> head;
    if (job_id) head.push_back({" ID", true});
    for (const std::string& a : o.af) head.push_back({a, true});
    emit(head, true);
  }
  for (const auto& r : rows) emit(r, false);
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

bool format_ads(const std::vector<FormatItem>& formats,
                const std::vector<const classad::ClassAd*>& ads, std::string* out,
                std::string* err) {
  std::vector<classad::ExprPtr> exprs;
  for (const FormatItem& f : formats) {
    classad::ParseError perr;
    classad::ExprPtr e = classad::parse_expr(f.attr, &perr);
    if (!e) {
      *err = "bad -format expression '" + f.attr + "': " + perr.to_string();
      return false;
    }
    exprs.push_back(std::move(e));
  }
  for (const classad::ClassAd* ad : ads) {
    for (size_t i = 0; i < formats.size(); ++i) {
      std::string text;
      if (printf_value(unescape(formats[i].format).c_str(), ad->evaluate_expr(exprs[i].get()),
                       &text, ad->lookup(formats[i].attr), exprs[i].get()))
        *out += text;
    }
  }
  return true;
}

const char* status_mode_ad_type(StatusMode mode) {
  switch (mode) {
    case StatusMode::kSchedd:
    case StatusMode::kScheddRun: return "Scheduler";
    case StatusMode::kSubmitters: return "Submitter";
    case StatusMode::kNegotiator: return "Negotiator";
    case StatusMode::kCollector: return "Collector";
    case StatusMode::kMaster: return "DaemonMaster";
    case StatusMode::kAny: return "";
    default: return "Machine";
  }
}

std::string status_mode_constraint(const StatusOptions& o) {
  // condor_status builds its query as (every AND part) && (any OR part): -avail and -claimed
  // are OR parts, like the NAME arguments, so `-avail NAME` shows the available slots and NAME.
  std::vector<std::string> all_of, any_of;
  StatusMode selecting = o.select == StatusMode::kAvail ? o.select : o.mode;
  switch (selecting) {
    case StatusMode::kAvail:
      if (!o.compact) any_of.push_back("State == \"Unclaimed\" && Cpus > 0 && Memory > 0");
      break;
    case StatusMode::kClaimed:
      if (!o.compact) any_of.push_back("State == \"Claimed\"");
      break;
    case StatusMode::kAbsent: all_of.push_back("Absent"); break;
    case StatusMode::kOffline: all_of.push_back("size(OfflineUniverses) != 0"); break;
    case StatusMode::kScheddRun:
      all_of.push_back("(ShadowsRunning+TotalSchedulerJobsRunning) > 0");
      break;
    default: break;
  }
  // -compact: condor_status adds the compact constraint of what -avail / -claimed select (else
  // partitionable and static slots) to its query, even with -total (which then prints plain
  // totals), and the compact print format's WHERE when it draws the table.
  if (o.compact && has_compact_form(o.mode)) {
    const char* compact_where = "PartitionableSlot =?= true || DynamicSlot =!= true";
    const char* claimed_where =
        "(State == \"Claimed\" && DynamicSlot =!= true) || (NumDynamicSlots isnt undefined && "
        "NumDynamicSlots > 0)";
    const char* query = selecting == StatusMode::kAvail
                            ? "State == \"Unclaimed\" && Cpus > 0 && Memory > 0"
                        : selecting == StatusMode::kClaimed ? claimed_where
                                                            : compact_where;
    const char* format = o.mode == StatusMode::kClaimed ? claimed_where : compact_where;
    bool drawn =
        !o.total_only && !o.json && !o.longform && !o.xml && !o.have_af && o.formats.empty();
    all_of.push_back(query);
    if (drawn && std::strcmp(format, query) != 0) all_of.push_back(format);
  }
  for (const std::string& n : o.names) {
    // With -claimed a name is the user running the jobs, as in condor_status.
    any_of.push_back(o.mode == StatusMode::kClaimed
                         ? "RemoteUser == " + quote(n)
                         : "Name==" + quote(n) + " || Machine==" + quote(n));
  }
  // Each -sort key leaves out the ads it is undefined in.
  if (!o.no_sort) {
    for (const std::string& k : o.sort) all_of.push_back(k + " =!= UNDEFINED");
  }
  if (!o.constraint.empty()) all_of.push_back(o.constraint);
  auto join = [](const std::vector<std::string>& parts, const char* op) {
    std::string text;
    for (const std::string& p : parts) {
      if (!text.empty()) text += op;
      text += "(" + p + ")";
    }
    return text;
  };
  std::string all = join(all_of, " && ");
  if (!any_of.empty()) {
    std::string any = any_of.size() == 1 ? join(any_of, "") : "(" + join(any_of, " || ") + ")";
    all = all.empty() ? any : all + " && " + any;
  }
  return all;
}

bool status_counts_only(const StatusOptions& o) {
  bool compact_table = o.compact && has_compact_form(o.mode);
  // -claimed's totals add up reals (LoadAvg), whose sum depends on the order.
  return o.total_only && !o.json && !o.longform && !o.xml && !o.have_af && o.formats.empty() &&
         o.limit <= 0 && !compact_table && totals_style(o.mode) != TotalsStyle::kRun;
}

std::vector<std::string> status_needed_attrs(const StatusOptions& o) {
  std::vector<std::string> attrs;
  if (status_counts_only(o)) {
    attrs = Totals::attrs(totals_style(o.mode));
  } else if ((o.mode == StatusMode::kSlots || o.mode == StatusMode::kAvail) && !o.compact &&
             !o.total_only && o.sort.empty() && !o.json && !o.longform && !o.xml && !o.have_af &&
             o.formats.empty()) {
    // slot_columns() and what their renderers read, the default order (Machine, Name) and the
    // totals (Arch, OpSys, State).
    attrs = {"Name",          "Machine",      "OpSys",         "Arch",   "State",
             "Activity",      "OCU",          "CondorLoadAvg", "Memory", "EnteredCurrentActivity",
             "MyCurrentTime", "LastHeardFrom"};
    for (const std::string& a : Totals::attrs(totals_style(o.mode))) attrs.push_back(a);
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
    // Ads read from a file are not sorted by type: condor_status -ads applies the constraint
    // only, whatever MyType says.
    if (o.typed && *type) {
      std::string my_type;
      if (!ad->evaluate_string("MyType", my_type)) my_type = "Machine";
      if (strcasecmp(my_type.c_str(), type) != 0) continue;
    }
    if (filter) {
      // A number counts as a boolean, as HTCondor's EvalExprBool reads it.
      classad::Value v = ad->evaluate_expr(filter.get());
      double d = 0;
      if (!v.is_boolean() && !v.is_number()) continue;
      if (!v.to_number(d) || d == 0) continue;
    }
    if (o.limit > 0 && shown.size() >= static_cast<size_t>(o.limit)) break;
    shown.push_back(ad.get());
    shown_counts.push_back(i < counts.size() ? counts[i] : 1);
  }
  // Order: -sort keys, else Machine then Name; -sort none keeps the order read.
  std::vector<std::string> keys = o.sort;
  if (keys.empty() && !o.no_sort) keys = {"Machine", "Name"};
  // -compact groups a machine's slots by type: Machine:SlotTypeId replaces a leading Machine
  // key, or leads, as in condor_status.
  bool compact_keys = o.compact && is_slot_mode(o.mode);
  if (compact_keys) {
    // (condor_status reads a negative SlotTypeId as positive for this key.)
    const char* primary = "join(\":\",Machine,SlotTypeId < 0 ? -SlotTypeId : SlotTypeId)";
    if (!keys.empty() && strcasecmp(keys[0].c_str(), "Machine") == 0)
      keys[0] = primary;
    else
      keys.insert(keys.begin(), primary);
  }
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
    // Each ad's key is made once, then the ads are ordered by it.
    std::vector<std::pair<std::string, const classad::ClassAd*>> keyed;
    keyed.reserve(shown.size());
    for (size_t i = 0; i < shown.size(); ++i) {
      keyed.emplace_back(sort_key(*shown[i], key_exprs, i), shown[i]);
    }
    bool natural = o.natural;
    std::sort(keyed.begin(), keyed.end(), [natural](const auto& a, const auto& b) {
      return (natural ? natural_compare(a.first.c_str(), b.first.c_str())
                      : std::strcmp(a.first.c_str(), b.first.c_str())) < 0;
    });
    for (size_t i = 0; i < keyed.size(); ++i) shown[i] = keyed[i].second;
  }

  // -l, -json and -xml print the ad without its private attributes (claim ids and the like),
  // and only the -attributes A,B when given (condor_status: sGetAdAttrs, exclude_private).
  std::vector<classad::AdPtr> projected;
  if (o.json || o.longform || o.xml) {
    for (const classad::ClassAd*& ad : shown) {
      std::vector<std::string> drop;
      for (const auto& e : ad->entries()) {
        std::string name(e.name->view());
        bool wanted = o.attributes.empty();
        for (const std::string& a : o.attributes)
          wanted = wanted || strcasecmp(a.c_str(), name.c_str()) == 0;
        if (!wanted || queue::private_attr(name)) drop.push_back(name);
      }
      if (drop.empty()) continue;
      classad::AdPtr copy(ad->copy());
      for (const std::string& name : drop) copy->remove(name);
      ad = copy.get();
      projected.push_back(std::move(copy));
    }
  }
  if (o.xml) {
    // The document's head and foot are there even when no ad matched.
    *out += kXmlHeader;
    for (const classad::ClassAd* ad : shown) append_xml_ad(out, *ad);
    *out += kXmlFooter;
    return true;
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
    // condor_status -long:new: "{", then each ad as `[ A = 1; B = "x" ]` on a line of its own
    // after "," lines, then "}" (nothing at all for no ads).
    for (size_t i = 0; i < shown.size(); ++i) {
      std::vector<classad::ClassAd::Entry> entries = shown[i]->entry_list();
      std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
        std::string x(a.name->view()), y(b.name->view());
        return strcasecmp(x.c_str(), y.c_str()) < 0;
      });
      if (o.new_ads) *out += i ? ",\n[ " : "{\n[ ";
      for (size_t k = 0; k < entries.size(); ++k) {
        if (o.new_ads && k) *out += "; ";
        classad::unparse_attr_name(*out, entries[k].name->view());
        *out += " = ";
        if (o.new_ads) {
          classad::unparse_expr(*out, entries[k].expr);
        } else {
          append_long_value(out, entries[k].expr);
          *out += '\n';
        }
      }
      *out += o.new_ads ? " ]\n" : "\n";
    }
    if (o.new_ads && !shown.empty()) *out += "}\n";
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
  if (!o.formats.empty()) return format_ads(o.formats, shown, out, err);

  // The table and its totals; nothing at all when no ad matched.
  if (shown.empty()) return true;
  Table table(columns_for(o));
  if (!table.ok()) {
    *err = table.error();
    return false;
  }
  Totals totals(totals_style(o.mode), o.wide);
  if (counted) {
    for (size_t i = 0; i < shown.size(); ++i) totals.add(*shown[i], "", false, shown_counts[i]);
    if (totals.enabled()) {
      *out += '\n';
      totals.print(out);
    }
    return true;
  }
  bool compact = o.compact && !o.total_only && has_compact_form(o.mode);
  CompactLayout at = compact_layout(o.mode);
  for (const classad::ClassAd* ad : shown) {
    table.add_row(*ad);
    if (compact) {
      bool pslot = false;
      if (at.activity >= 0 && lookup_bool(*ad, "PartitionableSlot", &pslot) && pslot) {
        std::string& st = table.last_row()[static_cast<size_t>(at.activity)];
        st = rolled_up_code(*ad, st);
      }
      // The totals' key is the Platform cell (-state: the Activity, its own key); when that
      // could not be made, condor_status keys on the value the cell was made from (OpSys).
      std::string key;
      if (o.mode != StatusMode::kState) {
        key = table.last_row()[1];
        if (key.empty()) ad->evaluate_string("OpSys", key);
      }
      totals.add(*ad, key, true);
    } else {
      totals.add(*ad, "", false);
    }
  }
  if (compact) fold_compact_rows(shown, at, &table);
  if (!o.total_only) {
    std::string text;
    table.print(&text);
    // -wide:N cuts the table's lines (not the totals) to N-1 columns.
    if (o.width > 0) {
      size_t keep = static_cast<size_t>(o.width - 1), start = 0;
      while (start < text.size()) {
        size_t nl = text.find('\n', start);
        if (nl == std::string::npos) nl = text.size();
        out->append(text, start, std::min(nl - start, keep));
        if (nl < text.size()) *out += '\n';
        start = nl + 1;
      }
    } else {
      *out += text;
    }
  }
  if (totals.enabled()) {
    *out += '\n';
    totals.print(out);
  }
  return true;
}

}  // namespace kite::cli
