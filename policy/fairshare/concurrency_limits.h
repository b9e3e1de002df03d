// Concurrency limits, pure: a job's ConcurrencyLimits list, the limits the CM configures, and
// a tracker of units in use that tells the negotiator whether a job may be matched now.
// HTCONDOR: admin-manual/cm-configuration "Concurrency Limits".
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/config/config.h"

namespace kite::fairshare {

/// One limit a job uses: the name lower-cased ("xsw", "large.swlicense") and the units.
struct LimitUse {
  std::string name;
  double units = 1;
};

/// Parses a ConcurrencyLimits value (or concurrency_limits_expr's value evaluated against the
/// matched machine): names separated by commas and/or blanks, each optionally ":units".
/// Names are letters, digits and '_' with at most one '.', not starting with a digit. A name
/// given twice adds its units. On error returns false and says which item is wrong and why.
bool parse_concurrency_limits(std::string_view text, std::vector<LimitUse>* out,
                              std::string* error);

/// The limits a job holds when matched to `machine`: its ConcurrencyLimits evaluated with the
/// machine as TARGET (concurrency_limits_expr puts an expression there), then parsed. No
/// attribute, or undefined: none. A value that is not a string, or does not parse, is an error.
bool job_limit_uses(classad::ClassAd& job, classad::ClassAd& machine, std::vector<LimitUse>* out,
                    std::string* error);

/// The limits configured on the CM.
struct LimitTable {
  std::map<std::string, double> named;         // <NAME>_LIMIT, name lower-cased
  std::map<std::string, double> set_defaults;  // CONCURRENCY_LIMIT_DEFAULT_<SET>, lower-cased
  bool has_default = false;                    // CONCURRENCY_LIMIT_DEFAULT is set
  double default_limit = 0;

  /// The limit for a (lower-cased) name: its own, else its set's default, else the default;
  /// infinity when nothing limits it.
  double limit_of(std::string_view name) const;
};

/// Reads every <NAME>_LIMIT and CONCURRENCY_LIMIT_DEFAULT[_<SET>] the configuration sets.
/// A value that is not a number is an error naming its file and line.
config::Status limits_from_config(const config::Config& cfg, LimitTable* out);

/// Units of each limit held by running and just-matched jobs.
class LimitTracker {
 public:
  explicit LimitTracker(LimitTable table = {}) : table_(std::move(table)) {}

  /// True when every limit the job uses has room for its units. Otherwise false, and
  /// *blocking (if given) names the first full limit.
  bool fits(const std::vector<LimitUse>& uses, std::string* blocking = nullptr) const;
  /// A job holding `uses` was matched or is running.
  void acquire(const std::vector<LimitUse>& uses);
  /// A job holding `uses` exited, was preempted or removed.
  void release(const std::vector<LimitUse>& uses);

  double in_use(std::string_view name) const;  // any case
  const LimitTable& table() const { return table_; }
  void clear() { used_.clear(); }

 private:
  LimitTable table_;
  std::map<std::string, double> used_;
};

}  // namespace kite::fairshare
