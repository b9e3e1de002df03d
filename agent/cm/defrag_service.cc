// The defrag's timer, its drains (graceful/quick/fast, resumed on completion, reason "Defrag",
// the draining START for graceful ones) and the Defrag ad it refreshes after each poll.
#include "agent/cm/defrag_service.h"

#include <ctime>

#include "agent/cm/collector_server.h"
#include "agent/cm/node_commands.h"
#include "agent/core/log.h"
#include "policy/defrag/defrag.h"

namespace kite::cm {
namespace {

class Defrag final : public PeriodicCmService {
 public:
  Defrag(CmContext* ctx, NodeCommands* nodes, defrag::DefragConfig cfg)
      : ctx_(ctx), nodes_(nodes), cfg_(std::move(cfg)), started_(std::time(nullptr)) {
    start_every(ctx->loop, cfg_.interval);
    KLOG_INFO("defrag: polling every %lld s, %g machine(s) an hour, schedule %s",
              static_cast<long long>(cfg_.interval), cfg_.per_hour,
              defrag::schedule_name(cfg_.schedule));
  }

 private:
  void tick() override {
    int64_t now = std::time(nullptr);
    collector::QuerySpec spec;
    spec.type = "Machine";
    spec.offline = true;  // DEFRAG_REQUIREMENTS decides about sleeping machines
    std::vector<classad::AdPtr> slots;
    std::string err;
    if (!ctx_->collector->store().query(spec, &slots, &err)) {
      KLOG_ERROR("defrag: Machine ads: %s", err.c_str());
      return;
    }
    defrag::Poll p = defrag::poll(cfg_, slots, now, &state_);
    if (p.drain.empty() && p.why_none != last_why_) {
      KLOG_INFO("defrag: nothing to drain: %s", p.why_none.c_str());
    }
    last_why_ = p.drain.empty() ? p.why_none : "";
    for (const std::string& machine : p.drain) drain(machine);
    publish(p, now);
  }

  void drain(const std::string& machine) {
    core::Json req = core::Json::message("drain");
    req.set("mode", defrag::schedule_name(cfg_.schedule));
    req.set_bool("resume", true);  // the machine takes jobs again once it is whole
    req.set("reason", "Defrag");
    if (cfg_.schedule == defrag::Schedule::kGraceful && !cfg_.draining_start.empty())
      req.set("start", cfg_.draining_start);
    KLOG_INFO("defrag: draining %s (%s)", machine.c_str(), defrag::schedule_name(cfg_.schedule));
    nodes_->send_own(
        machine, req, "cm/defrag", [this, machine](bool ok, const std::string& message) {
          if (ok) {
            ++state_.successes;
          } else {
            ++state_.failures;
            KLOG_WARN("defrag: drain of %s failed: %s", machine.c_str(), message.c_str());
          }
        });
  }

  void publish(const defrag::Poll& p, int64_t now) {
    classad::AdPtr ad = defrag::defrag_ad(cfg_, state_, p, now, started_);
    // The ad outlives a few missed polls, then expires with its daemon.
    ad->insert_value("ClassAdLifetime", classad::Value::integer(3 * cfg_.interval + 60));
    std::string err;
    if (!ctx_->collector->publish("Defrag", std::move(ad), &err))
      KLOG_ERROR("defrag: cannot store the Defrag ad: %s", err.c_str());
  }

  CmContext* ctx_;
  NodeCommands* nodes_;
  defrag::DefragConfig cfg_;
  defrag::DefragState state_;
  int64_t started_;
  std::string last_why_;
};

}  // namespace

std::unique_ptr<CmService> make_defrag(CmContext* ctx, NodeCommands* nodes, std::string* err) {
  if (!defrag::wanted(*ctx->cfg)) return nullptr;
  defrag::DefragConfig cfg;
  if (!defrag::read_config(*ctx->cfg, &cfg, err)) return nullptr;
  return std::make_unique<Defrag>(ctx, nodes, std::move(cfg));
}

}  // namespace kite::cm
