// The negotiator's runner in `kite cm`: a cycle every NEGOTIATOR_INTERVAL, soon after a
// reschedule (coalesced) and on a "reschedule" frame (`kite reschedule`, WRITE). A cycle reads
// the queue's idle jobs a chunk per loop turn (the loop keeps serving frames meanwhile), takes
// the collector's slot ads, updates the accountant, runs negotiate() with its priorities and
// hands the matches to the claim layer.
#pragma once

#include <uv.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "agent/cm/cm_service.h"
#include "agent/negotiator/accounting.h"
#include "agent/negotiator/claims.h"

namespace kite::negotiator {

class NegotiatorRunner final : public cm::CmService {
 public:
  NegotiatorRunner(cm::CmContext* ctx, ClaimLayer* claims, Accounting* accounting);
  ~NegotiatorRunner() override;
  void start();
  /// A cycle soon: on the next loop turn, or kRescheduleSpacingMs after the last one started
  /// (requests meanwhile make one cycle).
  void reschedule();
  bool on_frame(net::TlsConn* c, core::Json& msg) override;
  void stop() override;

 private:
  void begin_cycle();
  void read_chunk();
  bool pool_has_slots() const;
  void finish_cycle();
  uv_timer_t* new_timer();

  cm::CmContext* ctx_;
  ClaimLayer* claims_;
  Accounting* accounting_;
  uv_timer_t* interval_ = nullptr;
  uv_timer_t* soon_ = nullptr;
  uv_idle_t* chunk_ = nullptr;  // reads the next chunk of ads on the next loop turn
  bool soon_armed_ = false;
  bool cycling_ = false;
  bool again_ = false;             // a reschedule came during a cycle
  std::vector<queue::JobId> ids_;  // the idle jobs this cycle reads
  size_t next_ = 0;
  CycleInput in_;
  std::map<std::string, size_t> submitter_index_;
  uint64_t started_ms_ = 0;
  uint64_t last_cycle_ms_ = 0;  // when the last cycle started (loop time)
  std::string uid_domain_;
};

}  // namespace kite::negotiator
