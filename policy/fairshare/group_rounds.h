// How the cycle combines group quotas and the pie spin, pure: one round per group in
// negotiation order (<none> last), each a pie spin over the group's own submitters with the
// group's quota as its pie, then a last round in <none> for GROUP_AUTOREGROUP submitters.
#pragma once

#include <string>
#include <vector>

#include "policy/accountant/accountant.h"
#include "policy/fairshare/group_quotas.h"
#include "policy/fairshare/pie_spin.h"

namespace kite::fairshare {

/// A submitter as the pie spin needs it, from its accountant record: EUP, slot weight held,
/// floor, ceiling, nice-user; `demand` is the slot weight of its idle jobs.
PieSubmitter pie_submitter(const accountant::Accountant& acc, const std::string& name,
                           double demand);

struct GroupRound {
  std::string group;            // "<none>" or the configured group's name
  double quota = 0;             // slot weight its submitters may hold (allocation with surplus)
  double usage = 0;             // slot weight they hold now
  std::vector<size_t> members;  // indices into the cycle's submitters
  bool autoregroup = false;     // the last round: autoregrouped submitters over what is left
  bool unlimited = false;       // no groups configured: the one round has no quota to keep
};

/// The rounds of one cycle. `group_of[i]` is submitter i's group (as group_of() gives it);
/// `quotas` comes from compute_group_quotas(); `keys` are GROUP_SORT_EXPR's values or null.
/// Without configured groups there is one round, <none>, whose quota is the whole pool.
std::vector<GroupRound> group_rounds(const GroupSettings& settings,
                                     const std::vector<GroupQuota>& quotas,
                                     const std::vector<PieSubmitter>& submitters,
                                     const std::vector<std::string>& group_of,
                                     const std::vector<double>* keys = nullptr);

/// The pie spin of one round: its members' shares of the round's quota (of the whole pool,
/// `pool_weight`, for the autoregroup round), handing out at most what the group may still
/// take of `free_weight`. `submitters` carry each one's demand still unmatched this cycle. The
/// spin's slices index `round.members`.
PieSpin round_pie(const GroupRound& round, const std::vector<PieSubmitter>& submitters,
                  double pool_weight, double free_weight, double min_slot_weight = 1);

}  // namespace kite::fairshare
