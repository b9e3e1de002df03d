// condor_userprio's answer: the Accounting ads and the display a request asks for.
#include "policy/accountant/userprio_answer.h"

#include <algorithm>

#include "policy/accountant/accounting_ad.h"
#include "policy/accountant/userprio_format.h"

namespace kite::accountant {
namespace {

std::string user_group(const fairshare::GroupSettings& groups, const std::string& name) {
  return fairshare::group_of(groups, std::string_view(name).substr(0, name.rfind('@')));
}

const fairshare::GroupQuota* quota_of(const std::vector<fairshare::GroupQuota>& quotas,
                                      const std::string& name) {
  for (const fairshare::GroupQuota& q : quotas)
    if (q.name == name) return &q;
  return nullptr;
}

// The exact charging state kept for storage (Kite*) is not part of the published ad.
classad::AdPtr published(classad::AdPtr ad) {
  for (const char* k : {"KitePriority", "KiteFactor", "KiteFloor", "KiteCeiling",
                        "KiteChargedUntil", "KiteInUseSince", "KiteUncharged", "KiteUnchargedSecs"})
    ad->remove(k);
  return ad;
}

}  // namespace

std::vector<classad::AdPtr> accounting_ads(const Accountant& acc,
                                           const fairshare::GroupSettings& groups,
                                           const std::vector<fairshare::GroupQuota>& quotas) {
  std::vector<const Record*> users, group_records;
  for (const Record& r : acc.records()) (r.is_group ? group_records : users).push_back(&r);
  std::stable_sort(users.begin(), users.end(), [&](const Record* a, const Record* b) {
    return acc.effective_priority(a->name) < acc.effective_priority(b->name);
  });
  // "<none>" first, then the groups in GROUP_NAMES order.
  auto rank = [&](const Record* r) {
    if (r->name == fairshare::kNoGroup) return size_t(0);
    for (size_t i = 0; i < groups.groups.size(); ++i)
      if (groups.groups[i].name == r->name) return i + 1;
    return groups.groups.size() + 1;
  };
  std::stable_sort(group_records.begin(), group_records.end(),
                   [&](const Record* a, const Record* b) { return rank(a) < rank(b); });
  std::vector<classad::AdPtr> ads;
  for (const Record* r : users)
    ads.push_back(published(record_to_ad(acc, *r, user_group(groups, r->name))));
  for (const Record* r : group_records)
    ads.push_back(published(group_to_ad(acc, *r, quota_of(quotas, r->name))));
  return ads;
}

std::string render_userprio(const Accountant& acc, const fairshare::GroupSettings& groups,
                            const std::vector<fairshare::GroupQuota>& quotas,
                            const UserprioRequest& req) {
  using Kind = UserprioRequest::Kind;
  UserprioView view = req.view;
  view.groups = &groups;
  switch (req.kind) {
    case Kind::kTable: return render_userprio_table(acc, view);
    case Kind::kQuotas: return render_userprio_quotas(acc, quotas, view);
    case Kind::kLong:
    case Kind::kAf: {
      std::vector<classad::AdPtr> ads = accounting_ads(acc, groups, quotas);
      std::vector<const classad::ClassAd*> shown;
      for (const classad::AdPtr& ad : ads) {
        std::string name;
        ad->evaluate_string("Name", name);
        const auto& users = req.view.users;
        if (users.empty() || std::find(users.begin(), users.end(), name) != users.end())
          shown.push_back(ad.get());
      }
      return req.kind == Kind::kLong ? render_userprio_long(shown)
                                     : render_userprio_af(shown, req.af_attrs, req.af_header);
    }
    case Kind::kEdit:
    case Kind::kUsage: return "";
  }
  return "";
}

}  // namespace kite::accountant
