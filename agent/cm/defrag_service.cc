// The defrag's timer, its drains (graceful/quick/fast, resumed on completion, reason "Defrag",
// the draining START for graceful ones), the drains DEFRAG_CANCEL_REQUIREMENTS cancels, and the
// Defrag ad it refreshes after each poll and every DEFRAG_UPDATE_INTERVAL.
#include "agent/cm/defrag_service.h"

#include <algorithm>
#include <ctime>
#include <numeric>

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
    // One timer for both periods: it ticks at their greatest common divisor.
    start_every(ctx->loop, std::gcd(cfg_.interval, cfg_.update_interval));
    KLOG_INFO("defrag: polling every %lld s, %g machine(s) an hour, schedule %s",
              static_cast<long long>(cfg_.interval), cfg_.per_hour,
              defrag::schedule_name(cfg_.schedule));
  }

 private:
  void tick() override {
    const int64_t now = std::time(nullptr);
    ticks_ += std::gcd(cfg_.interval, cfg_.update_interval);
    if (ticks_ % cfg_.interval == 0) {
      poll(now);
    } else if (ticks_ % cfg_.update_interval == 0 && have_poll_) {
      publish(last_, now);
    }
  }

  void poll(int64_t now) {
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
    for (const std::string& machine : p.cancel) cancel(machine);
    for (const std::string& machine : p.drain) drain(machine);
    publish(p, now);
    last_ = std::move(p);
    have_poll_ = true;
  }

  // HTCONDOR: defrag.rst DEFRAG_CANCEL_REQUIREMENTS "When this expression evaluates to True,
  // draining will be cancelled."
  void cancel(const std::string& machine) {
    KLOG_INFO("defrag: canceling the drain of %s (DEFRAG_CANCEL_REQUIREMENTS)", machine.c_str());
    nodes_->send_own(machine, core::Json::message("cancel-drain"), "cm/defrag",
                     [machine](bool ok, const std::string& message) {
                       if (!ok)
                         KLOG_WARN("defrag: cancel of %s's drain failed: %s", machine.c_str(),
                                   message.c_str());
                     });
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
    ad->insert_value(
        "ClassAdLifetime",
        classad::Value::integer(3 * std::min(cfg_.interval, cfg_.update_interval) + 60));
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
  int64_t ticks_ = 0;  // seconds of timer ticks so far
  defrag::Poll last_;  // the last poll, for the updates between polls
  bool have_poll_ = false;
};

}  // namespace

std::unique_ptr<CmService> make_defrag(CmContext* ctx, NodeCommands* nodes, std::string* err) {
  if (!defrag::wanted(*ctx->cfg)) return nullptr;
  defrag::DefragConfig cfg;
  if (!defrag::read_config(*ctx->cfg, &cfg, err)) return nullptr;
  return std::make_unique<Defrag>(ctx, nodes, std::move(cfg));
}

}  // namespace kite::cm
