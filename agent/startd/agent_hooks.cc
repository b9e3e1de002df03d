// The fetch-work job hooks and the backfill client in the agent: runs the hook programs the
// core asks for (fetch-work, reply-fetch, evict-claim actions), hands a fetched job to the core
// and the ordinary starter path, and runs, confines (a cgroup like a job's) and kills the
// backfill client. Decisions are the core's (policy/startd/fetch_work.cc, Backfill states).
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include "agent/core/accounts.h"
#include "agent/core/log.h"
#include "agent/startd/agent.h"
#include "agent/starter/sandbox.h"
#include "policy/classad/parser.h"
#include "policy/config/typed.h"
#include "policy/startd/text_util.h"

namespace kite::agent {

namespace {

// HTCondor documents no time limit for the startd's hooks (only <Keyword>_HOOK_JOB_EXIT_TIMEOUT
// for the starter's): Kite gives each <Keyword>_HOOK_<NAME>_TIMEOUT, else JOB_HOOK_TIMEOUT
// (Kite's limit for the starter's hooks, 120 s).
constexpr size_t kMaxHookOutput = 256 * 1024;  // a job ad; more is a runaway hook
// A backfill client that ends within this many ms of its start is not started again before
// as many ms have passed (a client that cannot run must not spin the loop).
constexpr int64_t kBackfillBackoffMs = 30000;
constexpr int64_t kBackfillReapMs = 10000;  // longest wait for its cgroup to empty

int slot_id_of(const std::string& slot) {
  // "slot3" and "slot3_1" are SlotID 3.
  return slot.size() > 4 ? std::atoi(slot.c_str() + 4) : 0;
}

int64_t hook_timeout_s(const config::Config& cfg, const std::string& keyword, const char* hook,
                       int64_t dflt) {
  int64_t n = 0;
  bool found = false;
  std::string name = keyword + "_HOOK_" + hook + "_TIMEOUT";
  if (config::read_int(cfg, name, &n, &found).ok && found && n > 0) return n;
  return dflt;
}

// The stdin of the reply-fetch and evict-claim hooks: "A copy of the job ClassAd and the slot
// ClassAd (separated by the string ----- and a new line)".
std::string job_and_slot(const classad::ClassAd* job, const classad::ClassAd* slot) {
  std::string in = job ? starter::ad_to_old_text(*job) : "";
  in += "-----\n";
  if (slot) in += starter::ad_to_old_text(*slot);
  return in;
}

}  // namespace

struct BackfillRun {
  HookProcess* proc = nullptr;
  hal::JobCgroup cg;
  bool cg_made = false;
  bool kill_requested = false;
  uint64_t started_ms = 0;
  uv_timer_t* timer = nullptr;  // a delayed start, then the cgroup reaper
  uint64_t reap_deadline = 0;
};

bool Agent::read_backfill_client(startd::BackfillClient* out, std::string* err) {
  if (!startd::backfill_client_read(*cfg_, out, err)) return false;
  if (out->cwd.empty()) out->cwd = ac_.execute;
  if (out->user.empty()) out->user = ac_.slot_user;
  bool static_slot = false;
  for (const startd::SlotView& v : sd_->slots()) static_slot = static_slot || !v.partitionable;
  if (!out->argv.empty() && !static_slot)
    KLOG_WARN(
        "ENABLE_BACKFILL: backfill runs on static slots only, and this layout has none "
        "(NUM_SLOTS or SLOT_TYPE_<N> make static slots)");
  return true;
}

// ---- fetch work -------------------------------------------------------------------------------

void Agent::fetch_work(const std::string& slot) {
  startd::SlotView v;
  bool have = sd_->slot(slot, &v) && v.ad;
  startd::JobHooks h = startd::job_hooks_for_slot(*cfg_, slot_id_of(slot));
  std::string what = "fetch-work hook " + h.fetch_work + " (" + slot + ")";
  if (!have || !h.active() || !hooks_) {
    HookResult none;
    none.spawned = true;
    fetch_done(slot, what, none);
    return;
  }
  HookOptions o;
  o.name = what;
  o.argv = {h.fetch_work};
  o.input = starter::ad_to_old_text(*v.ad);
  o.max_output = kMaxHookOutput;
  o.timeout_ms =
      static_cast<uint64_t>(hook_timeout_s(*cfg_, h.keyword, "FETCH_WORK", ac_.hook_timeout)) *
      1000;
  hooks_->start(std::move(o),
                [this, slot, what](const HookResult& r) { fetch_done(slot, what, r); });
}

void Agent::fetch_done(const std::string& slot, const std::string& what, const HookResult& r) {
  if (stopping_) return;
  classad::AdPtr job;
  std::string text = startd::trim(r.output);
  if (!r.spawned) {
    KLOG_WARN("%s: cannot run: %s", what.c_str(), r.spawn_error.c_str());
  } else if (r.timed_out) {
    KLOG_WARN("%s: still running after its time limit: killed, no work taken", what.c_str());
  } else if (r.overflow) {
    KLOG_WARN("%s: more than %zu bytes of output: killed, output ignored", what.c_str(),
              kMaxHookOutput);
  } else if (!text.empty()) {
    classad::ParseError pe;
    job = classad::parse_classad_any(text, &pe);
    std::string cmd;
    if (!job) {
      KLOG_WARN("%s: output is not a job ClassAd (%s); ignored", what.c_str(),
                pe.to_string().c_str());
    } else if (!job->evaluate_string("Cmd", cmd) || cmd.empty()) {
      KLOG_WARN("%s: the job ad it printed has no Cmd; ignored", what.c_str());
      job = classad::AdPtr();
    }
  }
  // The run record the starter path needs; it has no client to tell.
  int64_t run_id = 0;
  if (job) {
    startd::JobHooks h = startd::job_hooks_for_slot(*cfg_, slot_id_of(slot));
    job->insert_value("HookKeyword", classad::Value::string(h.keyword));
    if (!job->lookup("JobUniverse")) job->insert_value("JobUniverse", classad::Value::integer(5));
    auto rec = std::make_unique<RunRec>();
    rec->id = run_id = next_run_id_++;
    rec->job = classad::AdPtr(job->copy());
    rec->state = RunRec::State::kRunning;  // not for schedule_runs to place
    runs_[run_id] = std::move(rec);
    fetch_run_ = run_id;
    fetch_job_ = classad::AdPtr(job->copy());
    KLOG_INFO("%s: supplied a job: %s", what.c_str(),
              [&] {
                std::string c;
                job->evaluate_string("Cmd", c);
                return c;
              }()
                  .c_str());
  }
  startd::Event ev;
  ev.kind = startd::EventKind::kFetchedWork;
  ev.slot = slot;
  ev.ad = job.get();
  std::string err;
  fetch_accepted_ = false;
  // The running claim's own fetched job, if any: a fetched job that preempts it by RANK must
  // not take its place for that claim's evict-claim hook.
  classad::AdPtr running_fetched;
  if (auto f = fetched_jobs_.find(slot); f != fetched_jobs_.end() && f->second)
    running_fetched = classad::AdPtr(f->second->copy());
  if (!handle(ev, &err)) KLOG_DEBUG("%s: %s", what.c_str(), err.c_str());
  fetch_run_ = 0;
  fetch_job_ = classad::AdPtr();
  if (RunRec* rec = run_of(run_id); rec && rec->slot.empty()) {
    if (fetch_accepted_) {
      // Accepted but not started: it preempts the running job by RANK and starts later.
      auto old = fetch_waiting_runs_.find(slot);
      if (old != fetch_waiting_runs_.end()) runs_.erase(old->second);
      fetch_waiting_runs_[slot] = run_id;
      if (running_fetched) {
        fetched_jobs_[slot] = std::move(running_fetched);
      } else {
        fetched_jobs_.erase(slot);
      }
      KLOG_INFO("%s: the job preempts the running one by RANK; it starts when that one is gone",
                what.c_str());
    } else {
      runs_.erase(run_id);
    }
  }
}

void Agent::advisory_hook(const std::string& slot, const char* hook, const std::string& path,
                          const std::string& arg, const classad::ClassAd* job) {
  if (path.empty() || !hooks_) return;
  startd::JobHooks h = startd::job_hooks_for_slot(*cfg_, slot_id_of(slot));
  startd::SlotView v;
  bool have = sd_->slot(slot, &v) && v.ad;
  HookOptions o;
  o.name = std::string(hook) + " hook " + path + " (" + slot + ")";
  o.argv = {path};
  if (!arg.empty()) o.argv.push_back(arg);
  o.input = job_and_slot(job, have ? v.ad : nullptr);
  o.capture = false;  // "it ignores all output"
  std::string name = hook;
  for (char& c : name) c = c == '-' ? '_' : static_cast<char>(std::toupper(c));
  o.timeout_ms =
      static_cast<uint64_t>(hook_timeout_s(*cfg_, h.keyword, name.c_str(), ac_.hook_timeout)) *
      1000;
  std::string what = o.name;
  hooks_->start(std::move(o), [what](const HookResult& r) {
    if (!r.spawned)
      KLOG_WARN("%s: cannot run: %s", what.c_str(), r.spawn_error.c_str());
    else if (r.timed_out)
      KLOG_WARN("%s: still running after its time limit: killed", what.c_str());
  });
}

void Agent::reply_fetch(const startd::Action& a) {
  bool accepted = a.detail.compare(0, 6, "accept") == 0;
  fetch_accepted_ = fetch_accepted_ || accepted;
  if (accepted && fetch_job_) fetched_jobs_[a.slot] = classad::AdPtr(fetch_job_->copy());
  startd::JobHooks h = startd::job_hooks_for_slot(*cfg_, slot_id_of(a.slot));
  advisory_hook(a.slot, "reply-fetch", h.reply_fetch, accepted ? "accept" : "reject",
                fetch_job_.get());
}

void Agent::evict_claim(const startd::Action& a) {
  classad::AdPtr job;
  auto it = fetched_jobs_.find(a.slot);
  if (it != fetched_jobs_.end()) {
    job = std::move(it->second);
    fetched_jobs_.erase(it);
  }
  startd::JobHooks h = startd::job_hooks_for_slot(*cfg_, slot_id_of(a.slot));
  advisory_hook(a.slot, "evict-claim", h.evict_claim, "", job.get());
}

// ---- backfill -----------------------------------------------------------------------------------

void Agent::spawn_backfill() {
  if (backfill_) {
    KLOG_WARN("backfill client: asked to start while one is still there; ignored");
    return;
  }
  backfill_ = new BackfillRun();
  uint64_t now = uv_now(&loop_);
  if (static_cast<int64_t>(now) < backfill_not_before_ms_) {
    uint64_t wait = static_cast<uint64_t>(backfill_not_before_ms_) - now;
    KLOG_INFO("backfill client: starting in %llu ms (it ended soon after its last start)",
              static_cast<unsigned long long>(wait));
    backfill_->timer = new uv_timer_t{};
    uv_timer_init(&loop_, backfill_->timer);
    backfill_->timer->data = this;
    uv_timer_start(
        backfill_->timer,
        [](uv_timer_t* t) {
          Agent* a = static_cast<Agent*>(t->data);
          uv_close(reinterpret_cast<uv_handle_t*>(t),
                   [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
          a->backfill_->timer = nullptr;
          BackfillRun* b = a->backfill_;
          a->backfill_ = nullptr;
          delete b;
          a->spawn_backfill();
        },
        wait, 0);
    return;
  }
  HookOptions o;
  o.name = "backfill client";
  o.argv = backfill_client_.argv;
  o.cwd = backfill_client_.cwd;
  o.capture = false;
  // Not as root: as the configured account (a job's slot user by default).
  if (::geteuid() == 0) {
    core::Account acct;
    if (!core::account_by_name(backfill_client_.user, &acct)) {
      KLOG_ERROR(
          "backfill client: no account named '%s' (KITE_BACKFILL_USER / BOINC_Owner / "
          "SLOT_USER); not started",
          backfill_client_.user.c_str());
      o.argv.clear();  // reported as not started, like any failed start
    } else if (acct.uid == 0 && !ac_.allow_root_jobs) {
      KLOG_ERROR(
          "backfill client: account '%s' is root and ALLOW_ROOT_JOBS is false; not "
          "started",
          backfill_client_.user.c_str());
      o.argv.clear();
    }
    o.set_user = true;
    o.uid = acct.uid;
    o.gid = acct.gid;
  }
  backfill_->started_ms = now;
  backfill_->proc =
      hooks_->start(std::move(o), [this](const HookResult& r) { backfill_exited(r); });
  pid_t pid = backfill_->proc->pid();
  if (pid <= 0) return;  // could not start: the exit callback follows
  // Confined like a job: its own cgroup, killed as a whole. (A child it forks before it joins
  // escapes the cgroup, not the kill: the session is killed too.)
  if (cgroups_) {
    hal::Status st = cgroups_->create("backfill", &backfill_->cg);
    if (st.ok) st = cgroups_->add_pid(backfill_->cg, pid);
    if (st.ok) {
      backfill_->cg_made = true;
    } else {
      KLOG_WARN("backfill client: no cgroup: %s", st.message.c_str());
      hal::Status ignore = cgroups_->destroy(&backfill_->cg);
      (void)ignore;
    }
  }
  KLOG_INFO("backfill client %d started: %s as %s%s", pid, backfill_client_.argv[0].c_str(),
            ::geteuid() == 0 ? backfill_client_.user.c_str() : "the agent's user",
            backfill_->cg_made ? " (cgroup backfill)" : "");
}

void Agent::kill_backfill() {
  if (!backfill_ || !backfill_->proc) {
    if (backfill_ && backfill_->cg_made) return;  // the reaper is at work: it reports
    // Nothing running (or a delayed start): gone at once.
    if (backfill_ && backfill_->timer) {
      uv_close(reinterpret_cast<uv_handle_t*>(backfill_->timer),
               [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
      backfill_->timer = nullptr;
    }
    delete backfill_;
    backfill_ = nullptr;
    backfill_gone();
    return;
  }
  backfill_->kill_requested = true;
  KLOG_INFO("backfill client %d: killing it", backfill_->proc->pid());
  backfill_->proc->kill();
  if (backfill_->cg_made) {
    hal::Status ignore = cgroups_->kill_step(backfill_->cg);
    (void)ignore;
  }
}

void Agent::backfill_exited(const HookResult& r) {
  BackfillRun* b = backfill_;
  if (!b) return;
  b->proc = nullptr;
  uint64_t now = uv_now(&loop_);
  if (!r.spawned) {
    KLOG_ERROR("backfill client: cannot run %s: %s",
               backfill_client_.argv.empty() ? "(none)" : backfill_client_.argv[0].c_str(),
               r.spawn_error.c_str());
  } else if (!b->kill_requested) {
    KLOG_WARN("backfill client exited by itself (status %lld, signal %d)",
              static_cast<long long>(r.status), r.term_signal);
  } else {
    KLOG_INFO("backfill client killed");
  }
  if (!b->kill_requested && now - b->started_ms < static_cast<uint64_t>(kBackfillBackoffMs))
    backfill_not_before_ms_ = static_cast<int64_t>(now) + kBackfillBackoffMs;
  if (!b->cg_made) {
    backfill_gone();
    return;
  }
  b->reap_deadline = now + kBackfillReapMs;
  b->timer = new uv_timer_t{};
  uv_timer_init(&loop_, b->timer);
  b->timer->data = this;
  uv_timer_start(
      b->timer, [](uv_timer_t* t) { static_cast<Agent*>(t->data)->backfill_reap(); }, 0, 50);
}

// What the client left in its cgroup is killed, then the cgroup removed, without blocking.
void Agent::backfill_reap() {
  BackfillRun* b = backfill_;
  bool done = false;
  if (!cgroups_->is_empty(b->cg)) {
    hal::Status ignore = cgroups_->kill_step(b->cg);
    (void)ignore;
  } else {
    bool busy = false;
    hal::Status st = cgroups_->remove(&b->cg, &busy);
    if (!st.ok) KLOG_WARN("backfill client: cgroup not removed: %s", st.message.c_str());
    done = !busy;
  }
  if (!done && uv_now(&loop_) >= b->reap_deadline) {
    KLOG_WARN("backfill client: its cgroup is still busy after %lld ms; left behind",
              static_cast<long long>(kBackfillReapMs));
    done = true;
  }
  if (!done) return;
  uv_close(reinterpret_cast<uv_handle_t*>(b->timer),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
  b->timer = nullptr;
  b->cg_made = false;
  backfill_gone();
}

void Agent::backfill_gone() {
  if (backfill_ && (backfill_->proc || backfill_->timer)) return;
  delete backfill_;
  backfill_ = nullptr;
  if (stopping_) return;
  startd::Event ev;
  ev.kind = startd::EventKind::kBackfillExited;
  for (const startd::SlotView& v : sd_->slots()) {
    if (!v.dynamic) {
      ev.slot = v.name;
      break;
    }
  }
  std::string err;
  if (!handle(ev, &err)) KLOG_WARN("backfill client: %s", err.c_str());
}

void Agent::close_hooks() {
  if (backfill_) {
    if (backfill_->proc) backfill_->proc->kill();
    if (backfill_->cg_made && cgroups_) {
      hal::Status ignore = cgroups_->destroy(&backfill_->cg);
      (void)ignore;
    }
    if (backfill_->timer) {
      uv_close(reinterpret_cast<uv_handle_t*>(backfill_->timer),
               [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    }
    delete backfill_;
    backfill_ = nullptr;
  }
  if (hooks_) hooks_->close();
}

}  // namespace kite::agent
