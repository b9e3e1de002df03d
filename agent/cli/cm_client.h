// One request to the central manager over mutual TLS with the user's certificate (~/.kite/ or
// KITE_CA/KITE_CERT/KITE_KEY): a libuv loop, a NetClient that tries once, replies until done.
#pragma once

#include <functional>
#include <string>

#include "agent/core/frame.h"

namespace kite::cli {

/// Hears each reply; returns true when the exchange is over (`err` set when it failed).
using CmReplyFn = std::function<bool(core::Json& reply, std::string* err)>;

/// Sends `request` to `pool` (HOST[:PORT]) once connected and runs until `on_reply` says done.
/// False with a message saying what failed (unreachable CM, certificate not trusted, an error
/// frame from the CM, no answer in time); `what` names the request there ("query").
bool cm_request(const std::string& pool, const char* client_name, const std::string& what,
                const core::Json& request, const CmReplyFn& on_reply, std::string* err);

}  // namespace kite::cli
