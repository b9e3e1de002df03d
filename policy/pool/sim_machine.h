// One machine of `kite pool simulate`: Kite's startd core (the code a real node runs) on the
// pool's virtual clock, with the simulated world's answers to its actions (a killed starter
// exits; a job ignores its soft kill, so a vacate takes the whole vacate time).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "policy/classad/classad.h"
#include "policy/config/config.h"
#include "policy/startd/clock.h"
#include "policy/startd/startd.h"

namespace kite::pool {

/// What the simulator needs to know of one slot of the machine right now.
struct SimSlot {
  std::string name;                // the startd's name: "slot1", "slot1_2"
  classad::ClassAd* ad = nullptr;  // the startd's: valid until the machine is next called
  bool partitionable = false;
  bool dynamic = false;
  bool running = false;  // a starter runs there (a job, possibly retiring or vacating)
  double weight = 0;     // SLOT_WEIGHT, taken when the ad last changed
  int64_t cpus = 0;      // Cpus (a partitionable slot: what it has left)
  int64_t total_cpus = 0;
  startd::State state = startd::State::kOwner;
  startd::Activity activity = startd::Activity::kIdle;
};

class SimMachine {
 public:
  /// `cfg` (this machine's layout and the scenario's settings) and `clock` outlive the machine.
  SimMachine(const config::Config& cfg, const startd::MachineFacts& facts,
             const startd::Clock& clock);
  /// Lays out the slots and applies the machine ad's other attributes as inputs.
  bool init(const std::vector<std::pair<std::string, std::string>>& inputs, std::string* err);

  /// Claims `slot` for `job`. Returns the slot the job is claimed on (a dynamic slot carved
  /// from a partitionable one), empty when the startd refused. *waits: a preempting claim,
  /// accepted, waiting for the running job to go; else the claim is idle, ready to activate.
  /// A partitionable slot preempting its dynamic slots for the job (ALLOW_PSLOT_PREEMPTION)
  /// returns the partitionable slot with *waits: pslot_claim_done() says when it is carved.
  std::string claim(const std::string& slot, const classad::ClassAd& job, bool priority,
                    bool* waits);
  /// Runs `job` on the slot's existing idle claim (claim reuse, or a preempting claim whose
  /// slot is now free). False when the startd refuses.
  bool activate(const std::string& slot, const classad::ClassAd& job);
  /// For a partitionable slot whose claim waits for its preempted dynamic slots: true once it
  /// has been decided, with *dslot the dynamic slot carved for the claim (empty: dropped).
  bool pslot_claim_done(const std::string& pslot, std::string* dslot);
  /// The job on `slot` ended by itself: its starter exits, leaving the claim idle.
  void job_exited(const std::string& slot);
  /// The schedd gives up the slot's (idle) claim.
  void release(const std::string& slot);
  /// Sets inputs on every slot (`set` steps).
  bool set_inputs(const std::vector<std::pair<std::string, std::string>>& inputs, std::string* err);
  /// Re-reads the policy expressions from the configuration, which the caller changed in place.
  bool reload_policy(std::string* err);
  /// Evaluates the policy now (timers due, SUSPEND/PREEMPT that may have changed).
  void evaluate();
  int64_t next_timer() const { return sd_.next_timer(); }

  /// The live slots in ad order, as of the last call.
  const std::vector<SimSlot>& slots() const { return slots_; }
  const SimSlot* find(const std::string& name) const;

 private:
  void follow(startd::Output& out);  // the world's answers to the actions, then a new snapshot
  void snapshot();
  void note_pslot_claims(const startd::Output& out);

  startd::Startd sd_;
  std::vector<SimSlot> slots_;
  std::vector<std::string> pslot_waiting_;                       // pslots preempting for a claim
  std::vector<std::pair<std::string, std::string>> pslot_done_;  // pslot -> carved slot ("": none)
};

}  // namespace kite::pool
