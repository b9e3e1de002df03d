// The list of `kite cm`'s services beside the collector: each part of the CM adds its line here.
#include "agent/cm/cm_service.h"
#include "agent/cm/defrag_service.h"
#include "agent/cm/metrics_http.h"
#include "agent/cm/rooster_service.h"
#include "policy/config/typed.h"
#if KITE_HAS_JOB_STORE
#include "agent/cm/job_commits.h"
#include "agent/cm/queue_service.h"
#endif

#if KITE_HAS_JOB_STORE
#include "agent/negotiator/accounting.h"
#include "agent/negotiator/claims.h"
#include "agent/negotiator/runner.h"
#endif
#include "agent/cm/node_commands.h"

namespace kite::cm {

std::vector<std::unique_ptr<CmService>> make_cm_services(CmContext* ctx, std::string* err) {
  std::vector<std::unique_ptr<CmService>> services;
  auto nodes = std::make_unique<NodeCommands>(ctx);
  NodeCommands* node_commands = nodes.get();
  services.push_back(std::move(nodes));
  services.push_back(make_rooster(ctx, err));
  if (!err->empty()) return services;
  services.push_back(make_defrag(ctx, node_commands, err));
  if (!err->empty()) return services;
  services.push_back(make_metrics_endpoint(ctx, err));
  if (!err->empty()) return services;
#if KITE_HAS_JOB_STORE
  if (ctx->jobs) {
    QueueSettings q;
    config::Status st = queue_policy::load_submit_policy(*ctx->cfg, &q.submit);
    if (st.ok) st = queue_policy::load_system_periodic(*ctx->cfg, &q.periodic);
    if (st.ok)
      st = config::read_int(*ctx->cfg, "MAX_JOBS_PER_SUBMISSION", &q.max_procs, nullptr, 1);
    if (st.ok)
      st =
          config::read_int(*ctx->cfg, "PERIODIC_EXPR_INTERVAL", &q.periodic_interval_s, nullptr, 1);
    if (!st.ok) {
      *err = st.message;
      return services;
    }
    // Job updates of a loop turn are committed together, before the frames relying on them.
    auto commits = std::make_unique<JobCommits>(ctx);
    ctx->commits = commits.get();
    commits->start();
    services.push_back(std::move(commits));
    services.push_back(std::make_unique<QueueService>(ctx, std::move(q)));
    // The claims on the agents and the negotiator's cycles that make them.
    auto claims = std::make_unique<negotiator::ClaimLayer>(ctx);
    auto accounting = std::make_unique<negotiator::Accounting>(ctx, claims.get());
    if (!accounting->start(err)) return services;
    auto runner =
        std::make_unique<negotiator::NegotiatorRunner>(ctx, claims.get(), accounting.get());
    negotiator::ClaimLayer* c = claims.get();
    negotiator::NegotiatorRunner* r = runner.get();
    ctx->reschedule = [r] { r->reschedule(); };
    ctx->stop_job = [c](int32_t cluster, int32_t proc, bool requeue) {
      c->stop_job(cluster, proc, requeue);
    };
    c->start();
    r->start();
    services.push_back(std::move(claims));
    services.push_back(std::move(accounting));
    services.push_back(std::move(runner));
  }
#endif
  return services;
}

}  // namespace kite::cm
