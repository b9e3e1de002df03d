// Accounting ads: a record to its ClassAd and back.
#include "policy/accountant/accounting_ad.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace kite::accountant {
namespace {

using classad::Value;

// Reads a number attribute (integer or real); absent leaves *out as it is.
bool read_number(const classad::ClassAd& ad, const char* name, double* out, std::string* error) {
  if (!ad.lookup(name)) return true;
  double d = 0;
  if (ad.evaluate_real(name, d)) {
    *out = d;
    return true;
  }
  int64_t i = 0;
  if (ad.evaluate_int(name, i)) {
    *out = double(i);
    return true;
  }
  *error = std::string("attribute ") + name + " is not a number";
  return false;
}

bool read_time(const classad::ClassAd& ad, const char* name, int64_t* out, std::string* error) {
  double d = double(*out);
  if (!read_number(ad, name, &d, error)) return false;
  *out = int64_t(d);
  return true;
}

}  // namespace

double published_priority(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", p);
  return std::strtod(buf, nullptr);
}

classad::AdPtr record_to_ad(const Accountant& acc, const Record& r, const std::string& group) {
  classad::AdPtr ad(classad::ClassAd::make());
  ad->insert_value("MyType", Value::string("Accounting"));
  ad->insert_value("Name", Value::string(r.name));
  ad->insert_value("AccountingGroup", Value::string(group));
  ad->insert_value("IsAccountingGroup", Value::boolean(false));
  // Priority in the ad is the effective priority; condor_userprio divides by the factor.
  ad->insert_value("Priority", Value::real(published_priority(acc.effective_priority(r.name))));
  ad->insert_value("PriorityFactor", Value::real(acc.factor(r.name)));
  ad->insert_value("Floor", Value::integer(int64_t(r.floor)));
  ad->insert_value("Ceiling", Value::integer(int64_t(r.ceiling)));
  ad->insert_value("ResourcesUsed", Value::integer(r.resources_used));
  ad->insert_value("WeightedResourcesUsed", Value::real(r.weighted_in_use));
  ad->insert_value("AccumulatedUsage", Value::real(r.accumulated));
  ad->insert_value("WeightedAccumulatedUsage", Value::real(r.weighted_accumulated));
  ad->insert_value("BeginUsageTime", Value::integer(r.begin_usage));
  ad->insert_value("LastUsageTime", Value::integer(r.last_usage));
  ad->insert_value("LastUpdate", Value::integer(r.charged_until));
  ad->insert_value("UnchargedTime", Value::integer(int64_t(r.uncharged_secs)));
  ad->insert_value("WeightedUnchargedTime", Value::real(r.uncharged_weight_secs));
  // Exact state for storage; HTCondor's ad rounds Priority and has no equivalent.
  ad->insert_value("KitePriority", Value::real(r.priority));
  ad->insert_value("KiteFactor", Value::real(r.factor));
  ad->insert_value("KiteFloor", Value::real(r.floor));
  ad->insert_value("KiteCeiling", Value::real(r.ceiling));
  ad->insert_value("KiteChargedUntil", Value::integer(r.charged_until));
  ad->insert_value("KiteInUseSince", Value::integer(r.in_use_since));
  ad->insert_value("KiteUncharged", Value::real(r.uncharged));
  ad->insert_value("KiteUnchargedSecs", Value::real(r.uncharged_secs));
  if (r.is_group) ad->insert_value("IsAccountingGroup", Value::boolean(true));
  return ad;
}

bool record_from_ad(const classad::ClassAd& ad, Record* out, std::string* error) {
  Record r;
  if (!ad.evaluate_string("Name", r.name) || r.name.empty()) {
    *error = "Accounting ad without a Name";
    return false;
  }
  double resources = 0, eup = 0, in_force = 0;
  bool ok = read_number(ad, "Priority", &eup, error) &&
            read_number(ad, "PriorityFactor", &in_force, error);
  r.factor = in_force;
  ok = ok && read_number(ad, "KiteFactor", &r.factor, error) &&
       read_number(ad, "Floor", &r.floor, error) && read_number(ad, "KiteFloor", &r.floor, error) &&
       read_number(ad, "Ceiling", &r.ceiling, error) &&
       read_number(ad, "KiteCeiling", &r.ceiling, error) &&
       read_number(ad, "ResourcesUsed", &resources, error) &&
       read_number(ad, "WeightedResourcesUsed", &r.weighted_in_use, error) &&
       read_number(ad, "AccumulatedUsage", &r.accumulated, error) &&
       read_number(ad, "WeightedAccumulatedUsage", &r.weighted_accumulated, error) &&
       read_time(ad, "BeginUsageTime", &r.begin_usage, error) &&
       read_time(ad, "LastUsageTime", &r.last_usage, error) &&
       read_time(ad, "LastUpdate", &r.charged_until, error) &&
       read_time(ad, "KiteChargedUntil", &r.charged_until, error) &&
       read_number(ad, "WeightedUnchargedTime", &r.uncharged_weight_secs, error) &&
       read_number(ad, "UnchargedTime", &r.uncharged_secs, error) &&
       read_number(ad, "KiteUnchargedSecs", &r.uncharged_secs, error) &&
       read_number(ad, "KiteUncharged", &r.uncharged, error);
  if (ok && in_force > 0 && eup > 0) r.priority = std::max(eup / in_force, kMinPriority);
  ok = ok && read_number(ad, "KitePriority", &r.priority, error);
  if (!ok) {
    *error = "Accounting ad of " + r.name + ": " + *error;
    return false;
  }
  r.in_use_since = r.charged_until;
  if (!read_time(ad, "KiteInUseSince", &r.in_use_since, error)) {
    *error = "Accounting ad of " + r.name + ": " + *error;
    return false;
  }
  r.resources_used = int64_t(resources);
  bool group = false;
  if (ad.evaluate_bool("IsAccountingGroup", group)) r.is_group = group;
  *out = std::move(r);
  return true;
}

classad::AdPtr group_to_ad(const Accountant& acc, const Record& r,
                           const fairshare::GroupQuota* quota, double sort_key) {
  classad::AdPtr ad = record_to_ad(acc, r, r.name);
  for (const char* gone : {"Ceiling", "Floor", "UnchargedTime", "WeightedUnchargedTime"})
    ad->remove(gone);
  ad->insert_value("IsAccountingGroup", Value::boolean(true));
  ad->insert_value("ConfigQuota", Value::real(quota ? quota->config_quota : 0));
  ad->insert_value("EffectiveQuota", Value::real(quota ? quota->allocated : 0));
  ad->insert_value("SubtreeQuota", Value::real(quota ? quota->effective_quota : 0));
  ad->insert_value("Requested", Value::real(quota ? quota->requested : 0));
  ad->insert_value("GroupSortKey", Value::real(sort_key));
  ad->insert_value("SurplusPolicy", Value::string("byquota"));
  return ad;
}

}  // namespace kite::accountant
