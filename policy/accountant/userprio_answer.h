// condor_userprio's answer from the accountant's state, pure: the Accounting ads the CM
// publishes (one per submitter, one per group) and the text a display request prints.
#pragma once

#include <string>
#include <vector>

#include "policy/accountant/accountant.h"
#include "policy/accountant/userprio_options.h"
#include "policy/classad/classad.h"
#include "policy/fairshare/group_quotas.h"

namespace kite::accountant {

/// The Accounting ads: the submitters' (each with its configured group, "<none>" for none)
/// in ascending effective priority, then the groups' ("<none>" first), with this cycle's
/// quotas where a group has one.
std::vector<classad::AdPtr> accounting_ads(const Accountant& acc,
                                           const fairshare::GroupSettings& groups,
                                           const std::vector<fairshare::GroupQuota>& quotas);

/// What a display request (table, -quotas, -long, -af) prints. Edits and usage errors are
/// not displays: "" for them.
std::string render_userprio(const Accountant& acc, const fairshare::GroupSettings& groups,
                            const std::vector<fairshare::GroupQuota>& quotas,
                            const UserprioRequest& req);

}  // namespace kite::accountant
