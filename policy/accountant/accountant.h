// The accountant's arithmetic, pure: real and effective user priorities per submitter, usage
// totals, floors and ceilings, and the admin operations of condor_userprio. HTCONDOR:
// admin-manual/cm-configuration "User Priorities and Negotiation".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "policy/config/config.h"

namespace kite::accountant {

/// The settings the arithmetic uses, with HTCondor 25's defaults.
struct Settings {
  double half_life = 86400;        // PRIORITY_HALFLIFE, seconds
  double default_factor = 1000;    // DEFAULT_PRIO_FACTOR
  double nice_user_factor = 1e10;  // NICE_USER_PRIO_FACTOR
  double remote_factor = 10000;    // REMOTE_PRIO_FACTOR (submitters of another UID domain)
  std::string local_domain;        // ACCOUNTANT_LOCAL_DOMAIN, else UID_DOMAIN; "" = all local
  std::map<std::string, double> group_factors;  // GROUP_PRIO_FACTOR_<group>, lower-cased group
};

/// The lowest (best) real priority: every submitter starts there. HTCondor has no knob for it.
inline constexpr double kMinPriority = 0.5;

/// Reads the settings above from the CM's configuration; an unreadable value is an error
/// naming its file and line.
config::Status settings_from_config(const config::Config& cfg, Settings* out);

/// One submitter's record, as HTCondor's Accounting ad holds it.
struct Record {
  std::string name;                // "user@domain", "group.user@domain", "nice-user.user@domain"
  bool is_group = false;           // an accounting group's record ("<none>" or a GROUP_NAMES group)
  double priority = kMinPriority;  // real user priority (RUP)
  double factor = 0;               // priority factor; 0 = not set, the default applies
  double floor = 0;                // slot weight guaranteed (0 = none)
  double ceiling = -1;             // slot weight it may hold at most (-1 = none)
  int64_t resources_used = 0;      // slots in use now
  double weighted_in_use = 0;      // slot weight in use now
  double accumulated = 0;          // slot-seconds used, unweighted
  double weighted_accumulated = 0;  // slot-weight-seconds used
  int64_t begin_usage = 0;          // first time it used anything (0 = never)
  int64_t last_usage = 0;           // last time it used anything (0 = never)
  // Charging state between updates (not shown by condor_userprio).
  int64_t charged_until = 0;         // usage before this time is in `priority` and the totals
  double uncharged = 0;              // usage since charged_until that has ended, decay-weighted
  double uncharged_weight_secs = 0;  // the same, plain weight-seconds
  double uncharged_secs = 0;         // the same, slot-seconds
  int64_t in_use_since = 0;          // when the current in-use level began (>= charged_until)
};

/// The name usage is charged to. `user` is the job's AccountingGroup if set (a "group.user"
/// name), else its Owner; nice-user jobs are charged to "nice-user.<user>".
std::string submitter_name(std::string_view user, std::string_view uid_domain, bool nice_user);

/// True when `name` is a nice-user submitter.
bool is_nice_user(std::string_view name);

/// All submitters' records and the operations on them. Names compare case-sensitively, as
/// HTCondor's accountant keys do.
class Accountant {
 public:
  explicit Accountant(Settings s = {}) : settings_(std::move(s)) {}

  const Settings& settings() const { return settings_; }
  void set_settings(Settings s) { settings_ = std::move(s); }

  /// The submitter's usage changes at `now`: from now on it holds `slots` slots of total
  /// weight `weight`. Usage before `now` is charged exactly for the seconds it lasted.
  void set_usage(const std::string& name, int64_t slots, double weight, int64_t now);

  /// Charges every submitter's usage up to `now` and updates its real priority with
  /// pi = beta*pi + (1-beta)*rho, beta = 0.5^(dt/h), integrated exactly over the changes of
  /// usage inside the interval, so any spacing of updates gives the same result.
  void update(int64_t now);
  int64_t last_update() const { return last_update_; }

  /// The record of `name`, or null.
  const Record* find(std::string_view name) const;
  const std::vector<Record>& records() const { return records_; }

  double real_priority(std::string_view name) const;
  /// The factor in force for `name`: its own, else nice-user, remote, group or default.
  double factor(std::string_view name) const;
  /// Effective user priority: RUP x factor.
  double effective_priority(std::string_view name) const;

  // condor_userprio's edit operations. Each creates the record if it does not exist.
  void set_priority(const std::string& name, double rup, int64_t now);
  void set_factor(const std::string& name, double factor, int64_t now);
  void set_floor(const std::string& name, double floor, int64_t now);
  void set_ceiling(const std::string& name, double ceiling, int64_t now);
  void set_accumulated(const std::string& name, double weighted_secs, int64_t now);
  void set_begin_usage(const std::string& name, int64_t t, int64_t now);
  void set_last_usage(const std::string& name, int64_t t, int64_t now);
  /// -resetusage: accumulated usage to zero, usage beginning now (the priority stays, as in
  /// HTCondor); -resetall also puts every priority back to the minimum.
  bool reset_usage(std::string_view name, int64_t now);
  void reset_all(int64_t now);
  /// -delete: forgets the record. False when there was none.
  bool remove(std::string_view name);

  /// Charges the groups' records: each gets the usage of its submitters (`group_of` names the
  /// configured group of a submitter, "" or "<none>" for none) and of its subgroups' (dotted
  /// names); "<none>", the root, gets everyone's. Call after the submitters' set_usage.
  void set_group_usage(std::string (*group_of)(std::string_view submitter, const void* ctx),
                       const void* ctx, int64_t now);

  /// Adds a record as loaded from storage (replaces one of the same name).
  void restore(Record r);

 private:
  Record& get_or_add(const std::string& name, int64_t now);
  void charge(Record& r, int64_t now) const;
  Settings settings_;
  std::vector<Record> records_;
  struct GroupSum {
    std::string name;
    int64_t slots = 0;
    double weight = 0;
  };
  std::vector<GroupSum> group_sums_;  // set_group_usage()'s, kept for its buffers
  int64_t last_update_ = 0;
};

}  // namespace kite::accountant
