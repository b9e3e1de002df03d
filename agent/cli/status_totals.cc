// condor_status's totals footers (see status_totals.h). The layouts are HTCondor's
// (condor_status.V6/totals.cpp), including its quirks: -state never fills the Total column.
#include "agent/cli/status_totals.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "agent/cli/status_columns.h"
#include "policy/classad/expr.h"

namespace kite::cli {
namespace {

std::string str_attr(const classad::ClassAd& ad, const char* name) {
  std::string s;
  ad.evaluate_string(name, s);
  return s;
}

bool flag(const classad::ClassAd& ad, const char* name) {
  bool b = false;
  return lookup_bool(ad, name, &b) && b;
}

void appendf(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string* out, const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  *out += buf;
}

}  // namespace

std::vector<std::string> Totals::attrs(TotalsStyle style) {
  switch (style) {
    case TotalsStyle::kSlots: return {"Arch", "OpSys", "State"};
    case TotalsStyle::kState: return {"Activity", "State"};
    case TotalsStyle::kServer:
      return {"Arch", "OpSys", "State", "Memory", "Disk", "Mips", "KFlops"};
    case TotalsStyle::kRun: return {"Arch", "OpSys", "Mips", "KFlops", "LoadAvg"};
    case TotalsStyle::kSchedd: return {"TotalRunningJobs", "TotalIdleJobs", "TotalHeldJobs"};
    case TotalsStyle::kSubmitter: return {"Name", "RunningJobs", "IdleJobs", "HeldJobs"};
    case TotalsStyle::kNone: break;
  }
  return {};
}

bool Totals::count_state(Counts* c, const std::string& state, bool backfill) const {
  std::string st = state;
  if (backfill) {
    if (st == "Unclaimed") {
      ++c->bkidle;
      return true;
    }
    if (st == "Claimed") st = "Backfill";
  }
  if (st == "Owner") {
    ++c->owner;
  } else if (st == "Unclaimed") {
    ++c->unclaimed;
  } else if (st == "Claimed") {
    ++c->claimed;
  } else if (st == "Matched") {
    ++c->matched;
  } else if (st == "Preempting") {
    ++c->preempting;
  } else if (st == "Backfill") {
    ++c->backfill;
  } else if (st == "Drained") {
    ++c->drained;
  } else {
    return false;
  }
  // HTCondor's -state totals never count machines; the slot totals do.
  if (style_ == TotalsStyle::kSlots) ++c->machines;
  return true;
}

bool Totals::count(Counts* c, const classad::ClassAd& ad, bool rollup) const {
  switch (style_) {
    case TotalsStyle::kSlots:
    case TotalsStyle::kState: {
      bool backfill = rollup && flag(ad, "SlotBackfill");
      if (rollup && flag(ad, "PartitionableSlot")) {
        const classad::Expr* e = ad.lookup("ChildState");
        classad::Value v = e ? ad.evaluate_expr(e) : classad::Value();
        if (v.is_list()) {
          for (const classad::Expr* item : v.as_list()->items) {
            if (item->kind != classad::ExprKind::kLiteral) continue;
            const classad::Value& iv = classad::as_literal(item)->value;
            if (iv.is_string()) count_state(c, std::string(iv.as_string()), backfill);
          }
        }
        return true;
      }
      return count_state(c, str_attr(ad, "State"), backfill);
    }
    case TotalsStyle::kServer: {
      std::string state;
      if (!ad.evaluate_string("State", state)) return false;
      long long mem = 0, disk = 0, mips = 0, kflops = 0;
      bool ok = lookup_integer(ad, "Memory", &mem);
      ok = lookup_integer(ad, "Disk", &disk) && ok;
      ok = lookup_integer(ad, "Mips", &mips) && ok;
      ok = lookup_integer(ad, "KFlops", &kflops) && ok;
      if (state == "Claimed" || state == "Unclaimed") ++c->avail;
      ++c->machines;
      c->memory += mem;
      c->disk += disk;
      c->mips += mips;
      c->kflops += kflops;
      return ok;
    }
    case TotalsStyle::kRun: {
      long long mips = 0, kflops = 0;
      double load = 0;
      bool ok = lookup_integer(ad, "Mips", &mips);
      ok = lookup_integer(ad, "KFlops", &kflops) && ok;
      ok = lookup_number(ad, "LoadAvg", &load) && ok;
      c->mips += mips;
      c->kflops += kflops;
      c->loadavg += load;
      ++c->machines;
      return ok;
    }
    case TotalsStyle::kSchedd:
    case TotalsStyle::kSubmitter: {
      bool schedd = style_ == TotalsStyle::kSchedd;
      long long r = 0, i = 0, h = 0;
      bool ok = true;
      if (lookup_integer(ad, schedd ? "TotalRunningJobs" : "RunningJobs", &r))
        c->running += r;
      else
        ok = false;
      if (lookup_integer(ad, schedd ? "TotalIdleJobs" : "IdleJobs", &i))
        c->idle += i;
      else
        ok = false;
      if (lookup_integer(ad, schedd ? "TotalHeldJobs" : "HeldJobs", &h))
        c->held += h;
      else
        ok = false;
      return ok;
    }
    case TotalsStyle::kNone: break;
  }
  return true;
}

void Totals::Counts::add_times(const Counts& one, long long n) {
  machines += one.machines * n;
  owner += one.owner * n;
  claimed += one.claimed * n;
  unclaimed += one.unclaimed * n;
  matched += one.matched * n;
  preempting += one.preempting * n;
  drained += one.drained * n;
  backfill += one.backfill * n;
  bkidle += one.bkidle * n;
  avail += one.avail * n;
  memory += one.memory * n;
  disk += one.disk * n;
  mips += one.mips * n;
  kflops += one.kflops * n;
  running += one.running * n;
  idle += one.idle * n;
  held += one.held * n;
  loadavg += one.loadavg * static_cast<double>(n);
}

void Totals::add(const classad::ClassAd& ad, const std::string& key_in, bool rollup,
                 uint64_t times) {
  if (!enabled()) return;
  long long n = static_cast<long long>(times);
  std::string key = key_in;
  min_key_ = std::max(min_key_, key_in.size());
  // In compact mode a partitionable slot with cores left is counted a second time, as itself
  // (condor_status totals it twice: its children's states, then its own; the -server and
  // -claimed totals have no rollup, so there it counts twice alike).
  bool twice = false;
  if (rollup && flag(ad, "PartitionableSlot") && !flag(ad, "SlotBackfill")) {
    double cpus = 0;
    lookup_number(ad, "Cpus", &cpus);
    twice = cpus >= 0.1;
  }
  int calls = twice ? 2 : 1;
  if (key.empty()) {
    // An ad without the attributes of its style's key is left out as malformed.
    bool keyed = true;
    switch (style_) {
      case TotalsStyle::kState: keyed = ad.evaluate_string("Activity", key); break;
      case TotalsStyle::kSubmitter: keyed = ad.evaluate_string("Name", key); break;
      case TotalsStyle::kSchedd: key = " "; break;
      default: {
        std::string arch, opsys;
        keyed = ad.evaluate_string("Arch", arch) && ad.evaluate_string("OpSys", opsys);
        key = arch + "/" + opsys;
      }
    }
    if (!keyed) {
      malformed_ += calls * static_cast<int>(n);
      return;
    }
  }
  Counts one;
  int bad = count(&one, ad, rollup) ? 0 : 1;
  if (twice && !count(&one, ad, false)) ++bad;
  groups_[key].add_times(one, n);
  all_.add_times(one, n);
  malformed_ += bad * static_cast<int>(n);
}

void Totals::header(std::string* out) const {
  switch (style_) {
    case TotalsStyle::kSlots:
      appendf(out, "%6.6s %5.5s %7.7s %9.9s %7.7s %10.10s %6.6s %8.8s %6.6s\n", "Total", "Owner",
              "Claimed", "Unclaimed", "Matched", "Preempting", "Drain", "Backfill", "BkIdle");
      break;
    case TotalsStyle::kState:
      appendf(out, "%6.6s %5.5s %9.9s %7.7s %10.10s %7.7s %6.6s %8.8s %6.6s\n", "Total", "Owner",
              "Unclaimed", "Claimed", "Preempting", "Matched", "Drain", "Backfill", "BkIdle");
      break;
    case TotalsStyle::kServer:
      appendf(out, "%9.9s %5.5s %7.7s %11.11s %11.11s %11.11s\n", "Slots", "Avail", "Memory",
              "Disk", "MIPS", "KFLOPS");
      break;
    case TotalsStyle::kRun:
      appendf(out, "%9.9s  %11.11s  %11.11s  %11.11s\n", "Machines", "MIPS", "KFLOPS",
              "AvgLoadAvg");
      break;
    case TotalsStyle::kSchedd:
      appendf(out, "%18s %18s %18s\n", "TotalRunningJobs", "TotalIdleJobs", "TotalHeldJobs");
      break;
    case TotalsStyle::kSubmitter:
      appendf(out, "%11s %10s %10s\n", "RunningJobs", "IdleJobs", "HeldJobs");
      break;
    case TotalsStyle::kNone: break;
  }
}

void Totals::row(std::string* out, const Counts& c, bool top) const {
  switch (style_) {
    case TotalsStyle::kSlots:
      appendf(out, "%6lld %5lld %7lld %9lld %7lld %10lld %6lld %8lld %6lld\n", c.machines, c.owner,
              c.claimed, c.unclaimed, c.matched, c.preempting, c.drained, c.backfill, c.bkidle);
      break;
    case TotalsStyle::kState:
      appendf(out, "%6lld %5lld %9lld %7lld %10lld %7lld %6lld %8lld %6lld\n", c.machines, c.owner,
              c.unclaimed, c.claimed, c.preempting, c.matched, c.drained, c.backfill, c.bkidle);
      break;
    case TotalsStyle::kServer:
      appendf(out, "%9lld %5lld %11lld %11lld %11lld %11lld\n", c.machines, c.avail, c.memory,
              c.disk, c.mips, c.kflops);
      break;
    case TotalsStyle::kRun:
      appendf(out, "%9lld  %11lld  %11lld   %-.3f\n", c.machines, c.mips, c.kflops,
              c.machines > 0 ? static_cast<float>(c.loadavg / c.machines) : 0.0);
      break;
    case TotalsStyle::kSchedd:
      // The schedd's per-key row prints nothing but its (blank) key.
      if (top) appendf(out, "%18lld %18lld %18lld\n", c.running, c.idle, c.held);
      break;
    case TotalsStyle::kSubmitter:
      appendf(out, "%11lld %10lld %10lld\n", c.running, c.idle, c.held);
      break;
    case TotalsStyle::kNone: break;
  }
}

void Totals::print(std::string* out) const {
  if (!enabled()) return;
  // condor_status sizes the key column to the keys for submitters and with -wide; otherwise
  // it is 14 wide (or the widest -compact platform) and a longer key is cut.
  int keylen = static_cast<int>(min_key_);
  if (auto_key_ || style_ == TotalsStyle::kSubmitter) {
    keylen = 5;
    for (const auto& g : groups_) keylen = std::max(keylen, static_cast<int>(g.first.size()));
  }
  appendf(out, "%*s", keylen, "");
  header(out);
  *out += '\n';
  for (const auto& g : groups_) {
    appendf(out, "%*.*s", keylen, keylen, g.first.c_str());
    row(out, g.second, false);
  }
  if (!groups_.empty()) *out += '\n';
  appendf(out, "%*.*s", keylen, keylen, "Total");
  row(out, all_, true);
  if (malformed_ > 0) {
    appendf(out, "\n%*.*s(Omitted %d malformed ads in computed attribute totals)\n\n", keylen,
            keylen, "", malformed_);
  }
}

}  // namespace kite::cli
