// The CM's /metrics endpoint: a small HTTP/1.1 server on the CM's loop (CM_METRICS_ADDRESS,
// loopback unless told otherwise) that answers GET /metrics with render_metrics()'s text.
// Requests are parsed by nodejs' http-parser (Debian's libhttp-parser); each connection
// carries one request, with caps on its size and time so a hostile client cannot hold the CM.
#pragma once

#include <memory>
#include <string>

#include "agent/cm/cm_service.h"

namespace kite::cm {

/// The endpoint when CM_METRICS_ADDRESS is set (not "off"), listening already; else null.
/// Null with `err` when the address does not read or cannot be bound.
std::unique_ptr<CmService> make_metrics_endpoint(CmContext* ctx, std::string* err);

}  // namespace kite::cm
