// Hierarchical group quotas, pure: GROUP_NAMES and the GROUP_QUOTA_* settings, the quota each
// group gets from the pool's slot weight (scaled, dynamic), bottom-up surplus sharing, and the
// order the groups negotiate in. HTCONDOR: admin-manual/cm-configuration "Accounting Groups
// with Hierarchical Group Quotas".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "policy/config/config.h"

namespace kite::fairshare {

/// The root group: every job without a configured group.
inline constexpr std::string_view kNoGroup = "<none>";

/// One configured group.
struct GroupConfig {
  std::string name;             // as written in GROUP_NAMES ("group_physics.hep")
  bool has_quota = false;       // GROUP_QUOTA_<g> or GROUP_QUOTA_DYNAMIC_<g> is set
  bool dynamic = false;         // the quota is a fraction of the parent's
  double quota = 0;             // slot weight, or the fraction when dynamic
  bool accept_surplus = false;  // GROUP_ACCEPT_SURPLUS_<g>, else GROUP_ACCEPT_SURPLUS
  bool autoregroup = false;     // GROUP_AUTOREGROUP_<g>, else GROUP_AUTOREGROUP
};

struct GroupSettings {
  std::vector<GroupConfig> groups;     // in GROUP_NAMES order
  bool allow_oversubscription = true;  // NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION (25: True)
  bool none_autoregroup = false;       // GROUP_AUTOREGROUP for the <none> group's own jobs
  std::string sort_expr;               // GROUP_SORT_EXPR ("" = starvation order)
};

/// Reads GROUP_NAMES and the group settings. Errors name the setting and where it was set: a
/// quota that is not a number, a dynamic quota outside 0..1, a group named twice, a subgroup
/// whose parent is not in GROUP_NAMES.
config::Status group_settings_from_config(const config::Config& cfg, GroupSettings* out);

/// What a cycle knows of one group's own submitters (not its subgroups').
struct GroupDemand {
  std::string name;      // a configured group (any case) or "<none>"
  double usage = 0;      // slot weight its submitters hold
  double requested = 0;  // slot weight of its running and idle jobs
};

/// One group's quotas for a cycle.
struct GroupQuota {
  std::string name;         // as configured; "<none>" first
  int parent = -1;          // index in the result; -1 for <none>
  double config_quota = 0;  // as configured (slot weight, or the fraction when dynamic)
  bool dynamic = false;
  bool accept_surplus = false;
  double effective_quota = 0;    // slot weight after dynamic and scaled quotas, before surplus
                                 // (condor_userprio -quotas "Effective Quota"); includes subgroups
  double own_quota = 0;          // the part of it left for the group's own submitters
  double allocated = 0;          // what its own submitters may hold this cycle, surplus included
  double usage = 0;              // of its own submitters
  double requested = 0;          // of its own submitters
  double subtree_requested = 0;  // the group's and its subgroups'
};

/// The quotas of every group for a pool of `pool_weight` slot weight: index 0 is <none>, then
/// the groups in GROUP_NAMES order. Demand for unknown groups counts as <none>'s.
std::vector<GroupQuota> compute_group_quotas(const GroupSettings& settings, double pool_weight,
                                             const std::vector<GroupDemand>& demand);

/// The configured group a job's accounting group belongs to ("group_physics.hep" for
/// "group_physics.hep.higgs" or "group_physics.hep"), matched case-insensitively and spelt as
/// configured, or "<none>". `accounting_group` is AcctGroup if the job has it, else
/// AccountingGroup (its user part is dropped when it does not name a group).
std::string group_of(const GroupSettings& settings, std::string_view accounting_group);

/// GROUP_SORT_EXPR's value for each group (index as in `quotas`), evaluated in an ad with
/// AccountingGroup, GroupQuota (the effective quota), GroupResourcesInUse and
/// GroupResourcesAllocated (this cycle's allocation). A value that is not a number sorts last.
/// False with *error when the expression does not parse.
bool group_sort_keys(std::string_view expr, const std::vector<GroupQuota>& quotas,
                     std::vector<double>* keys, std::string* error);

/// The order groups negotiate in: by `keys` (GROUP_SORT_EXPR's values, one per group, smallest
/// positive first, then the others) when given, else starvation order (smallest usage/quota
/// first); <none> always last. Returns indices into `quotas`.
std::vector<size_t> negotiation_order(const std::vector<GroupQuota>& quotas,
                                      const std::vector<double>* keys = nullptr);

}  // namespace kite::fairshare
