// Signal names and numbers as job ads spell them (KillSig = "SIGTERM", "TERM" or 15).
#pragma once

#include <string_view>

namespace kite::starter {

/// "SIGTERM", "term", "TERM" or "15" -> 15; -1 when it is not a signal.
int signal_parse(std::string_view s);
/// "SIGTERM" for 15; "SIG<n>" for numbers without a name.
const char* signal_name(int sig);

}  // namespace kite::starter
