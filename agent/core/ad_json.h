// ClassAds inside Kite's JSON frames and files. HTCondor's JSON ad convention marks
// expressions with escaped slashes ("\/Expr(...)\/"), which a JSON parser decodes away, so an
// ad never travels as a parsed sub-object: frames carry its JSON text as a string, files embed
// it verbatim (readers take the member's raw text).
#pragma once

#include <cjson/cJSON.h>

#include <string>

#include "agent/core/frame.h"
#include "policy/classad/classad.h"

namespace kite::core {

/// `msg[key]` = the ad's JSON text, as a string.
void set_ad(Json* msg, const char* key, const classad::ClassAd& ad);
/// Parses the ad carried by set_ad(); null with a message naming the key on failure.
classad::AdPtr get_ad(const Json& msg, const char* key, std::string* err);
/// An item holding the ad's JSON text verbatim (cJSON raw), for files read as raw text.
cJSON* ad_raw_item(const classad::ClassAd& ad);

}  // namespace kite::core
