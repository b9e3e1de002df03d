// HTCondor's private attributes (ClassAdAttributeIsPrivateAny), which its tools' -l, -json and -xml
// never print.
#pragma once
#include <strings.h>

#include <string_view>

namespace kite::queue {

inline bool private_attr(std::string_view name) {
  static const char* const kPrivate[] = {"Capability",  "ChildClaimIds", "ClaimId",
                                         "ClaimIdList", "ClaimIds",      "TransferKey"};
  std::string_view prefix = "_condor_priv";
  if (name.size() >= prefix.size() && strncasecmp(name.data(), prefix.data(), prefix.size()) == 0)
    return true;
  for (std::string_view p : kPrivate) {
    if (p.size() == name.size() && strncasecmp(p.data(), name.data(), p.size()) == 0) return true;
  }
  return false;
}

}  // namespace kite::queue
