// `kite status -pool HOST[:PORT]`: one query to the central manager's collector over mutual
// TLS with the user's certificate, the ads back as ClassAds.
#pragma once

#include <string>
#include <vector>

#include "agent/cli/status_format.h"
#include "policy/classad/classad.h"

namespace kite::cli {

/// Queries `pool` for the ads the options show. False with a message saying what failed
/// (unreachable CM, certificate not trusted, not authorized).
bool query_pool(const std::string& pool, const StatusOptions& o, std::vector<classad::AdPtr>* ads,
                std::string* err);

}  // namespace kite::cli
