// ClassAds carried as JSON text inside frames and files (see ad_json.h).
#include "agent/core/ad_json.h"

#include "policy/classad/json.h"

namespace kite::core {

void set_ad(Json* msg, const char* key, const classad::ClassAd& ad) {
  msg->set(key, classad::classad_to_json(ad, false));
}

classad::AdPtr get_ad(const Json& msg, const char* key, std::string* err) {
  const cJSON* c = msg.child(key);
  if (!cJSON_IsString(c)) {
    if (err) *err = std::string("\"") + key + "\" is not an ad (JSON text in a string)";
    return classad::AdPtr();
  }
  classad::ParseError pe;
  classad::AdPtr ad = classad::classad_from_json(c->valuestring, &pe);
  if (!ad && err) *err = std::string("\"") + key + "\": " + pe.to_string();
  return ad;
}

cJSON* ad_raw_item(const classad::ClassAd& ad) {
  return cJSON_CreateRaw(classad::classad_to_json(ad, false).c_str());
}

}  // namespace kite::core
