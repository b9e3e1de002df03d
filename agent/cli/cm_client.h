// The CLI's one exchange with the central manager: a libuv loop, a NetClient with the user's
// certificate that tries once, one request sent, the replies handed over until the last.
#pragma once

#include <functional>
#include <string>

#include "agent/core/frame.h"

namespace kite::cli {

/// Takes one reply frame; returns false for a type it does not know, sets *done after the last.
using CmReplyFn = std::function<bool(core::Json& msg, bool* done)>;

/// Sends `request` to the CM at `pool` (HOST[:PORT]) and feeds the replies to `on_reply`.
/// `what` names the request in messages ("query", "command"). False with a message saying
/// what failed: an unreachable CM, a certificate either side does not trust, a refusal
/// ("not authorized"), no answer in time.
bool cm_request(const std::string& pool, const char* what, const core::Json& request,
                const CmReplyFn& on_reply, std::string* err);

}  // namespace kite::cli
