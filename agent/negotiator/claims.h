// The central manager's side of the claiming protocol: a match becomes a claim on the node's
// agent (with an unguessable claim id), the claim is activated with the job, the job's events
// update the queue, the claim runs the same submitter's next fitting job while CLAIM_WORKLIFE
// allows and is released after. Claims are kept alive every ALIVE_INTERVAL; a claim whose
// agent is gone longer than its lease gives its job back to the queue (Idle), and an agent that
// connects reports its claims, which are re-adopted (after a CM restart too).
#pragma once

#include <uv.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "agent/cm/cm_service.h"
#include "agent/queue/job_store.h"
#include "policy/negotiator/negotiator.h"

namespace kite::negotiator {

class ClaimLayer final : public cm::CmService {
 public:
  explicit ClaimLayer(cm::CmContext* ctx);
  ~ClaimLayer() override;
  /// Jobs the queue says Running wait for their agent's report (CM restart); starts the timer.
  void start();
  /// True while the job is on a claim, being claimed, or Running without a report yet: the
  /// negotiator must not offer it.
  bool busy(queue::JobId id) const;
  /// Whether the cycle may consider the slot whose ad is `ad` (named Name@Machine): a slot we
  /// are claiming, or whose claim is being preempted already, is not offered; one we hold is
  /// offered only when its ad says Claimed (for a preemption: an ad still saying Unclaimed is
  /// older than our claim).
  bool offered(const std::string& slot_name, const classad::ClassAd& ad) const;
  /// One match of the cycle: claims the slot for the job (whose full ad is `job`); a preempting
  /// match sends a preempting claim request, which the agent's startd core accepts if its RANK
  /// (or the user priority) says so, retiring and vacating the current job first.
  void claim(const Match& m, classad::AdPtr job);
  /// ctx->stop_job: the job is removed or held (`requeue` false) or vacated (true).
  void stop_job(int32_t cluster, int32_t proc, bool requeue);
  size_t claims() const { return claims_.size(); }

  /// A slot one of our claims holds (being claimed, running a job, or idle between jobs), for
  /// the accountant: the submitter is charged for it as HTCondor charges a Claimed slot.
  struct RunningJob {
    const std::string* submitter;
    std::string slot;                      // the agent's claimed slot, "slot1_1@node"
    const classad::ClassAd* matched_slot;  // the slot ad as matched (null when re-adopted)
    const classad::ClassAd* job;           // the running job's ad, else the claim's first job's
    bool running;                          // a job runs on it now
  };
  std::vector<RunningJob> running() const;
  /// Jobs the queue says Running whose agents have not reported yet (after a CM restart).
  std::vector<queue::JobId> unreported() const;

  bool on_frame(net::TlsConn* c, core::Json& msg) override;
  void on_closed(net::TlsConn* c) override;
  void stop() override;

 private:
  enum class State { kClaiming, kActive, kIdle };
  struct Claim {
    std::string id;
    std::string machine;
    std::string slot_name;  // the matched slot's Name (slot1@node), what the collector shows
    std::string slot;       // the agent's claimed slot (slot1_1): RemoteHost is slot@machine
    std::string submitter;
    net::TlsConn* conn = nullptr;  // null while its agent is away
    State state = State::kClaiming;
    queue::JobId job;
    bool has_job = false;
    bool requeue_on_stop = true;
    bool ended = false;  // the agent reported it ended: released once its exit is in  // a stopped
                         // job goes back to Idle (vacate) or stays as set
    int64_t created = 0;
    uint64_t lost_since_ms = 0;  // loop time its agent's connection closed (0: connected)
    int64_t lease = 1800;        // seconds: JobLeaseDuration, else the alives missed
    int64_t alive_every = 300;   // seconds between alives (lease / 3, at least 10)
    uint64_t next_alive_ms = 0;  // loop time of its next alive
    classad::AdPtr slot_ad;      // the slot as matched: reuse checks the next job against it
    classad::AdPtr first_job;
    bool preempting = false;   // a preempting claim request, not yet answered
    std::string victim;        // then the claim of ours it preempts ("" if none)
    std::string preempted_by;  // a preempting claim of ours on this claim's slot
    classad::AdPtr job_ad;  // the job running now (for its concurrency limits)
  };

  void on_claimed(Claim* c, const core::Json& msg);
  void on_exit(Claim* c, const core::Json& msg);
  void on_report(net::TlsConn* conn, const core::Json& msg);
  void adopt(net::TlsConn* conn, const std::string& machine, const cJSON* item);
  /// The claim's job is over (or never started): reuse the claim or release it.
  void claim_idle(Claim* c);
  void activate(Claim* c, queue::JobId id, classad::AdPtr job);
  void release(Claim* c, const std::string& why);
  /// Forgets the claim; its job, if the queue still says Running, goes back to Idle.
  void drop(const std::string& id, const std::string& why);
  void tick();
  Claim* claim_of(net::TlsConn* conn, const core::Json& msg);
  /// Our claim on the slot named Name@Machine (a static slot, or a claim's dynamic slot).
  const Claim* holder_of(const std::string& slot_name) const;
  int64_t lease_of(const classad::ClassAd* job) const;
  /// Sets the claim's lease from `job` and how often it is kept alive.
  void set_lease(Claim* c, const classad::ClassAd* job) const;
  int status_of(queue::JobId id) const;
  std::string submitter_of(const classad::ClassAd& job) const;
  void send(Claim* c, core::Json msg);
  void log_committed(std::string line);

  cm::CmContext* ctx_;
  std::map<std::string, Claim> claims_;            // by claim id
  std::map<queue::JobId, std::string> job_claim_;  // job -> its claim id
  std::map<queue::JobId, int64_t> limbo_;          // Running at start, no report yet: deadline
  uv_timer_t* timer_ = nullptr;                    // alives, leases (every tick_s_)
  int64_t tick_s_ = 10;
  int64_t alive_interval_ = 300;
  int64_t max_missed_ = 6;
  int64_t worklife_ = 1200;
  std::string uid_domain_;
};

/// The submitter (accounting principal) of a job: AccountingGroup, else Owner, at UID_DOMAIN;
/// nice-user jobs are charged to "nice-user.<that>".
std::string job_submitter(const classad::ClassAd& job, const std::string& uid_domain);

}  // namespace kite::negotiator
