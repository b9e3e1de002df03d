// The node agent (`kite agent`): the startd core on a libuv loop. It probes the node through
// the HAL, feeds the core events (commands, starter reports, samples, timers) and carries out
// the actions it returns (spawn/suspend/kill starters), serves the local control socket, runs
// local jobs (`kite run --local`), and re-adopts starters that outlived a previous agent.
#pragma once

#include <uv.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/core/conn.h"
#include "agent/startd/agent_config.h"
#include "agent/startd/agent_power.h"
#include "agent/startd/collector_link.h"
#include "agent/startd/config_commands.h"
#include "agent/startd/cron_runner.h"
#include "agent/startd/fetch_hook_runner.h"
#include "agent/startd/loop_lag_probe.h"
#include "agent/startd/sliced_queue.h"
#include "agent/starter/deadline_poll.h"
#include "hal/cgroup.h"
#include "hal/machine_ad.h"
#include "policy/classad/classad.h"
#include "policy/config/config.h"
#include "policy/startd/job_hooks.h"
#include "policy/startd/startd.h"

namespace kite::agent {

struct AgentOptions {
  std::string config_path;  // -c; empty = $KITE_CONFIG or /etc/kite/kite.conf
  bool foreground = false;
};

/// Wall-clock seconds for the core.
class RealClock final : public startd::Clock {
 public:
  int64_t now() const override;
};

/// WANT_HOLD's verdict on a running job (the core's hold-job action): the job is stopped like
/// a soft or hard kill and its exit is reported as this hold.
struct PendingHold {
  bool soft = true;
  int64_t code = 0;     // HoldReasonCode (21: the startd's WANT_HOLD)
  int64_t subcode = 0;  // HoldReasonSubCode (WANT_HOLD_SUBCODE)
  std::string reason;   // HoldReason (WANT_HOLD_REASON)
};
/// Reads the detail of a hold-job action: `soft|hard HoldReasonCode=N HoldReasonSubCode=N
/// HoldReason="..."` (the reason a ClassAd string literal). False with `err` when malformed.
bool parse_hold_detail(const std::string& detail, PendingHold* out, std::string* err);

/// One starter the agent knows about (spawned now, or adopted after a restart).
struct StarterRec {
  std::string slot;
  std::string dir;
  std::string claim_id;
  int64_t run_id = 0;  // the local run it serves, 0 = none
  pid_t pid = 0;
  core::Conn* conn = nullptr;
  uv_process_t* proc = nullptr;  // our child (null when adopted)
  uv_timer_t* retry = nullptr;   // connect retries
  int64_t spawned_ms = 0;
  int64_t exited_ms = 0;  // when the job ended (the starter then cleans up)
  int connect_attempts = 0;
  bool adopted = false;
  bool exited = false;
  bool told_started = false;  // the run's client heard "started"
  bool gone = false;          // process no longer exists
  bool connecting = false;    // a connect is in flight (the record must outlive it)
  bool doomed = false;        // forgotten while connecting: the connect callback frees it
  bool killing = false;       // the agent is killing it and its cgroup (KILLING_TIMEOUT)
  class Agent* agent = nullptr;
  std::vector<core::Json> outbox;   // frames waiting for the connection
  std::string last_usage;           // the last usage frame, JSON
  std::vector<int> cpu_list;        // PUs the job is bound to (ASSIGN_CPU_AFFINITY), else empty
  std::optional<PendingHold> hold;  // set once WANT_HOLD put the job on hold
  std::string user;                 // the slot user its job runs as
};

/// One `kite run --local` request.
struct RunRec {
  int64_t id = 0;
  core::Conn* client = nullptr;  // null once the client has gone
  classad::AdPtr job;
  std::string slot;  // once placed
  enum class State { kQueued, kRunning, kDone } state = State::kQueued;
  bool told_queued = false;
  bool remote = false;   // a central manager's activation: placed by its claim, not queued here
  std::string cm_claim;  // then its claim (JSON), written beside job.json before the spawn
};

/// In a starter's directory: the central manager's claim its job serves, for re-adoption.
inline constexpr const char* kCmClaimFile = "cm_claim";

/// A claim the central manager holds on one of our slots (agent_cm_claims.cc). Its lease is the
/// core's (ALIVE_INTERVAL x MAX_CLAIM_ALIVES_MISSED, or the job's JobLeaseDuration).
struct RemoteClaim {
  std::string slot;                 // the claimed slot (a partitionable slot's carved dynamic slot)
  net::NetClient* cm = nullptr;     // the central manager holding it
  int32_t cluster = -1, proc = -1;  // the job it runs, -1 while idle
  bool running = false;
  int64_t last_usage_ms = 0;  // when a usage report last went to the CM
  std::string unacked_exit;   // the job's exit frame (JSON) until the CM acknowledges it
  bool ended = false;         // the core ended the claim; kept only for its unacked exit
  // An activation that came while the slot's last starter was still cleaning up (Claimed/
  // Cleaning): carried out once it has (the frame, JSON).
  std::string deferred_activation;
  // A preempting claim request the core took: the slot's current claim retires and vacates
  // first; "claimed" goes to the CM when the core switches to this claim.
  bool preempting = false;
};

/// The replies of the control socket and of remote commands (agent_commands.cc).
core::Json reply_ok(const std::string& message = "");
core::Json reply_error(const std::string& message);
/// The admin commands Agent::admin_command carries out (vacate, drain, ..., config-set).
bool admin_command_type(const std::string& type);

/// Removes the sandbox and directory of a starter that died without cleaning up (logs errors).
void remove_starter_leftovers(const std::string& dir);
/// The same without logging, safe on a thread-pool thread: false with *err on a failure.
bool remove_starter_files(const std::string& dir, std::string* err);

class Agent final : public core::ConnHandler, public CronSink, public AdSource, public CmFrameSink {
 public:
  explicit Agent(AgentOptions opts);
  ~Agent() override;
  /// Runs until shutdown completes. Returns the process exit code.
  int run();

  // core::ConnHandler: frames from control clients and starters.
  void on_frame(core::Conn* c, core::Json& msg) override;
  void on_closed(core::Conn* c, const std::string& why) override;

  // CronSink (agent_cron.cc): monitor output into the slot ads, then policy at once.
  void cron_publish(const startd::CronJob& job, std::vector<startd::CronRecord>* recs) override;
  bool cron_condition(const classad::Expr* cond) override;
  // A resource monitor's records (agent_cron.cc): SUM/PEAK accounting into the slots.
  void monitor_publish(const startd::CronJob& job, std::vector<startd::CronRecord>* recs);

  // AdSource: the slot ads for the central manager, by slot name (agent_control.cc).
  std::map<std::string, std::string> current_ads() override;

  // CmFrameSink (agent_cm.cc): frames from the central manager over the collector link.
  void cm_frame(net::NetClient* cm, core::Json& msg) override;
  void cm_connected(net::NetClient* cm) override;
  void cm_disconnected(net::NetClient* cm) override;

 private:
  // Startup and configuration (agent.cc).
  bool init(std::string* err);
  /// Loads the configuration. `outputs` given: the commands of `include : COMMAND |` are
  /// served from it, each noted in `used`, those it lacks also in `missing` (then the load is
  /// not to be used); else they run here, blocking (at start, before the loop), and their
  /// outputs are kept in config_outputs_.
  bool load_config(config::Config* cfg, AgentConfig* ac, std::string* err,
                   const ConfigCommandOutputs* outputs = nullptr,
                   std::vector<std::string>* used = nullptr,
                   std::vector<std::string>* missing = nullptr);
  /// Re-reads the configuration and reloads the policy; false (the running configuration
  /// kept) with a message when the new one does not load. A configuration that reads commands'
  /// outputs is checked with their previous outputs, then they run again on the loop and it
  /// applies once they are in (`pending` set): refused then, it is logged and the running
  /// configuration stays.
  bool reconfig(std::string* err = nullptr, bool* pending = nullptr);
  void run_reconfig_commands(const std::vector<std::string>& commands, int round);
  void finish_reconfig(int round);
  /// Makes `fresh` the running configuration (the policy reloaded, the collectors and timers
  /// following it); false, with the running one kept, when its policy does not load.
  bool apply_config(std::unique_ptr<config::Config> fresh, const AgentConfig& ac, std::string* err);
  void arm_wake_timer();
  void on_poll();
  void on_wake();
  void begin_shutdown(startd::ShutdownMode mode);

  // Events in, actions out (agent.cc).
  bool handle(startd::Event& ev, std::string* err);
  void evaluate();
  void process(startd::Output& out);
  void execute(const startd::Action& a);
  bool lock_local_dir(std::string* err);

  // The CM's frames by kind: claims and job activations (agent_cm_claims.cc), remote commands
  // (agent_cm_commands.cc). Each returns false for a frame type that is not its own.
  bool cm_claim_frame(net::NetClient* cm, core::Json& msg);
  bool cm_command_frame(net::NetClient* cm, core::Json& msg);
  void cm_claims_connected(net::NetClient* cm);
  void cm_claims_disconnected(net::NetClient* cm);
  void cm_claim(net::NetClient* cm, core::Json& msg);
  /// A preempting claim request for a Claimed slot: handed to the core, which decides.
  void cm_preempting_claim(net::NetClient* cm, const std::string& id, const std::string& slot,
                           const classad::ClassAd& job, bool by_priority);
  /// The preempting claim on `slot` becomes its claim (the core switched) or is refused.
  void settle_preempting_claim(const std::string& slot, const std::string& refusal);
  /// A partitionable slot's preempting claim (ALLOW_PSLOT_PREEMPTION): its dynamic slot carved
  /// once the preempted ones are gone (kCreateSlot "from <pslot>: ..."), or the claim dropped.
  /// True when `a` was about such a claim.
  bool pslot_claim_progress(const startd::Action& a);
  void cm_activate(net::NetClient* cm, core::Json& msg);
  void cm_alive(net::NetClient* cm, core::Json& msg);
  void cm_release(net::NetClient* cm, core::Json& msg, bool job_only);
  /// The remote claim `msg` names, or null after answering the CM with an error.
  RemoteClaim* named_claim(net::NetClient* cm, const core::Json& msg, std::string* id);
  void cm_send(const RemoteClaim& rc, const std::string& id, core::Json msg);
  /// Starter events of a slot a remote claim holds: forwarded to its CM.
  /// `type`: started, suspended, continued.
  void remote_job_event(const std::string& slot, const char* type);
  void remote_job_usage(const std::string& slot, const core::Json& usage);
  void remote_job_exited(const std::string& slot, const core::Json& exit);
  /// The core ended the claim on `slot` (broken, lease, slot deleted): the CM hears it.
  void remote_claim_ended(const std::string& slot, const std::string& why);
  /// After adopt_starters: the adopted starters of remote claims get their claims back.
  void adopt_remote_claims();
  std::string remote_claim_of(const std::string& slot) const;

  // WANT_HOLD (agent_hold.cc): stop the job and report its exit as a hold.
  void hold_job(const startd::Action& a);
  /// Turns the exit of a job that was being held into the hold (called on every exit).
  void apply_hold(const StarterRec& s, core::Json* exit) const;

  // Power management (agent_power.cc): the hibernation attributes of the slot ads, and the
  // core's hibernate action: offline ads to the collector, then the HAL's sleep method once.
  /// `detect`: probe the method and interfaces (at start; a reconfig keeps what was found).
  void power_setup(bool detect);
  void hibernate(const startd::Action& a);
  void enter_sleep();
  void power_stop();

  // Starters (agent_starters.cc).
  bool spawn_starter(const std::string& slot, std::string* err);
  void starter_connect(StarterRec* s);
  void starter_send(const std::string& slot, core::Json msg);
  void starter_frame(StarterRec* s, core::Json& msg);
  void starter_gone(StarterRec* s, const std::string& why);
  void starter_exited(StarterRec* s, core::Json exit);
  void release_starter(StarterRec* s);
  /// KILLING_TIMEOUT: SIGKILL the starter, kill and remove the job's cgroup without blocking
  /// the loop, then report the job evicted.
  void kill_starter(const std::string& slot);
  void begin_kill(const std::string& slot, StarterRec* s);
  /// Removes the job cgroup and the starter's files on libuv's thread pool (the disk may
  /// block on unlink), then reports the exit from the loop.
  void cleanup_after_kill(const std::string& slot, StarterRec* s, hal::JobCgroup job);
  void killed_starter(const std::string& slot, StarterRec* s);
  /// Loop-side helpers started with the loop and stopped before it closes (agent_starters.cc):
  /// the loop-lag probe and cgroup reapers.
  void start_helpers();
  void stop_helpers();
  /// RunBenchmarks: Mips and KFlops measured in a child process (agent_benchmarks.cc).
  void run_benchmarks();
  void benchmarks_done(struct BenchmarkRun* b);
  void stop_benchmarks();
  void adopt_starters();
  StarterRec* starter_of(const std::string& slot);
  void forget_starter(StarterRec* s);
  /// The slot's finished starter is gone: its cleanup is over (agent_cleaning.cc).
  void starter_cleaned(const std::string& slot);
  /// Runs an activation from the CM that waited for `slot`'s cleanup (agent_cm_claims.cc).
  void run_deferred_activation(const std::string& slot);
  /// The finished starter of `slot` still cleaning up, or null (agent_cleaning.cc).
  void kill_cleaning_starter(const std::string& slot);
  StarterRec* cleaning_starter(const std::string& slot);
  std::string starter_job_file(const std::string& slot, const classad::ClassAd& job,
                               const std::string& claim_id, const std::vector<int>& cpu_list,
                               const std::string& user);
  /// The user a job on `slot` (SlotID `slot_id`) runs as: with a pool of SLOT<N>_USER
  /// accounts, one no other starter is using (its own SLOT<N>_USER first), else SLOT_USER.
  std::string pick_slot_user(const std::string& slot, int64_t slot_id);
  std::vector<int> cpu_binding(const std::string& slot, const classad::ClassAd& job);

  // Fetch-work hooks and the backfill client (agent_hooks.cc).
  bool read_backfill_client(startd::BackfillClient* out, std::string* err);
  void fetch_work(const std::string& slot);
  void fetch_done(const std::string& slot, const std::string& what, const HookResult& r);
  void reply_fetch(const startd::Action& a);
  void evict_claim(const startd::Action& a);
  void advisory_hook(const std::string& slot, const char* hook, const std::string& path,
                     const std::string& arg, const classad::ClassAd* job);
  void spawn_backfill();
  void kill_backfill();
  void backfill_exited(const HookResult& r);
  void backfill_reap();
  void backfill_gone();
  void close_hooks();

  // Admin commands from the control socket or the central manager (agent_commands.cc): the
  // reply to send. `levels` are the requester's (the local root is ADMINISTRATOR); for `off`,
  // *off is set and the caller starts the shutdown once the reply is sent.
  core::Json admin_command(core::Json& msg, const std::vector<std::string>& levels,
                           std::optional<startd::ShutdownMode>* off);
  core::Json config_command(const core::Json& msg, const std::vector<std::string>& levels);
  // Local control (agent_control.cc).
  bool listen_control(std::string* err);
  void accept_control(uv_stream_t* server);
  void control_frame(core::Conn* c, core::Json& msg);
  bool authorized_writer(core::Conn* c);
  /// Sets the job's Owner to the peer's account (from the kernel's peer credentials, as
  /// HTCondor takes it from authentication); a different Owner from the client is replaced.
  bool stamp_owner(core::Conn* c, classad::ClassAd* job, std::string* owner, std::string* err);
  core::Json status_reply(bool long_form);
  /// Each slot's ad as published: the core's ad plus the starter's pid and usage.
  std::vector<classad::AdPtr> slot_ads();

  // Local runs and local claims (agent_runs.cc).
  void run_request(core::Conn* c, core::Json& msg);
  void schedule_runs();
  enum class Placement { kPlaced, kWaiting, kBlocked };
  Placement place_run(RunRec* r);
  bool cleaning(const std::string& slot) const;
  bool claim_in_hand(const std::string& slot) const;
  /// True while `slot`'s last starter is still cleaning up after a job that ended less
  /// than kCleanupWaitMs ago: a run that fits that claim waits for it.
  bool briefly_cleaning(const std::string& slot) const;
  /// Activates `slot`'s claim with `r`'s job; a local run's claim is kept as a local claim.
  bool activate_run(RunRec* r, const std::string& slot);
  /// Claims `slot` for `ad` (a partitionable slot carves a dynamic one): the claimed slot's
  /// name, or "" with the core's reason in `why`. `after_backfill` (optional) tells a claim
  /// that waits for the slot's backfill client to go (the slot is claimed once it has).
  std::string claim_slot(const std::string& slot, const classad::ClassAd* ad, std::string* why,
                         bool* after_backfill = nullptr);
  void release_idle_claims(bool all);
  RunRec* run_of(int64_t id);
  void tell_run(RunRec* r, core::Json msg);
  void keep_local_claims_alive();

  AgentOptions opts_;
  uv_loop_t loop_{};
  std::unique_ptr<config::Config> cfg_;
  AgentConfig ac_;
  RealClock clock_;
  hal::Root root_;
  hal::HalReport report_;
  startd::MachineFacts facts_;
  std::unique_ptr<startd::Startd> sd_;
  std::unique_ptr<hal::Cgroups> cgroups_;
  std::unique_ptr<CronRunner> cron_;  // STARTD_CRON_JOBLIST monitors
  // Resource monitors (_METRICS) by job name: their devices' and slots' accounting.
  std::map<std::string, std::unique_ptr<startd::CronMonitorState>> monitors_;
  int64_t started_at_ = 0;  // when the agent started (Device<Name>AverageUsage's span)
  std::map<std::string, std::unique_ptr<starter::CgroupReaper>> reapers_;  // by slot
  LoopLagProbe lag_probe_;
  SlicedQueue kill_queue_;  // kills and exit reports of KILLING_TIMEOUT, in slices
  struct BenchmarkRun* benchmark_ = nullptr;  // the running benchmark child, if any
  std::unique_ptr<CollectorLink> collector_;  // COLLECTOR_HOST set: the CM hears our ads
  PowerState power_;
  std::string starter_cmd_;            // STARTER: how to run `kite starter` (may carry an emulator)
  std::unique_ptr<HookRunner> hooks_;  // fetch-work hooks and the backfill client
  startd::BackfillClient backfill_client_;  // BACKFILL_SYSTEM's program
  struct BackfillRun* backfill_ = nullptr;  // the backfill client, while it runs
  int64_t backfill_not_before_ms_ = 0;      // a client that died young is not restarted at once
  int64_t fetch_run_ = 0;                   // the run record of the fetched job being offered
  classad::AdPtr fetch_job_;                // ... and its ad
  std::map<std::string, classad::AdPtr> fetched_jobs_;  // slot -> job of its fetched claim
  bool fetch_accepted_ = false;  // the work being offered was accepted (reply-fetch)
  // slot -> run record of fetched work that preempts by RANK: it starts once the running job
  // has retired and its claim is the slot's own.
  std::map<std::string, int64_t> fetch_waiting_runs_;

  uv_pipe_t control_{};
  bool control_open_ = false;
  int lock_fd_ = -1;              // LOCAL_DIR/agent.lock, held for the life of the agent
  uint64_t refused_clients_ = 0;  // connections refused over AGENT_MAX_CONNECTIONS
  uv_timer_t poll_timer_{};
  uv_timer_t wake_timer_{};
  uv_signal_t sig_hup_{}, sig_term_{}, sig_int_{}, sig_quit_{};
  int exit_code_ = 0;
  bool stopping_ = false;

  std::map<std::string, std::unique_ptr<StarterRec>> starters_;  // by slot
  std::vector<std::unique_ptr<StarterRec>> finished_;            // exited, cleaning up
  std::map<int64_t, std::unique_ptr<RunRec>> runs_;              // by id
  std::map<std::string, int64_t> activating_;         // slot -> run id awaiting spawn-starter
  std::map<std::string, int64_t> local_claims_;       // slot -> idle since (0 = busy)
  std::map<std::string, RemoteClaim> remote_claims_;  // the CM's claim id -> its claim
  std::vector<core::Conn*> clients_;
  std::map<std::string, std::string> runtime_config_;  // `kite config-val -rset`, until exit
  ConfigCommandOutputs config_outputs_;    // what the running configuration's commands printed
  ConfigCommandOutputs reconfig_outputs_;  // collected by the reconfig waiting on commands
  bool reconfig_running_ = false;          // a reconfig waits on configuration commands
  bool reconfig_again_ = false;            // ... and another was asked for meanwhile
  int64_t next_run_id_ = 1;
  bool scheduling_ = false;
  bool reschedule_ = false;
};

}  // namespace kite::agent
