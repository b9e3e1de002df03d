// `kite policy simulate`: parses a scenario (configuration, `---`, timed steps) and runs it on
// the startd core with a virtual clock, producing the trace and the expectation results.
// The format is documented in README.md ("Policy scenarios") and kept stable.
#pragma once

#include <string>
#include <string_view>

namespace kite::startd {

/// Outcome of one scenario run.
struct ScenarioResult {
  int passed = 0;
  int failed = 0;
  bool error = false;   // the scenario or its configuration did not parse (nothing ran)
  std::string output;   // trace, failures, errors and the final "N passed, M failed" line
};

/// Runs the scenario `text` (`name` is used in messages, e.g. the file's path). Never aborts on
/// bad input: errors are reported with line numbers in `out->output` and `out->error`.
void scenario_run(std::string_view text, const std::string& name, ScenarioResult* out);

}  // namespace kite::startd
