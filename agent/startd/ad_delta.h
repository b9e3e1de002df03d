// Which attributes of a slot ad changed since a collector last heard it, so that after the full
// ad the agent sends only those (a merge), as the fleet protocol asks.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kite::agent {

/// What a collector holds of one ad, kept as hashes: (attribute name, value) per attribute,
/// sorted by name hash, and the whole text's hash. No second copy of the ad.
struct AdDigest {
  size_t whole = 0;
  std::vector<std::pair<size_t, size_t>> attrs;
};

/// The digest of an ad in ad_json's form (one JSON object). Empty attrs if it is not one.
AdDigest digest_ad(const std::string& json_text);

/// The merge to send for `json_text` (whose digest is `now`) to a collector holding `before`:
/// a JSON object with Name and every attribute whose value changed or is new. Empty when the
/// whole ad must go instead: nothing known before, an attribute disappeared (a merge cannot
/// remove one), no change found, or the text is not a JSON object with a Name.
std::string ad_delta(const AdDigest& before, const AdDigest& now, const std::string& json_text);

}  // namespace kite::agent
