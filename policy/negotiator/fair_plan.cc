// The cycle's fair-share plan (see fair_plan.h).
#include "policy/negotiator/fair_plan.h"

#include <map>

namespace kite::negotiator {

void fair_plan(const CycleInput& in, const CycleSettings& settings,
               const std::vector<double>& demand, double pool_weight, FairPlan* out,
               std::vector<std::string>* warnings) {
  out->use_slot_weights = settings.use_slot_weights;
  out->groups = settings.groups;
  out->limits = fairshare::LimitTracker(settings.limits);
  out->limits.acquire(in.limits_in_use);

  std::map<std::string, fairshare::GroupDemand> by_group;
  for (size_t i = 0; i < in.submitters.size(); ++i) {
    const Submitter& s = in.submitters[i];
    fairshare::PieSubmitter p;
    p.name = s.name;
    p.eup = s.priority;
    p.usage = s.usage;
    p.demand = i < demand.size() ? demand[i] : 0;
    p.floor = s.floor;
    p.ceiling = s.ceiling;
    p.nice = s.nice;
    out->pies.push_back(p);
    const std::string user = s.name.substr(0, s.name.rfind('@'));
    std::string group = s.group.empty() ? fairshare::group_of(out->groups, user) : s.group;
    fairshare::GroupDemand& d = by_group[group];
    d.name = group;
    d.usage += p.usage;
    d.requested += p.usage + p.demand;
    out->group_of.push_back(std::move(group));
  }
  std::vector<fairshare::GroupDemand> demands;
  for (auto& [name, d] : by_group) demands.push_back(d);
  out->quotas = fairshare::compute_group_quotas(out->groups, pool_weight, demands);
  std::vector<double> keys;
  const std::vector<double>* use_keys = nullptr;
  if (!out->groups.sort_expr.empty()) {
    std::string error;
    if (fairshare::group_sort_keys(out->groups.sort_expr, out->quotas, &keys, &error)) {
      use_keys = &keys;
    } else {
      warnings->push_back("GROUP_SORT_EXPR: " + error);
    }
  }
  out->rounds =
      fairshare::group_rounds(out->groups, out->quotas, out->pies, out->group_of, use_keys);
}

}  // namespace kite::negotiator
