// One evaluation of every slot at the current time: accounting, latches, periodic ad updates,
// timers, settling chains of transitions, shutdown completion; then dead slots are dropped.
#include "policy/startd/engine.h"

namespace kite::startd {

void Engine::evaluate_all() {
  if (sd.shut_down_) return;
  accounting();
  expire_stats();
  for (size_t i = 0; i < sd.slots_.size(); ++i) {
    SlotImpl& s = *sd.slots_[i];
    if (s.dead) continue;
    refresh_time(s);
    latch(s);
  }
  drain_evict_admitted();
  noclaim_shutdown();
  // HTCONDOR: startd UPDATE_INTERVAL: every slot's ad goes to the collector periodically
  // (and on every state change, which apply() does).
  if (now >= sd.next_update_) {
    for (auto& p : sd.slots_) {
      if (!p->dead) act(*p, ActionKind::kPublishAds, "periodic");
    }
    while (sd.next_update_ <= now) sd.next_update_ += sd.update_interval_;
  }
  for (int round = 0; round < 8; ++round) {
    size_t before = out->transitions.size();
    for (size_t i = 0; i < sd.slots_.size(); ++i) {
      SlotImpl& s = *sd.slots_[i];
      if (s.dead) continue;
      killing_timeout(s);
      settle(s);
    }
    finalize_drain();
    pslot_claims();
    check_shutdown_done();
    if (out->transitions.size() == before) break;
  }
  hibernate_check();  // on the settled states
  fetch_due();
  compact();
}

// HTCONDOR: startd STARTD_NOCLAIM_SHUTDOWN: "The number of seconds to run without receiving a
// claim before shutting HTCondor down on this machine." Counted from the start, or from the
// last moment a slot had a claim; the shutdown is a graceful one.
void Engine::noclaim_shutdown() {
  if (sd.noclaim_shutdown_ <= 0 || sd.shutting_down_) return;
  for (auto& p : sd.slots_) {
    if (!p->dead && (p->has_claim || p->claim_pending)) sd.last_claim_time_ = now;
  }
  if (now - sd.last_claim_time_ < sd.noclaim_shutdown_) return;
  Event ev;
  ev.kind = EventKind::kShutdown;
  ev.shutdown = ShutdownMode::kGraceful;
  sd.shutdown_why_ = "STARTD_NOCLAIM_SHUTDOWN: no claim for " +
                     std::to_string(static_cast<long long>(sd.noclaim_shutdown_)) + " s";
  on_shutdown(ev);
}

void Engine::compact() {
  size_t w = 0;
  for (size_t i = 0; i < sd.slots_.size(); ++i) {
    if (sd.slots_[i]->dead) continue;
    if (w != i) sd.slots_[w] = std::move(sd.slots_[i]);
    ++w;
  }
  sd.slots_.resize(w);
}

}  // namespace kite::startd
