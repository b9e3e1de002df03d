// The central manager's figures in the OpenMetrics text format (what GET /metrics answers):
// ads by type and state, collector updates, connections, handshake failures, query latency,
// jobs by status and the negotiator's last cycle.
#pragma once

#include <string>

#include "agent/cm/cm_service.h"

namespace kite::cm {

/// The content type of render_metrics()'s text.
extern const char kOpenMetricsType[];

/// Every figure of `ctx` (its collector, queue and negotiator), ending with "# EOF\n".
std::string render_metrics(const CmContext& ctx);

}  // namespace kite::cm
