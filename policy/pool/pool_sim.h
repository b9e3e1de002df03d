// `kite pool simulate`, pure: a whole pool (machines, submitters, the accountant and the
// negotiator) on one virtual clock, driven by a scenario file. The rules are the and
// the README's "Pool dry run" section's. No sockets, no real clock.
#pragma once

#include <string>
#include <string_view>

namespace kite::pool {

struct PoolResult {
  std::string output;  // a line per cycle, a FAIL line per failed expectation, the summary
  std::string csv;     // rows time,name,kind,running,idle,rup,eup,quota (no header)
  int passed = 0;
  int failed = 0;
  bool error = false;  // the scenario does not parse or does not make sense: output says where
  // Input: false leaves out the per-cycle lines and CSV rows (`-q` without `--csv` prints
  // neither, and a week of cycles spends a few percent writing them).
  bool report_cycles = true;
};

/// The header of PoolResult::csv.
inline constexpr const char* kCsvHeader = "time,name,kind,running,idle,rup,eup,quota\n";

/// Runs the scenario `text`, read from file `name` (for messages).
void pool_run(std::string_view text, const std::string& name, PoolResult* res);

}  // namespace kite::pool
