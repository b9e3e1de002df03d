// One conversation of a CLI command with the central manager over mutual TLS, with the user's
// certificate (~/.kite/ or KITE_CA/KITE_CERT/KITE_KEY): connect once, send the request, read
// replies until the conversation says it is over.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "agent/core/frame.h"
#include "agent/net/client.h"

namespace kite::cli {

class CmConversation {
 public:
  virtual ~CmConversation() = default;
  /// Connected: send the request's frames.
  virtual void start(net::NetClient* c) = 0;
  /// A reply (never an "error" frame: those end the conversation with the CM's message). Set
  /// `*done` when the conversation is over; return false for a type it does not know.
  virtual bool on_reply(net::NetClient* c, core::Json& msg, bool* done) = 0;
};

/// Talks to the CM at `pool` ("host[:port]"). `what` names the request in messages ("the
/// query", "the submit"). False with `err` saying what failed: unreachable, certificate not
/// trusted, refused (the CM's own words), or no answer in `timeout_ms`.
bool talk_to_cm(const std::string& pool, const std::string& what, CmConversation* conv,
                uint64_t timeout_ms, std::string* err);

/// Takes one reply frame of cm_request; false for a type it does not know, sets *done after the
/// last.
using CmReplyFn = std::function<bool(core::Json& msg, bool* done)>;

/// talk_to_cm for one request frame: sends `request` once connected and feeds the replies to
/// `on_reply`. `what` names the request in messages ("command").
bool cm_request(const std::string& pool, const char* what, const core::Json& request,
                const CmReplyFn& on_reply, std::string* err);

/// The CM to talk to: `given` (-pool) when set, else COLLECTOR_HOST from $KITE_CONFIG or
/// /etc/kite/kite.conf. False with a message when neither names one.
bool cm_address(const std::string& given, std::string* out, std::string* err);

}  // namespace kite::cli
