// The agent's life: configuration, startup, the libuv loop with its timers and signals, and
// the event-in/action-out cycle around the startd core.
#include "agent/startd/agent.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <ctime>

#include "agent/core/files.h"
#include "agent/core/lock_file.h"
#include "agent/core/log.h"
#include "agent/startd/node_probe.h"
#include "policy/config/persistent.h"

// Every action kind the core emits must be carried out: a new kind without a case in
// Agent::execute is a build error, not a silently dropped decision.
#pragma GCC diagnostic error "-Wswitch"

namespace kite::agent {

int64_t RealClock::now() const {
  return static_cast<int64_t>(std::time(nullptr));
}

namespace {

int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::string self_exe() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "kite";
  buf[n] = '\0';
  return buf;
}

}  // namespace

Agent::Agent(AgentOptions opts) : opts_(std::move(opts)) {}

Agent::~Agent() = default;

bool Agent::load_config(config::Config* cfg, AgentConfig* ac, std::string* err,
                        const ConfigCommandOutputs* outputs, std::vector<std::string>* used,
                        std::vector<std::string>* missing) {
  if (outputs) {
    cfg->set_command_runner(config_command_server(outputs, used, missing));
  } else {
    cfg->set_command_runner([this](const std::string& command, std::string* text) {
      config::Status st = run_config_command(command, text);
      config_outputs_[command] = {st, st.ok ? *text : std::string()};
      return st;
    });
  }
  // The cache files of `include command into FILE` are written by the loads that apply, not
  // by a reconfig's check with the previous outputs.
  if (outputs != &config_outputs_) cfg->set_cache_writer(write_config_cache);
  config::Status st = config_load_default(opts_.config_path.c_str(), cfg);
  // The configuration kept holds no reference to this load.
  cfg->set_command_runner(nullptr);
  cfg->set_cache_writer(nullptr);
  if (st.ok) st = config::load_runtime(cfg, runtime_config_);  // -rset settings come last
  if (st.ok) st = cfg->finish();
  if (!st.ok) {
    *err = "configuration error: " + st.message;
    return false;
  }
  if (!agent_config_read(*cfg, opts_.foreground, ac, err)) {
    *err = "configuration error: " + *err;
    return false;
  }
  return true;
}

bool Agent::init(std::string* err) {
  cfg_ = std::make_unique<config::Config>("STARTD");
  if (!load_config(cfg_.get(), &ac_, err)) return false;
  core::LogLevel lvl;
  if (!core::log_level_parse(ac_.log_level, &lvl)) {
    *err = "configuration error: AGENT_LOG_LEVEL = " + ac_.log_level +
           ": not one of debug, info, warn, error";
    return false;
  }
  core::Log::set_level(lvl);
  // One agent per LOCAL_DIR: a second one must not take over the first's log, socket or
  // starters, so the lock comes before any of them.
  if (!core::make_dirs(ac_.local_dir, 0755, err) || !lock_local_dir(err)) return false;
  if (!ac_.log.empty()) {
    std::string dir = ac_.log.substr(0, ac_.log.rfind('/'));
    if (!dir.empty() && !core::make_dirs(dir, 0755, err)) return false;
    if (!core::Log::open(ac_.log, ac_.max_log, err)) return false;
  }
  for (const std::string& w : cfg_->warnings()) KLOG_WARN("config: %s", w.c_str());
  if (!core::make_dirs(ac_.execute, 0755, err) || !core::make_dirs(ac_.starter_dir, 0700, err)) {
    return false;
  }
  std::string v;
  starter_cmd_ = cfg_->get("STARTER", &v) && !v.empty() ? v : self_exe();

  if (!node_probe(root_, cfg_.get(), ac_.execute, &report_, &facts_, err)) return false;
  for (const std::string& n : report_.notes) KLOG_INFO("hal: %s", n.c_str());
  sd_ = std::make_unique<startd::Startd>(*cfg_, facts_, clock_);
  if (!sd_->init(err)) {
    *err = "slot layout: " + *err;
    return false;
  }
  power_setup(true);
  hal::CgroupLayout layout;
  hal::Root croot(ac_.cgroup_root);
  if (!ac_.cgroup.base.empty() && hal::cgroup_detect(croot, &layout).ok) {
    cgroups_ = std::make_unique<hal::Cgroups>(croot, layout, ac_.cgroup.base);
  }
  if (!read_backfill_client(&backfill_client_, err)) {
    *err = "configuration error: " + *err;
    return false;
  }
  KLOG_INFO("kite agent %s on %s: %d cpus, %lld MiB, %zu slot(s), cgroups %s", KITE_VERSION,
            facts_.hostname.c_str(), facts_.cpus, static_cast<long long>(facts_.memory_mb),
            sd_->slots().size(), cgroups_ ? hal::cgroup_mode_name(layout.mode) : "off");
  return true;
}

bool Agent::lock_local_dir(std::string* err) {
  std::string path = ac_.local_dir + "/agent.lock", why;
  pid_t holder = 0;
  lock_fd_ = core::lock_file(path, &holder, &why);
  if (lock_fd_ >= 0) return true;
  *err = "another agent is running on LOCAL_DIR " + ac_.local_dir;
  if (holder > 0) *err += " (pid " + std::to_string(holder) + ")";
  *err += ": " + why + "; not starting";
  return false;
}

int Agent::run() {
  std::string err;
  if (!init(&err)) {
    KLOG_ERROR("%s", err.c_str());
    std::fprintf(stderr, "kite agent: %s\n", err.c_str());
    return 2;
  }
  uv_loop_init(&loop_);
  loop_.data = this;
  uv_timer_init(&loop_, &poll_timer_);
  uv_timer_init(&loop_, &wake_timer_);
  poll_timer_.data = wake_timer_.data = this;
  // A start that fails from here on closes the loop cleanly.
  auto abandon_loop = [this] {
    uv_close(reinterpret_cast<uv_handle_t*>(&poll_timer_), nullptr);
    uv_close(reinterpret_cast<uv_handle_t*>(&wake_timer_), nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
    uv_loop_close(&loop_);
  };
  collector_ = CollectorLink::create(&loop_, *cfg_, facts_.hostname, this, &err);
  if (collector_) collector_->set_sink(this);
  if (!collector_ && !err.empty()) {
    KLOG_ERROR("configuration error: %s", err.c_str());
    std::fprintf(stderr, "kite agent: configuration error: %s\n", err.c_str());
    abandon_loop();
    return 1;
  }
  if (!listen_control(&err)) {
    KLOG_ERROR("%s", err.c_str());
    std::fprintf(stderr, "kite agent: %s\n", err.c_str());
    collector_.reset();
    abandon_loop();
    return 1;
  }

  auto on_signal = [](uv_signal_t* h, int signum) {
    Agent* a = static_cast<Agent*>(h->loop->data);
    switch (signum) {
      case SIGHUP: a->reconfig(); break;
      case SIGQUIT: a->begin_shutdown(startd::ShutdownMode::kFast); break;
      default: a->begin_shutdown(startd::ShutdownMode::kGraceful); break;
    }
  };
  struct {
    uv_signal_t* h;
    int sig;
  } sigs[] = {
      {&sig_hup_, SIGHUP}, {&sig_term_, SIGTERM}, {&sig_int_, SIGINT}, {&sig_quit_, SIGQUIT}};
  for (auto& s : sigs) {
    uv_signal_init(&loop_, s.h);
    uv_signal_start(s.h, on_signal, s.sig);
  }
  ::signal(SIGPIPE, SIG_IGN);

  adopt_starters();
  hooks_ = std::make_unique<HookRunner>(&loop_);
  adopt_remote_claims();
  cron_ = std::make_unique<CronRunner>(&loop_, this);
  started_at_ = clock_.now();
  std::string config_path = opts_.config_path;
  if (!config_path.empty() && config_path[0] != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd)) config_path = std::string(cwd) + "/" + config_path;
  }
  cron_->set_kite_command(split_words(starter_cmd_), config_path);
  cron_->configure(ac_.cron, false);
  start_helpers();
  uint64_t poll_ms = static_cast<uint64_t>(sd_->polling_interval()) * 1000;
  uv_timer_start(
      &poll_timer_, [](uv_timer_t* t) { static_cast<Agent*>(t->loop->data)->on_poll(); }, poll_ms,
      poll_ms);
  evaluate();
  KLOG_INFO("agent ready: control socket %s", ac_.socket.c_str());

  uv_run(&loop_, UV_RUN_DEFAULT);
  power_stop();
  cron_->close();  // its handles are not the kinds the walks below know how to free
  close_hooks();   // nor are the hook processes'
  if (collector_) collector_->close();  // nor are the TLS connections'

  stop_helpers();
  // Close every handle so the loop can be closed cleanly.
  // Heap-owned handles (connections, starter processes, retry timers) free themselves.
  // Connections first: each closes its own idle timer, which the second walk then skips.
  uv_walk(
      &loop_,
      [](uv_handle_t* h, void* self) {
        if (!uv_is_closing(h) && h->type == UV_NAMED_PIPE && h->data != self)
          static_cast<core::Conn*>(h->data)->close_quietly();
      },
      this);
  uv_walk(
      &loop_,
      [](uv_handle_t* h, void* self) {
        if (uv_is_closing(h)) return;
        auto* a = static_cast<Agent*>(self);
        if (a->collector_ && a->collector_->closing_handle(h)) return;  // frees itself
        if (h->type == UV_PROCESS) {
          uv_close(h, [](uv_handle_t* p) { delete reinterpret_cast<uv_process_t*>(p); });
        } else if (h->type == UV_TIMER && h->data != nullptr && h->data != self) {
          uv_close(h, [](uv_handle_t* t) { delete reinterpret_cast<uv_timer_t*>(t); });
        } else {
          uv_close(h, nullptr);
        }
      },
      this);
  uv_run(&loop_, UV_RUN_DEFAULT);
  uv_loop_close(&loop_);
  ::unlink(ac_.socket.c_str());
  KLOG_INFO("agent exiting (%d)", exit_code_);
  return exit_code_;
}

bool Agent::reconfig(std::string* error, bool* pending) {
  std::string scratch;
  std::string& err = error ? *error : scratch;
  if (pending) *pending = false;
  if (reconfig_running_) {
    reconfig_again_ = true;
    if (pending) *pending = true;
    KLOG_INFO(
        "reconfig: the last reconfig's configuration commands are still running; the "
        "configuration is read again after them");
    return true;
  }
  KLOG_INFO("reconfig: re-reading the configuration");
  auto fresh = std::make_unique<config::Config>("STARTD");
  AgentConfig ac;
  std::vector<std::string> used, missing;
  // With the outputs the running configuration was read with first: what does not load with
  // them (an edit by config-val -set, say) is refused at once.
  bool ok = load_config(fresh.get(), &ac, &err, &config_outputs_, &used, &missing);
  if (!ok && missing.empty()) {
    KLOG_ERROR("reconfig refused, keeping the running configuration: %s", err.c_str());
    return false;
  }
  if (used.empty()) return apply_config(std::move(fresh), ac, &err);
  // It reads commands' outputs: they run again, on the loop, and it applies after them.
  if (pending) *pending = true;
  reconfig_running_ = true;
  reconfig_outputs_.clear();
  run_reconfig_commands(used, 1);
  return true;
}

void Agent::run_reconfig_commands(const std::vector<std::string>& commands, int round) {
  KLOG_INFO(
      "reconfig: running %zu configuration command(s); the new configuration applies "
      "when they are done",
      commands.size());
  run_config_commands(hooks_.get(), commands, kConfigCommandTimeoutMs,
                      [this, round](ConfigCommandOutputs outputs) {
                        if (stopping_) return;  // the agent is closing its hooks
                        for (auto& [command, out] : outputs) {
                          if (!out.status.ok)
                            KLOG_WARN("reconfig: configuration command %s: %s", command.c_str(),
                                      out.status.message.c_str());
                          reconfig_outputs_[command] = std::move(out);
                        }
                        finish_reconfig(round);
                      });
}

void Agent::finish_reconfig(int round) {
  // A command's output may include further commands: they run in another round.
  constexpr int kMaxRounds = 8;
  auto fresh = std::make_unique<config::Config>("STARTD");
  AgentConfig ac;
  std::string err;
  std::vector<std::string> used, missing;
  bool ok = load_config(fresh.get(), &ac, &err, &reconfig_outputs_, &used, &missing);
  if (!missing.empty()) {
    if (round < kMaxRounds) {
      run_reconfig_commands(missing, round + 1);
      return;
    }
    ok = false;
    err = "configuration commands still name new commands after " + std::to_string(kMaxRounds) +
          " rounds (" + missing.front() + ")";
  }
  reconfig_running_ = false;
  if (!ok) {
    KLOG_ERROR("reconfig refused, keeping the running configuration: %s", err.c_str());
  } else {
    ConfigCommandOutputs kept;
    for (const std::string& u : used) kept[u] = reconfig_outputs_[u];
    if (apply_config(std::move(fresh), ac, &err)) config_outputs_ = std::move(kept);
  }
  reconfig_outputs_.clear();
  if (reconfig_again_) {
    reconfig_again_ = false;
    reconfig();
  }
}

bool Agent::apply_config(std::unique_ptr<config::Config> fresh, const AgentConfig& ac_in,
                         std::string* error) {
  std::string& err = *error;
  AgentConfig ac = ac_in;
  // As in HTCondor, the slot layout is fixed for the life of the daemon.
  static const char* const kLayout[] = {"NUM_CPUS", "MEMORY", "NUM_SLOTS",
                                        "MACHINE_RESOURCE_NAMES"};
  for (const char* n : kLayout) {
    std::string a, b;
    cfg_->get(n, &a);
    fresh->get(n, &b);
    if (a != b) KLOG_WARN("reconfig: %s changed; slot layout changes need a restart", n);
  }
  for (const config::Entry& e : fresh->entries()) {
    if (strncasecmp(e.name.c_str(), "SLOT_TYPE_", 10) == 0 ||
        strncasecmp(e.name.c_str(), "NUM_SLOTS_TYPE_", 15) == 0) {
      config::Entry old;
      if (!cfg_->lookup(e.name, &old) || old.value != e.value)
        KLOG_WARN("reconfig: %s changed; slot layout changes need a restart", e.name.c_str());
    }
  }
  // Facts the probe detected carry over to the new configuration.
  for (const config::Entry& e : cfg_->entries()) {
    if (e.source == "<Detected>") fresh->set_detected(e.name, e.value);
  }
  // The collectors and their certificates are read (not yet applied) with the rest.
  CollectorSettings collectors;
  if (!CollectorLink::read_settings(*fresh, facts_.hostname, &collectors, &err)) {
    KLOG_ERROR("reconfig refused, keeping the running configuration: %s", err.c_str());
    return false;
  }
  config::Config previous = *cfg_;
  *cfg_ = std::move(*fresh);
  if (!sd_->reload_policy(&err)) {
    KLOG_ERROR("reconfig refused, keeping the running policy: %s", err.c_str());
    *cfg_ = std::move(previous);
    return false;
  }
  ac.socket = ac_.socket;  // the socket stays where clients found it
  ac_ = ac;
  startd::BackfillClient bf;
  if (read_backfill_client(&bf, &err)) {
    backfill_client_ = std::move(bf);
  } else {
    KLOG_ERROR("reconfig: keeping the previous backfill client: %s", err.c_str());
  }
  core::LogLevel lvl;
  if (core::log_level_parse(ac_.log_level, &lvl)) core::Log::set_level(lvl);
  KLOG_INFO("reconfig: policy reloaded");
  if (cron_) cron_->configure(ac_.cron, true);
  power_setup(false);
  evaluate();
  // COLLECTOR_HOST: collectors added are dialled, those removed left, the others kept.
  if (!collector_ && !collectors.collectors.empty()) {
    collector_ = CollectorLink::create(&loop_, *cfg_, facts_.hostname, this, &err);
    if (collector_) collector_->set_sink(this);
  } else if (collector_) {
    collector_->apply(std::move(collectors));
  }
  // The policy expressions are in the ads: the CM hears the new ones now, not at the next
  // UPDATE_INTERVAL (only ads that changed are sent).
  if (collector_) collector_->publish(false);
  return true;
}

void Agent::begin_shutdown(startd::ShutdownMode mode) {
  KLOG_INFO("shutdown requested (%s)", mode == startd::ShutdownMode::kFast ? "fast" : "graceful");
  startd::Event ev;
  ev.kind = startd::EventKind::kShutdown;
  ev.shutdown = mode;
  std::string err;
  if (!handle(ev, &err)) KLOG_WARN("shutdown: %s", err.c_str());
}

void Agent::on_poll() {
  node_sample(root_, *cfg_, &facts_);
  sd_->update_facts(facts_);
  keep_local_claims_alive();
  release_idle_claims(false);
  evaluate();
}

void Agent::on_wake() {
  evaluate();
}

void Agent::arm_wake_timer() {
  if (stopping_) return;
  int64_t next = sd_->next_timer();
  if (next == INT64_MAX) {
    uv_timer_stop(&wake_timer_);
    return;
  }
  int64_t delay = next * 1000 - now_ms();
  if (delay < 0) delay = 0;
  uv_timer_start(
      &wake_timer_, [](uv_timer_t* t) { static_cast<Agent*>(t->loop->data)->on_wake(); },
      static_cast<uint64_t>(delay), 0);
}

bool Agent::handle(startd::Event& ev, std::string* err) {
  startd::Output out;
  bool ok = sd_->handle(ev, &out, err);
  process(out);
  return ok;
}

void Agent::evaluate() {
  startd::Output out;
  sd_->evaluate(&out);
  process(out);
}

void Agent::process(startd::Output& out) {
  std::vector<std::string> lease_lost;
  for (int k : out.order) {
    if (k >= 0) {
      const startd::TransitionRecord& t = out.transitions[static_cast<size_t>(k)];
      KLOG_INFO("%s %s/%s -> %s/%s (%s)%s", t.slot.c_str(), startd::state_name(t.from_state),
                startd::activity_name(t.from_activity), startd::state_name(t.to_state),
                startd::activity_name(t.to_activity), t.cause.c_str(),
                t.number ? (" [" + std::to_string(t.number) + "]").c_str() : "");
      if (t.to_state == startd::State::kPreempting &&
          t.to_activity == startd::Activity::kVacating && t.cause == "claim lease expired" &&
          !remote_claim_of(t.slot).empty())
        lease_lost.push_back(t.slot);
      continue;
    }
    execute(out.actions[static_cast<size_t>(~k)]);
  }
  // HTCONDOR: the job lease is how long a job goes on running after its node lost contact
  // with the submit side, which then gives it to another node (run-only-once): the central
  // manager does so one alive interval after the lease, so the vacate time is not waited for
  // here and the job is killed now.
  for (const std::string& slot : lease_lost) {
    KLOG_WARN("%s: the central manager's claim lease ran out: its job is killed now", slot.c_str());
    startd::Event ev;
    ev.kind = startd::EventKind::kVacateFast;
    ev.slot = slot;
    std::string err;
    if (!handle(ev, &err)) KLOG_DEBUG("%s: %s", slot.c_str(), err.c_str());
  }
  schedule_runs();
  arm_wake_timer();
}

void Agent::execute(const startd::Action& a) {
  using startd::ActionKind;
  if (a.kind != ActionKind::kPublishAds) {
    KLOG_INFO("%s action %s%s%s", a.slot.c_str(), startd::action_name(a.kind),
              a.detail.empty() ? "" : " ", a.detail.c_str());
  }
  std::string err;
  switch (a.kind) {
    case ActionKind::kSpawnStarter:
      if (!spawn_starter(a.slot, &err)) {
        KLOG_ERROR("%s: cannot start the starter: %s", a.slot.c_str(), err.c_str());
        startd::Event ev;
        ev.kind = startd::EventKind::kStarterExited;
        ev.slot = a.slot;
        ev.exit_code = 1;
        auto it = activating_.find(a.slot);
        if (it != activating_.end()) {
          RunRec* r = run_of(it->second);
          activating_.erase(it);
          if (r) {
            core::Json m = core::Json::message("error");
            m.set("message", "cannot start the starter: " + err);
            tell_run(r, std::move(m));
            r->state = RunRec::State::kDone;
          }
        }
        std::string e2;
        handle(ev, &e2);
      }
      break;
    case ActionKind::kSuspend: starter_send(a.slot, core::Json::message("suspend")); break;
    case ActionKind::kContinue: starter_send(a.slot, core::Json::message("continue")); break;
    case ActionKind::kSoftKill: starter_send(a.slot, core::Json::message("soft-kill")); break;
    case ActionKind::kHardKill: starter_send(a.slot, core::Json::message("hard-kill")); break;
    case ActionKind::kKillStarter:
      // KILLING_TIMEOUT; a starter whose job is gone may hang in its cleanup (Claimed/Cleaning).
      if (!starter_of(a.slot) && cleaning_starter(a.slot)) {
        kill_cleaning_starter(a.slot);
      } else {
        kill_starter(a.slot);
      }
      break;
    case ActionKind::kHoldJob: hold_job(a); break;
    case ActionKind::kHibernate: hibernate(a); break;
    case ActionKind::kRunBenchmarks: run_benchmarks(); break;
    case ActionKind::kNotifyClaimant:
      if (pslot_claim_progress(a)) break;
      [[fallthrough]];
    case ActionKind::kDeleteSlot:
      local_claims_.erase(a.slot);
      remote_claim_ended(a.slot, a.detail);
      break;
    case ActionKind::kSpawnBackfill: spawn_backfill(); break;
    case ActionKind::kKillBackfill: kill_backfill(); break;
    case ActionKind::kFetchWork: fetch_work(a.slot); break;
    case ActionKind::kReplyFetch: reply_fetch(a); break;
    case ActionKind::kEvictClaim: evict_claim(a); break;
    case ActionKind::kExit:
      if (!stopping_) {
        stopping_ = true;
        KLOG_INFO("shutdown complete");
        uv_stop(&loop_);
      }
      break;
    case ActionKind::kPublishAds:
      // While a sleep waits for its offline ads to leave, they stay what the CM last heard.
      if (collector_ && !power_.timer) collector_->publish(false);
      break;
    // Nothing to carry out here: a carved slot is found in the core's output by the run that
    // asked for it (place_run), and a refusal is already in the core's log line.
    case ActionKind::kCreateSlot:
    case ActionKind::kRefuse: pslot_claim_progress(a); break;
  }
}

}  // namespace kite::agent
