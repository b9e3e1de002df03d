// The list of `kite cm`'s services beside the collector: each part of the CM adds its line here.
#include "agent/cm/cm_service.h"

#if KITE_HAS_JOB_STORE
#include "agent/negotiator/claims.h"
#include "agent/negotiator/runner.h"
#endif

namespace kite::cm {

std::vector<std::unique_ptr<CmService>> make_cm_services(CmContext* ctx, std::string* err) {
  (void)err;
  std::vector<std::unique_ptr<CmService>> services;
#if KITE_HAS_JOB_STORE
  if (ctx->jobs) {
    // The claims on the agents and the negotiator's cycles that make them.
    auto claims = std::make_unique<negotiator::ClaimLayer>(ctx);
    auto runner = std::make_unique<negotiator::NegotiatorRunner>(ctx, claims.get());
    negotiator::ClaimLayer* c = claims.get();
    negotiator::NegotiatorRunner* r = runner.get();
    ctx->reschedule = [r] { r->reschedule(); };
    ctx->stop_job = [c](int32_t cluster, int32_t proc, bool requeue) {
      c->stop_job(cluster, proc, requeue);
    };
    c->start();
    r->start();
    services.push_back(std::move(claims));
    services.push_back(std::move(runner));
  }
#else
  (void)ctx;
#endif
  return services;
}

}  // namespace kite::cm
