// The accountant inside `kite cm`: charges each submitter's usage from the running claims (slot
// weight SLOT_WEIGHT, else Cpus) from the second a job starts or stops, keeps the records in
// SQLite (saved at each cycle, within a second of a usage change and before an admin change is
// acknowledged), gives the negotiator the effective priorities, publishes Accounting and
// Submitter ads in the collector and answers `kite userprio` ("userprio" frames; changes need
// ADMINISTRATOR).
#pragma once

#include <uv.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "agent/cm/cm_service.h"
#include "agent/negotiator/claims.h"
#include "agent/queue/accountant_store.h"
#include "policy/accountant/accountant.h"
#include "policy/fairshare/group_quotas.h"
#include "policy/negotiator/negotiator.h"

namespace kite::negotiator {

class Accounting final : public cm::CmService {
 public:
  Accounting(cm::CmContext* ctx, const ClaimLayer* claims);
  ~Accounting() override;
  /// Reads the settings and loads the stored records. False with *err naming the setting or
  /// the database.
  bool start(std::string* err);

  /// The cycle's first step at `now`: charges usage up to now, updates the priorities, saves
  /// and publishes; then gives `in`'s submitters their EUP, usage, floor, ceiling and nice
  /// flag, the other users' priorities and the concurrency limits running jobs hold.
  void begin_cycle(int64_t now, CycleInput* in);
  /// The cycle's group quotas, for -quotas and the groups' Accounting ads.
  void end_cycle(std::vector<fairshare::GroupQuota> quotas);

  const accountant::Accountant& accountant() const { return acc_; }
  bool on_frame(net::TlsConn* c, core::Json& msg) override;
  void stop() override;

 private:
  /// Usage from the claims at `now` (submitters with unreported jobs keep their stored level).
  void charge(int64_t now);
  double weight_of(const ClaimLayer::RunningJob& r) const;
  bool save();
  void publish();
  void publish_submitters(const CycleInput& in);
  void usage_changed();
  void answer(net::TlsConn* c, const core::Json& msg);

  cm::CmContext* ctx_;
  const ClaimLayer* claims_;
  accountant::Accountant acc_;
  queue::AccountantStore store_;
  fairshare::GroupSettings groups_;
  std::vector<fairshare::GroupQuota> quotas_;
  std::set<std::string> published_;   // names of the Accounting ads in the collector
  std::set<std::string> submitters_;  // and of the Submitter ads
  std::string uid_domain_;
  bool use_slot_weights_ = true;
  uv_timer_t* charge_timer_ = nullptr;  // a usage change: charged on the next loop turn
  uv_timer_t* save_timer_ = nullptr;    // then saved within a second
  bool charge_armed_ = false;
  bool save_armed_ = false;
};

}  // namespace kite::negotiator
