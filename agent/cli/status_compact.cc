// condor_status -compact's folding of static slots (see status_compact.h); the rules are
// HTCondor's (condor_status.V6/status.cpp, fold_slot_result).
#include "agent/cli/status_compact.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace kite::cli {
namespace {

struct CompactRow {
  const classad::ClassAd* ad;
  bool pslot = false;
  bool busy = false;
  long long free_cpus = 0;
  double free_gb = 0, max_gb = 0, starts = 0;
  bool starts_shown = false;  // Jobs/Min had a value (else it keeps its "_", folded or not)
  long long slots = 1;
  std::string code;
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string fmt_int(const char* f, long long v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string str_attr(const classad::ClassAd& ad, const char* name) {
  std::string s;
  ad.evaluate_string(name, s);
  return s;
}

bool same_group(const classad::ClassAd& a, const classad::ClassAd& b) {
  long long ta = 0, tb = 0;
  lookup_integer(a, "SlotTypeId", &ta);
  lookup_integer(b, "SlotTypeId", &tb);
  return str_attr(a, "Machine") == str_attr(b, "Machine") && ta == tb;
}

// A static slot's own row, as HTCondor "cooks" it before folding.
void cook(CompactRow* r) {
  r->max_gb = r->free_gb;
  if (r->busy) {
    r->free_cpus = 0;
    r->free_gb = 0;
  }
  r->slots = 1;
}

void write_back(const CompactRow& r, const CompactLayout& at, Table* table, size_t row) {
  auto set = [&](int col, std::string text) {
    if (col >= 0) table->set_cell(row, static_cast<size_t>(col), std::move(text));
  };
  set(at.slots, fmt_int("%4lld", r.slots));
  set(at.free_cpus, fmt_int("%6lld", r.free_cpus));
  set(at.free_mem, fmt("%8.2f", r.free_gb));
  set(at.max_slot, fmt("%9.2f", r.max_gb));
  if (r.starts_shown) set(at.job_starts, fmt("%8.2f", r.starts));
  set(at.activity, r.code);
}

}  // namespace

void fold_compact_rows(const std::vector<const classad::ClassAd*>& ads, const CompactLayout& at,
                       Table* table) {
  auto& cells = table->mutable_rows();
  std::vector<CompactRow> rows;
  for (size_t i = 0; i < ads.size(); ++i) {
    CompactRow r;
    r.ad = ads[i];
    bool b = false;
    r.pslot = lookup_bool(*ads[i], "PartitionableSlot", &b) && b;
    std::string state = str_attr(*ads[i], "State");
    r.busy = state == "Matched" || state == "Claimed" || state == "Preempting";
    double cpus = 0, mem = 0, starts = 0;
    lookup_number(*ads[i], "Cpus", &cpus);
    lookup_number(*ads[i], "Memory", &mem);
    r.starts_shown =
        at.job_starts >= 0 && ads[i]->evaluate_attr("RecentJobStarts").to_number(starts);
    r.free_cpus = static_cast<long long>(cpus);
    r.free_gb = mem / 1024.0;
    r.starts = starts / 20.0;
    if (at.activity >= 0) r.code = cells[i][static_cast<size_t>(at.activity)];
    rows.push_back(r);
  }
  std::vector<bool> keep(rows.size(), true);
  size_t head = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    // A machine's second slot type gets a row of its own, labelled with the slot's name.
    if (i > 0 && str_attr(*rows[i].ad, "Machine") == str_attr(*rows[i - 1].ad, "Machine") &&
        !same_group(*rows[i].ad, *rows[i - 1].ad)) {
      std::string name = str_attr(*rows[i].ad, "Name");
      table->set_cell(i, 0, "   " + name.substr(0, name.find('@')));
    }
    if (rows[i].pslot) continue;  // partitionable rows stand alone (their children are rolled up)
    if (i > head && !rows[head].pslot && keep[head] && same_group(*rows[head].ad, *rows[i].ad)) {
      CompactRow& a = rows[head];
      const CompactRow& b = rows[i];
      double bmem = b.free_gb;
      a.max_gb = std::max(a.max_gb, bmem);
      if (!b.busy) {
        a.free_gb += bmem;
        a.free_cpus += b.free_cpus;
      }
      a.slots += 1;
      a.starts += b.starts;
      for (size_t k = 0; k < 2 && k < a.code.size() && k < b.code.size(); ++k) {
        if (a.code[k] != b.code[k]) a.code[k] = '*';
      }
      keep[i] = false;
      write_back(a, at, table, head);
      continue;
    }
    head = i;
    cook(&rows[i]);
    write_back(rows[i], at, table, i);
  }
  table->keep_rows(keep);
}

}  // namespace kite::cli
