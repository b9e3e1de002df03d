// condor_status's totals footers: per-key rows (Arch/OpSys, platform, activity, submitter...)
// and a Total row, in the layout of each table style.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "policy/classad/classad.h"

namespace kite::cli {

enum class TotalsStyle { kNone, kSlots, kServer, kRun, kState, kSchedd, kSubmitter };

class Totals {
 public:
  // `auto_key`: the key column as wide as the longest key (at least "Total"), as with -wide;
  // otherwise 14 wide and longer keys cut, unless a key given to add() (the -compact
  // platforms) is longer.
  explicit Totals(TotalsStyle style, bool auto_key = false) : style_(style), auto_key_(auto_key) {}
  bool enabled() const { return style_ != TotalsStyle::kNone; }
  // The attributes add() reads of an ad in `style` (without rollup).
  static std::vector<std::string> attrs(TotalsStyle style);
  // Counts one ad under `key` (empty: the style's own key from the ad). `rollup`: compact mode,
  // a partitionable slot counts its children's states (ChildState), plus itself unless exhausted.
  // `times`: the ad stands for that many equal ads.
  void add(const classad::ClassAd& ad, const std::string& key, bool rollup, uint64_t times = 1);
  bool empty() const { return groups_.empty(); }
  void print(std::string* out) const;

  struct Counts {
    long long machines = 0, owner = 0, claimed = 0, unclaimed = 0, matched = 0, preempting = 0,
              drained = 0, backfill = 0, bkidle = 0, avail = 0, memory = 0, disk = 0, mips = 0,
              kflops = 0, running = 0, idle = 0, held = 0;
    double loadavg = 0;
    // Adds `n` times what `one` counted (one ad's counts).
    void add_times(const Counts& one, long long n);
  };

 private:
  bool count(Counts* c, const classad::ClassAd& ad, bool rollup) const;
  bool count_state(Counts* c, const std::string& state, bool backfill) const;
  void header(std::string* out) const;
  void row(std::string* out, const Counts& c, bool top) const;

  TotalsStyle style_;
  bool auto_key_;
  size_t min_key_ = 14;
  std::map<std::string, Counts> groups_;
  Counts all_;
  int malformed_ = 0;
};

}  // namespace kite::cli
