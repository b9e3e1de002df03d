// Slot-ad deltas for the collector link: hashes of each attribute, and the merge of the changed.
#include "agent/startd/ad_delta.h"

#include <cjson/cJSON.h>

#include <algorithm>
#include <functional>
#include <string_view>

#include "policy/classad/json.h"

namespace kite::agent {
namespace {

size_t hash_text(std::string_view s) {
  return std::hash<std::string_view>{}(s);
}

// The hash of one attribute's value as printed (unformatted JSON).
size_t value_hash(const cJSON* item) {
  char* printed = cJSON_PrintUnformatted(item);
  size_t h = printed ? hash_text(printed) : 0;
  cJSON_free(printed);
  return h;
}

const std::pair<size_t, size_t>* find_attr(const AdDigest& d, size_t key) {
  auto it = std::lower_bound(d.attrs.begin(), d.attrs.end(), std::make_pair(key, size_t{0}));
  return it != d.attrs.end() && it->first == key ? &*it : nullptr;
}

}  // namespace

AdDigest digest_ad(const std::string& json_text) {
  AdDigest d;
  d.whole = hash_text(json_text);
  cJSON* root = cJSON_ParseWithLength(json_text.data(), json_text.size());
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return d;
  }
  for (const cJSON* item = root->child; item; item = item->next) {
    if (item->string) d.attrs.emplace_back(hash_text(item->string), value_hash(item));
  }
  cJSON_Delete(root);
  std::sort(d.attrs.begin(), d.attrs.end());
  return d;
}

std::string ad_delta(const AdDigest& before, const AdDigest& now, const std::string& json_text) {
  if (before.attrs.empty() || now.attrs.empty()) return "";
  // Every attribute the collector holds must still be there: a merge cannot remove one.
  for (const auto& [key, value] : before.attrs) {
    if (!find_attr(now, key)) return "";
  }
  cJSON* root = cJSON_ParseWithLength(json_text.data(), json_text.size());
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return "";
  }
  // The names that did not change, to drop from the ad; Name always stays.
  std::vector<std::string> same;
  bool named = false;
  for (const cJSON* item = root->child; item; item = item->next) {
    if (!item->string) continue;
    if (std::string_view(item->string) == "Name") {
      named = true;
      continue;
    }
    const auto* held = find_attr(before, hash_text(item->string));
    if (held && held->second == value_hash(item)) same.emplace_back(item->string);
  }
  const size_t attrs = now.attrs.size() - (named ? 1 : 0);
  cJSON_Delete(root);
  if (!named || same.size() >= attrs) return "";
  // The merge is the ad itself less what did not change, printed by the ClassAd layer so that
  // expressions keep their "\/Expr(...)\/" form.
  classad::AdPtr ad = classad::classad_from_json(json_text);
  if (!ad) return "";
  for (const std::string& name : same) ad->remove(name);
  return classad::classad_to_json(*ad, false);
}

}  // namespace kite::agent
