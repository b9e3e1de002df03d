// A submitter's accountant record as an Accounting ClassAd (the attributes condor_userprio
// -long shows), and back: how the CM stores records and answers userprio queries.
#pragma once

#include <string>

#include "policy/accountant/accountant.h"
#include "policy/classad/classad.h"
#include "policy/fairshare/group_quotas.h"

namespace kite::accountant {

/// The record as an Accounting ad: Name, Priority (the effective priority), PriorityFactor (the
/// factor in force), Floor, Ceiling, ResourcesUsed, WeightedResourcesUsed, AccumulatedUsage,
/// WeightedAccumulatedUsage, BeginUsageTime, LastUsageTime, LastUpdate, UnchargedTime,
/// WeightedUnchargedTime, AccountingGroup, IsAccountingGroup, MyType; plus the Kite-only
/// charging state (KiteChargedUntil, KiteInUseSince, KiteUncharged) so a record stored between
/// updates loads back exactly. `group` is the record's group ("<none>" when it has none).
classad::AdPtr record_to_ad(const Accountant& acc, const Record& r, const std::string& group);

/// A group's record (<none> or a GROUP_NAMES group) as its Accounting ad: the same without
/// Floor/Ceiling/UnchargedTime, with IsAccountingGroup, ConfigQuota, EffectiveQuota (the
/// allocation this cycle), SubtreeQuota, Requested, GroupSortKey and SurplusPolicy. `quota`
/// null: no quota (all zero).
classad::AdPtr group_to_ad(const Accountant& acc, const Record& r,
                           const fairshare::GroupQuota* quota, double sort_key = 0);

/// Reads a record back from such an ad. False, with *error naming the attribute, when Name is
/// missing or an attribute has the wrong type.
bool record_from_ad(const classad::ClassAd& ad, Record* out, std::string* error);

/// Priority as HTCondor publishes it: 6 significant digits (5.00164, 500.34).
double published_priority(double p);

}  // namespace kite::accountant
