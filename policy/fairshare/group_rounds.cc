// Group rounds: negotiation order of the groups and the pie spin each one runs.
#include "policy/fairshare/group_rounds.h"

#include <algorithm>

namespace kite::fairshare {

PieSubmitter pie_submitter(const accountant::Accountant& acc, const std::string& name,
                           double demand) {
  PieSubmitter s;
  s.name = name;
  s.eup = acc.effective_priority(name);
  s.demand = demand;
  s.nice = accountant::is_nice_user(name);
  if (const accountant::Record* r = acc.find(name)) {
    s.usage = r->weighted_in_use;
    s.floor = r->floor;
    s.ceiling = r->ceiling;
  }
  return s;
}

std::vector<GroupRound> group_rounds(const GroupSettings& settings,
                                     const std::vector<GroupQuota>& quotas,
                                     const std::vector<PieSubmitter>& submitters,
                                     const std::vector<std::string>& group_of,
                                     const std::vector<double>* keys) {
  std::vector<GroupRound> rounds;
  for (size_t g : negotiation_order(quotas, keys)) {
    GroupRound r;
    r.group = quotas[g].name;
    r.quota = quotas[g].allocated;
    // Without GROUP_NAMES HTCondor applies no group quota: what the submitters hold (those with
    // only running jobs included) limits nothing but their own pie slices.
    r.unlimited = settings.groups.empty();
    for (size_t i = 0; i < submitters.size(); ++i) {
      const std::string& mine = i < group_of.size() ? group_of[i] : std::string(kNoGroup);
      if (mine != r.group && !(r.group == kNoGroup && mine.empty())) continue;
      r.members.push_back(i);
      r.usage += submitters[i].usage;
    }
    if (!r.members.empty()) rounds.push_back(std::move(r));
  }
  GroupRound again;
  again.group = std::string(kNoGroup);
  again.autoregroup = true;
  for (size_t i = 0; i < submitters.size() && i < group_of.size(); ++i) {
    for (const GroupConfig& g : settings.groups) {
      if (g.name != group_of[i] || !g.autoregroup) continue;
      again.members.push_back(i);
      again.usage += submitters[i].usage;
    }
  }
  if (!again.members.empty()) rounds.push_back(std::move(again));
  return rounds;
}

PieSpin round_pie(const GroupRound& round, const std::vector<PieSubmitter>& submitters,
                  double pool_weight, double free_weight, double min_slot_weight) {
  std::vector<PieSubmitter> members;
  for (size_t i : round.members) members.push_back(submitters[i]);
  if (round.autoregroup || round.unlimited)
    return PieSpin(std::move(members), pool_weight, free_weight, min_slot_weight);
  const double room = std::max(0.0, round.quota - round.usage);
  return PieSpin(std::move(members), round.quota, std::min(free_weight, room), min_slot_weight);
}

}  // namespace kite::fairshare
