// The rooster of `kite cm`: every ROOSTER_INTERVAL it wakes the offline machines the pure
// choice (policy/negotiator/rooster.h) picks, with a Wake-on-LAN magic packet Kite sends itself
// or, when ROOSTER_WAKEUP_CMD is set, that command with the machine's offline ad on stdin.
#pragma once

#include <memory>
#include <string>

#include "agent/cm/cm_service.h"

namespace kite::cm {

/// The rooster when the configuration asks for one (ROOSTER_INTERVAL set, or ROOSTER in
/// DAEMON_LIST), else null. Null with `err` when a ROOSTER_* setting is wrong.
std::unique_ptr<CmService> make_rooster(CmContext* ctx, std::string* err);

}  // namespace kite::cm
