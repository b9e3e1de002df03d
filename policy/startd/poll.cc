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
    check_shutdown_done();
    if (out->transitions.size() == before) break;
  }
  publish_all_stats();
  compact();
}

// Statistics are machine-wide: a change on one slot is news in every slot's ad.
void Engine::publish_all_stats() {
  for (auto& p : sd.slots_) {
    if (!p->dead) publish_stats(*p);
  }
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
