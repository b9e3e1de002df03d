// The agent's side of its starters: job.json, spawning `kite starter` detached, connecting to
// its socket (and again after an agent restart), turning its reports into core events.
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strings.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <ctime>
#include <functional>

#include "agent/core/ad_json.h"
#include "agent/core/files.h"
#include "agent/core/log.h"
#include "agent/startd/agent.h"
#include "agent/starter/job_spec.h"
#include "agent/starter/protocol.h"
#include "hal/gpu.h"
#include "hal/topology.h"
#include "policy/classad/json.h"
#include "policy/classad/parser.h"
#include "policy/startd/text_util.h"

namespace kite::agent {
namespace {

// How long the agent waits for a killed job's cgroup to empty.
constexpr uint64_t kKillWaitMs = 2000;

// A starter holds a lock on its job.json for its whole life and writes its state file soon
// after it starts. An agent killed in between finds a directory without a state file whose
// starter is alive (the lock is held) or may just be starting (job.json is seconds old): it
// waits (at most `max_ms`, before it serves anything) for the state file rather than removing
// the directory under a job that is about to run. True when the state file appeared.
bool wait_for_starting_starter(const std::string& dir, int max_ms) {
  std::string job = dir + "/" + starter::kJobFile;
  int fd = ::open(job.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  if (!held) ::flock(fd, LOCK_UN);
  struct stat sb {};
  bool fresh = ::fstat(fd, &sb) == 0 && std::time(nullptr) - sb.st_mtime < 5;
  ::close(fd);
  if (!held && !fresh) return false;
  std::string state = dir + "/" + starter::kStateFile;
  for (int waited = 0; waited < max_ms; waited += 10) {
    if (::stat(state.c_str(), &sb) == 0) return true;
    ::usleep(10000);
  }
  return ::stat(state.c_str(), &sb) == 0;
}

int64_t mono_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// When the system booted (/proc/stat btime), 0 if unknown.
int64_t boot_time() {
  std::string text, err;
  if (!core::read_file("/proc/stat", &text, &err)) return 0;
  size_t at = text.find("\nbtime ");
  return at == std::string::npos ? 0 : std::atoll(text.c_str() + at + 7);
}

}  // namespace

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// What a starter that died without cleaning up leaves: its sandbox and its directory.
bool remove_starter_files(const std::string& dir, std::string* err) {
  std::string text, e;
  bool ok = true;
  if (core::read_file(dir + "/" + starter::kStateFile, &text, &e)) {
    core::Json st = core::json_parse(text, &e);
    std::string sandbox = st ? st.str("sandbox") : "";
    if (!sandbox.empty() && !core::remove_tree(sandbox, err)) ok = false;
  }
  if (!core::remove_tree(dir, ok ? err : &e)) ok = false;
  return ok;
}

void remove_starter_leftovers(const std::string& dir) {
  std::string err;
  if (!remove_starter_files(dir, &err)) KLOG_WARN("%s", err.c_str());
}

StarterRec* Agent::starter_of(const std::string& slot) {
  auto it = starters_.find(slot);
  return it == starters_.end() ? nullptr : it->second.get();
}

// HTCONDOR: starter "ASSIGN_CPU_AFFINITY ... each job will be bound to as many cores as
// requested": PUs for the job from the topology, avoiding those other jobs are bound to.
std::vector<int> Agent::cpu_binding(const std::string& slot, const classad::ClassAd& job) {
  std::vector<int> pus;
  std::string text;
  if (!cfg_->get("ASSIGN_CPU_AFFINITY", &text) || startd::trim(text).empty()) return pus;
  classad::ExprPtr e = classad::parse_expr(startd::trim(text));
  classad::Value v = e ? job.evaluate_expr(e.get()) : classad::Value::error();
  if (!v.is_boolean() || !v.as_boolean()) return pus;
  startd::SlotView view;
  double cpus = 1;
  if (sd_->slot(slot, &view) && view.ad) view.ad->evaluate_real("Cpus", cpus);
  std::vector<int> busy;
  for (const auto& [name, s] : starters_)
    busy.insert(busy.end(), s->cpu_list.begin(), s->cpu_list.end());
  int n = cpus < 1 ? 1 : static_cast<int>(std::ceil(cpus));
  hal::Status st = hal::cpuset_select(report_.topo, n, busy, &pus);
  if (!st.ok) {
    KLOG_WARN("%s: no CPU binding: %s", slot.c_str(), st.message.c_str());
    pus.clear();
  }
  return pus;
}

// HTCONDOR: ep-configuration / security "slot users": SLOT<N>_USER gives slot N its own
// account, so jobs of different slots cannot signal or ptrace each other or read each other's
// files. Kite treats the SLOT<N>_USER accounts as a pool: dynamic slots (which share their
// partitionable slot's N) each get a distinct free one too.
std::string Agent::pick_slot_user(const std::string& slot, int64_t slot_id) {
  std::vector<std::pair<int64_t, std::string>> pool;  // (N, user), by N
  for (const config::Entry& e : cfg_->entries()) {
    const std::string& n = e.name;
    if (n.size() < 10 || strncasecmp(n.c_str(), "SLOT", 4) != 0 ||
        strcasecmp(n.c_str() + n.size() - 5, "_USER") != 0)
      continue;
    std::string digits = n.substr(4, n.size() - 9);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string user;
    if (cfg_->get(n, &user) && !startd::trim(user).empty())
      pool.emplace_back(std::atoll(digits.c_str()), startd::trim(user));
  }
  if (pool.empty()) return ac_.slot_user;
  std::sort(pool.begin(), pool.end());
  auto in_use = [&](const std::string& user) {
    for (const auto& [name, s] : starters_)
      if (name != slot && s->user == user) return true;
    for (const auto& f : finished_)
      if (f->user == user) return true;  // still cleaning up: its processes may linger
    return false;
  };
  for (const auto& [n, user] : pool) {
    if (n == slot_id && !in_use(user)) return user;
  }
  for (const auto& [n, user] : pool) {
    if (!in_use(user)) return user;
  }
  KLOG_WARN(
      "%s: every SLOT<N>_USER account is in use; running as SLOT_USER %s, shared with "
      "other slots",
      slot.c_str(), ac_.slot_user.c_str());
  return ac_.slot_user;
}

std::string Agent::starter_job_file(const std::string& slot, const classad::ClassAd& job,
                                    const std::string& claim_id, const std::vector<int>& cpu_list,
                                    const std::string& user) {
  startd::SlotView v;
  sd_->slot(slot, &v);
  core::Json j = core::Json::object();
  j.set("slot", slot).set("claim_id", claim_id);
  j.set_json("job", core::Json(core::ad_raw_item(job)));
  double cpus = 1;
  int64_t mem = 0, total_mem = facts_.memory_mb, vm = 0;
  std::string assigned_gpus;
  if (v.ad) {
    j.set_json("machine", core::Json(core::ad_raw_item(*v.ad)));
    v.ad->evaluate_real("Cpus", cpus);
    v.ad->evaluate_int("Memory", mem);
    v.ad->evaluate_int("TotalMemory", total_mem);
    v.ad->evaluate_int("VirtualMemory", vm);
    v.ad->evaluate_string("AssignedGPUs", assigned_gpus);
  }
  j.set_real("cpus", cpus).set("memory_mb", mem).set("total_memory_mb", total_mem);
  j.set("virtual_memory_kb", ac_.cgroup.disable_swap ? 0 : vm);
  cJSON* pus = cJSON_CreateArray();
  for (int pu : cpu_list) cJSON_AddItemToArray(pus, cJSON_CreateNumber(pu));
  j.set_json("cpu_list", core::Json(pus));
  std::vector<std::string> gpus = startd::split_list(assigned_gpus);
  cJSON* garr = cJSON_CreateArray();
  for (const std::string& g : gpus) cJSON_AddItemToArray(garr, cJSON_CreateString(g.c_str()));
  j.set_json("gpus", core::Json(garr));
  core::Json genv = core::Json::object();
  if (!gpus.empty()) {
    for (auto& [k, val] : hal::gpu_visibility_env(gpus)) genv.set(k.c_str(), val);
  }
  j.set_json("gpu_env", std::move(genv));
  // The environment only asks CUDA to hide the other GPUs; the devices cgroup enforces it.
  cJSON* deny = cJSON_CreateArray();
  for (const std::string& d : hal::gpu_nodes_to_deny(report_.gpus, gpus))
    cJSON_AddItemToArray(deny, cJSON_CreateString(d.c_str()));
  j.set_json("deny_devices", core::Json(deny));
  j.set("execute", ac_.execute);
  j.set("cgroup_base", cgroups_ ? ac_.cgroup.base : std::string());
  j.set("cgroup_root", ac_.cgroup_root);
  const char* policy = "none";
  if (ac_.cgroup.policy == hal::MemoryPolicy::kSoft) policy = "soft";
  if (ac_.cgroup.policy == hal::MemoryPolicy::kHard) policy = "hard";
  j.set("memory_policy", policy).set_bool("disable_swap", ac_.cgroup.disable_swap);
  j.set("pids_max", ac_.pids_limit);
  j.set("slot_user", user).set_bool("allow_root_jobs", ac_.allow_root_jobs);
  j.set_bool("use_pid_namespace", ac_.use_pid_namespaces);
  j.set_bool("allow_unconfined", ac_.allow_unconfined_jobs);
  int64_t lease = 0, alive = 300, missed = 6;
  if (!job.evaluate_int("JobLeaseDuration", lease) || lease <= 0) {
    startd::cfg_int(*cfg_, "ALIVE_INTERVAL", &alive);
    startd::cfg_int(*cfg_, "MAX_CLAIM_ALIVES_MISSED", &missed);
    lease = alive * missed;
  }
  j.set("lease", lease);
  j.set("update_interval", ac_.update_interval);
  j.set("initial_update_interval", ac_.initial_update_interval);
  // HTCONDOR: hooks "STARTER_JOB_HOOK_KEYWORD ... regardless of the value in the job ClassAd";
  // else the job's HookKeyword, else STARTER_DEFAULT_JOB_HOOK_KEYWORD.
  std::string kw;
  if (!cfg_->get("STARTER_JOB_HOOK_KEYWORD", &kw) || startd::trim(kw).empty()) {
    if (!job.evaluate_string("HookKeyword", kw) || kw.empty())
      cfg_->get("STARTER_DEFAULT_JOB_HOOK_KEYWORD", &kw);
  }
  kw = startd::trim(kw);
  if (!kw.empty()) {
    core::Json hooks = core::Json::object();
    static const struct {
      const char* macro;
      const char* key;
    } kHooks[] = {{"_HOOK_PREPARE_JOB_BEFORE_TRANSFER", "prepare_job_before_transfer"},
                  {"_HOOK_PREPARE_JOB", "prepare_job"},
                  {"_HOOK_UPDATE_JOB_INFO", "update_job_info"},
                  {"_HOOK_JOB_EXIT", "job_exit"}};
    for (const auto& h : kHooks) {
      std::string path;
      if (cfg_->get(kw + h.macro, &path) && !startd::trim(path).empty())
        hooks.set(h.key, startd::trim(path));
    }
    j.set_json("hooks", std::move(hooks));
  }
  j.set("hook_timeout", ac_.hook_timeout);
  // Local runs and the central manager's jobs get their Out/Err back in the exit frame.
  bool local = false, remote = false;
  job.evaluate_bool("KiteLocalRun", local);
  job.evaluate_bool("KiteRemoteRun", remote);
  j.set("return_output", local || remote ? ac_.return_output : 0);
  return j.dump();
}

bool Agent::spawn_starter(const std::string& slot, std::string* err) {
  auto it = activating_.find(slot);
  // Not a local run being activated: the job a fetch-work hook supplied (agent_hooks.cc), now
  // or earlier (fetched work that waited for the running job to go).
  int64_t run_id = it == activating_.end() ? fetch_run_ : it->second;
  if (it != activating_.end()) activating_.erase(it);
  if (run_id == 0) {
    auto w = fetch_waiting_runs_.find(slot);
    if (w != fetch_waiting_runs_.end()) {
      run_id = w->second;
      fetch_waiting_runs_.erase(w);
      // Its claim is the slot's now: its evict-claim hook hears of this job.
      if (RunRec* waited = run_of(run_id); waited && waited->job)
        fetched_jobs_[slot] = classad::AdPtr(waited->job->copy());
    }
  }
  RunRec* run = run_of(run_id);
  if (!run || !run->job) {
    *err = "no job waiting for this activation";
    return false;
  }
  startd::SlotView v;
  std::string claim_id;
  if (sd_->slot(slot, &v) && v.ad) v.ad->evaluate_string("PublicClaimId", claim_id);

  static int64_t seq = 0;
  std::string dir = ac_.starter_dir + "/" + slot + "." + std::to_string(std::time(nullptr)) + "." +
                    std::to_string(++seq);
  if (!core::make_dirs(dir, 0700, err)) return false;
  std::vector<int> cpu_list = cpu_binding(slot, *run->job);
  int64_t slot_id = 1;
  if (v.ad) v.ad->evaluate_int("SlotID", slot_id);
  std::string user = pick_slot_user(slot, slot_id);
  // Only process crashes matter here: a power cut ends the job anyway.
  if (!core::write_file_atomic(dir + "/" + starter::kJobFile,
                               starter_job_file(slot, *run->job, claim_id, cpu_list, user), 0600,
                               err, core::Durability::kProcessCrash)) {
    return false;
  }
  // Before the spawn: an agent killed right after it still finds whose job this is.
  if (!run->cm_claim.empty() &&
      !core::write_file_atomic(dir + "/" + kCmClaimFile, run->cm_claim, 0600, err,
                               core::Durability::kProcessCrash)) {
    return false;
  }
  auto rec = std::make_unique<StarterRec>();
  StarterRec* s = rec.get();
  s->slot = slot;
  s->dir = dir;
  s->claim_id = claim_id;
  s->run_id = run->id;
  s->spawned_ms = mono_ms();
  s->cpu_list = std::move(cpu_list);
  s->user = user;

  std::vector<std::string> words = split_words(starter_cmd_);
  words.push_back("starter");
  words.push_back("--dir");
  words.push_back(dir);
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  uv_process_options_t po{};
  po.file = argv[0];
  po.args = argv.data();
  po.flags = UV_PROCESS_DETACHED;  // its own session: it must outlive us
  po.exit_cb = [](uv_process_t* p, int64_t status, int sig) {
    auto* a = static_cast<Agent*>(p->loop->data);
    StarterRec* s = static_cast<StarterRec*>(p->data);
    if (s) {
      s->proc = nullptr;
      s->gone = true;
      if (status != 0 || sig != 0)
        KLOG_WARN("%s: starter %d exited (status %lld, signal %d)", s->slot.c_str(), s->pid,
                  static_cast<long long>(status), sig);
      if (!s->exited)
        a->starter_gone(s, "the starter died before reporting an exit");
      else if (!s->conn)
        a->forget_starter(s);
    }
    uv_close(reinterpret_cast<uv_handle_t*>(p),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_process_t*>(h); });
  };
  uv_stdio_container_t stdio[3];
  for (auto& c : stdio) c.flags = UV_IGNORE;
  po.stdio = stdio;
  po.stdio_count = 3;
  auto* proc = new uv_process_t{};
  proc->data = s;
  int rc = uv_spawn(&loop_, proc, &po);
  if (rc != 0) {
    delete proc;
    *err = "cannot run " + words[0] + ": " + uv_strerror(rc);
    std::string ignore;
    core::remove_tree(dir, &ignore);
    return false;
  }
  s->proc = proc;
  s->pid = proc->pid;
  run->slot = slot;
  run->state = RunRec::State::kRunning;
  starters_[slot] = std::move(rec);
  KLOG_INFO("%s: starter %d spawned in %s", slot.c_str(), s->pid, dir.c_str());
  starter_connect(s);
  return true;
}

void Agent::starter_connect(StarterRec* s) {
  if (s->conn || s->gone || s->connecting || s->doomed) return;
  if (!s->retry) {
    s->retry = new uv_timer_t{};
    uv_timer_init(&loop_, s->retry);
    s->retry->data = s;
  }
  s->agent = this;
  s->connecting = true;
  s->connect_attempts++;
  core::Conn::connect(&loop_, s->dir + "/" + starter::kSocketFile, this, s,
                      [](void* ctx, core::Conn* c, int) {
                        StarterRec* s = static_cast<StarterRec*>(ctx);
                        s->connecting = false;
                        if (s->doomed) {
                          if (c) c->close_quietly();
                          delete s;
                          return;
                        }
                        if (c) {
                          c->user = s;
                          s->conn = c;
                          for (core::Json& m : s->outbox) c->send(m);
                          s->outbox.clear();
                          return;
                        }
                        // Not listening yet (just spawned): try again shortly.
                        if (s->gone) return;
                        uv_timer_start(
                            s->retry,
                            [](uv_timer_t* t) {
                              StarterRec* s = static_cast<StarterRec*>(t->data);
                              s->agent->starter_connect(s);
                            },
                            s->connect_attempts < 400 ? 5 : 500, 0);
                      });
}

void Agent::starter_send(const std::string& slot, core::Json msg) {
  StarterRec* s = starter_of(slot);
  if (!s) {
    KLOG_WARN("%s: no starter for %s", slot.c_str(), msg.type().c_str());
    return;
  }
  if (s->conn) {
    s->conn->send(msg);
  } else {
    s->outbox.push_back(std::move(msg));
  }
}

void Agent::starter_frame(StarterRec* s, core::Json& msg) {
  std::string type = msg.type();
  RunRec* run = s->run_id ? run_of(s->run_id) : nullptr;
  if (type == "hello") {
    KLOG_DEBUG("%s: starter hello, state %s", s->slot.c_str(), msg.str("state").c_str());
    std::string state = msg.str("state");
    if (state == "exited" && msg.has("exit")) {
      core::Json ex(cJSON_Duplicate(msg.child("exit"), true));
      starter_exited(s, std::move(ex));
    } else if ((state == "running" || state == "suspended") && run && !s->told_started) {
      // Connected after the job started: the hello is the start report.
      s->told_started = true;
      remote_job_event(s->slot, "started");
      core::Json m = core::Json::message("started");
      m.set("slot", s->slot).set("claim_id", s->claim_id).set("job_pid", msg.num("job_pid"));
      tell_run(run, std::move(m));
    }
  } else if (type == "started") {
    KLOG_INFO("%s: job started, pid %lld (%lld ms after the spawn)", s->slot.c_str(),
              static_cast<long long>(msg.num("job_pid")),
              static_cast<long long>(mono_ms() - s->spawned_ms));
    if (run && !s->told_started) {
      s->told_started = true;
      remote_job_event(s->slot, "started");
      core::Json m = core::Json::message("started");
      m.set("slot", s->slot).set("claim_id", s->claim_id).set("job_pid", msg.num("job_pid"));
      tell_run(run, std::move(m));
    }
  } else if (type == "usage") {
    s->last_usage = msg.dump();
    remote_job_usage(s->slot, msg);
  } else if (type == "exit") {
    core::Json ex(cJSON_Duplicate(msg.child("exit"), true));
    if (!ex) ex = core::Json::object();
    starter_exited(s, std::move(ex));
  } else if (type == "suspended" || type == "continued") {
    KLOG_INFO("%s: job %s", s->slot.c_str(), type.c_str());
    remote_job_event(s->slot, type == "suspended" ? "suspended" : "continued");
  } else if (type == "error") {
    KLOG_WARN("%s: starter says: %s", s->slot.c_str(), msg.str("message").c_str());
  }
}

void Agent::starter_exited(StarterRec* s, core::Json exit) {
  if (s->exited) return;
  apply_hold(*s, &exit);
  s->exited = true;
  s->exited_ms = mono_ms();
  std::string outcome = exit.str("outcome", "exit");
  int code = static_cast<int>(exit.num("ExitCode", 0));
  if (exit.flag("ExitBySignal")) code = 128 + static_cast<int>(exit.num("ExitSignal", 0));
  KLOG_INFO("%s: job ended (%s, %s %d)%s%s", s->slot.c_str(), outcome.c_str(),
            exit.flag("ExitBySignal") ? "signal" : "code",
            exit.flag("ExitBySignal") ? static_cast<int>(exit.num("ExitSignal")) : code,
            outcome == "hold" ? ": " : "", outcome == "hold" ? exit.str("HoldReason").c_str() : "");
  std::string slot = s->slot;
  remote_job_exited(slot, exit);
  if (RunRec* run = s->run_id ? run_of(s->run_id) : nullptr) {
    core::Json m = core::Json::message("exit");
    m.set("slot", slot).set("claim_id", s->claim_id);
    m.set_json("exit", std::move(exit));
    tell_run(run, std::move(m));
    run->state = RunRec::State::kDone;
    runs_.erase(run->id);
  }
  // The slot is free for the next starter once this one has cleaned up.
  std::unique_ptr<StarterRec> rec = std::move(starters_[slot]);
  starters_.erase(slot);
  if (local_claims_.count(slot)) local_claims_[slot] = std::time(nullptr);
  if (rec) finished_.push_back(std::move(rec));
  // A live starter still removes the sandbox and cgroup: Claimed/Cleaning until it is gone.
  // Read before the release, which frees the record of a starter that is already gone.
  bool gone = s->gone;
  release_starter(s);
  startd::Event ev;
  ev.kind = gone ? startd::EventKind::kStarterExited : startd::EventKind::kJobExited;
  ev.slot = slot;
  ev.exit_code = code;
  std::string err;
  if (!handle(ev, &err)) KLOG_DEBUG("%s: %s", slot.c_str(), err.c_str());
}

void Agent::release_starter(StarterRec* s) {
  if (s->conn) {
    s->conn->send(core::Json::message("release"));
  } else if (!s->gone) {
    s->outbox.push_back(core::Json::message("release"));
    starter_connect(s);
  } else {
    forget_starter(s);  // nothing left to release
  }
}

void Agent::starter_gone(StarterRec* s, const std::string& why) {
  if (s->killing) return;  // kill_starter reports the exit once the cgroup is empty
  if (s->exited) {
    forget_starter(s);
    return;
  }
  KLOG_WARN("%s: %s", s->slot.c_str(), why.c_str());
  core::Json ex = core::Json::object();
  ex.set("outcome", "evict").set("message", why);
  starter_exited(s, std::move(ex));
}

void Agent::forget_starter(StarterRec* s) {
  if (s->retry) {
    uv_timer_stop(s->retry);
    uv_close(reinterpret_cast<uv_handle_t*>(s->retry),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
    s->retry = nullptr;
  }
  if (s->conn) {
    s->conn->close_quietly();
    s->conn = nullptr;
  }
  if (s->proc) s->proc->data = nullptr;
  std::unique_ptr<StarterRec> owned;
  for (auto it = finished_.begin(); it != finished_.end(); ++it) {
    if (it->get() == s) {
      owned = std::move(*it);
      finished_.erase(it);
      break;
    }
  }
  if (!owned) {
    auto it = starters_.find(s->slot);
    if (it != starters_.end() && it->second.get() == s) {
      owned = std::move(it->second);
      starters_.erase(it);
    }
  }
  std::string slot = s->slot;
  if (owned && s->connecting) {
    s->doomed = true;  // the connect callback frees it
    owned.release();
  }
  owned.reset();
  starter_cleaned(slot);
  schedule_runs();
}

void Agent::kill_starter(const std::string& slot) {
  StarterRec* s = starter_of(slot);
  if (s) {
    if (s->killing) return;
    s->killing = true;  // its exit is reported once the kill and the cleanup are done
  }
  // 64 of these can come at once: each runs in a slice of a later turn of the loop.
  kill_queue_.push([this, slot, s] { begin_kill(slot, s); });
}

void Agent::begin_kill(const std::string& slot, StarterRec* s) {
  if (s && starter_of(slot) != s) return;
  if (s && s->pid > 0) ::kill(s->pid, SIGKILL);
  hal::JobCgroup job;
  if (!cgroups_ || !cgroups_->create(slot, &job).ok) return cleanup_after_kill(slot, s, {});
  // The kill and the wait for the cgroup to empty run on a timer.
  std::unique_ptr<starter::CgroupReaper>& r = reapers_[slot];
  if (!r) r = std::make_unique<starter::CgroupReaper>();
  r->start(
      &loop_, cgroups_.get(), job, false, kKillWaitMs,
      [this, slot, s, job](bool ok, const std::string& msg) {
        if (!ok) KLOG_ERROR("%s: killing the job's cgroup: %s", slot.c_str(), msg.c_str());
        reapers_.erase(slot);  // destroys the reaper: nothing of it is used below
        cleanup_after_kill(slot, s, job);
      },
      /*check_now=*/false);
}

// The blocking part of a kill's cleanup, carried to a thread-pool thread and back.
struct KillCleanup {
  uv_work_t req{};
  Agent* agent = nullptr;
  const hal::Cgroups* cg = nullptr;
  hal::JobCgroup job;
  std::string dir;
  std::string error;
  std::function<void(const std::string& error)> done;
};

void Agent::cleanup_after_kill(const std::string& slot, StarterRec* s, hal::JobCgroup job) {
  auto* k = new KillCleanup;
  k->req.data = k;
  k->cg = cgroups_.get();
  k->job = std::move(job);
  if (s && starter_of(slot) == s) k->dir = s->dir;
  k->done = [this, slot, s](const std::string& error) {
    kill_queue_.push([this, slot, s, error] {
      if (!error.empty()) KLOG_WARN("%s: cleanup after the kill: %s", slot.c_str(), error.c_str());
      killed_starter(slot, s);
    });
  };
  uv_queue_work(
      &loop_, &k->req,
      [](uv_work_t* req) {
        // Thread-pool thread: files and the kernel only, nothing of the agent.
        auto* k = static_cast<KillCleanup*>(req->data);
        bool busy = !k->job.v2_dir.empty() || !k->job.v1_dirs.empty();
        for (int i = 0; i < 100 && busy; ++i) {
          hal::Status st = k->cg->remove(&k->job, &busy);
          if (!st.ok) k->error = st.message;
          if (!st.ok) break;
          if (busy) {
            struct timespec ts = {0, 5000000};
            nanosleep(&ts, nullptr);
          }
        }
        if (busy && k->error.empty()) k->error = "cgroup " + k->job.name + " still busy";
        std::string err;
        if (!k->dir.empty() && !remove_starter_files(k->dir, &err)) {
          k->error += (k->error.empty() ? "" : "; ") + err;
        }
      },
      [](uv_work_t* req, int) {
        auto* k = static_cast<KillCleanup*>(req->data);
        k->done(k->error);
        delete k;
      });
}

void Agent::killed_starter(const std::string& slot, StarterRec* s) {
  // The record may have been replaced meanwhile; only the one that was killed is reported.
  if (!s || starter_of(slot) != s) return;
  s->killing = false;
  s->gone = true;
  core::Json ex = core::Json::object();
  ex.set("outcome", "evict").set_bool("ExitBySignal", true).set("ExitSignal", SIGKILL);
  starter_exited(s, std::move(ex));
}

void Agent::start_helpers() {
  // Blocking cleanups (cgroup rmdir, removing sandboxes) go to libuv's thread pool; two
  // threads suffice, and each costs memory on a small node.
  ::setenv("UV_THREADPOOL_SIZE", "2", 0);
  kill_queue_.start(&loop_);
  if (ac_.loop_lag_probe) {
    lag_probe_.start(&loop_);
    KLOG_INFO("loop-lag probe on (every %llu ms)",
              static_cast<unsigned long long>(LoopLagProbe::kIntervalMs));
  }
}

void Agent::stop_helpers() {
  lag_probe_.stop();
  for (auto& [slot, r] : reapers_) r->cancel();
  reapers_.clear();
  kill_queue_.stop();
  stop_benchmarks();
}

bool Agent::cleaning(const std::string& slot) const {
  for (const auto& f : finished_) {
    if (f->slot == slot) return true;
  }
  return false;
}

bool Agent::briefly_cleaning(const std::string& slot) const {
  // A starter stuck in its cleanup must not hold runs back for long.
  constexpr int64_t kCleanupWaitMs = 2000;
  for (const auto& f : finished_) {
    if (f->slot == slot && mono_ms() - f->exited_ms < kCleanupWaitMs) return true;
  }
  return false;
}

void Agent::adopt_starters() {
  DIR* d = ::opendir(ac_.starter_dir.c_str());
  if (!d) return;
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') names.push_back(e->d_name);
  }
  ::closedir(d);
  // One start-up budget for all starters still starting, not 3 s for each of them.
  const int64_t wait_until_ms = mono_ms() + 3000;
  for (const std::string& n : names) {
    std::string dir = ac_.starter_dir + "/" + n, text, err;
    int wait_ms = static_cast<int>(std::max<int64_t>(0, wait_until_ms - mono_ms()));
    if (!core::read_file(dir + "/" + starter::kStateFile, &text, &err) &&
        (!wait_for_starting_starter(dir, wait_ms) ||
         !core::read_file(dir + "/" + starter::kStateFile, &text, &err))) {
      KLOG_WARN("adopt: %s has no state file; removing it", dir.c_str());
      core::remove_tree(dir, &err);
      continue;
    }
    core::Json st = core::json_parse(text, &err);
    std::string job_text;
    starter::JobSpec spec;
    bool have_spec = core::read_file(dir + "/" + starter::kJobFile, &job_text, &err) &&
                     starter::job_spec_parse(job_text, &spec, &err);
    pid_t pid = static_cast<pid_t>(st.num("starter_pid"));
    // A state file older than this boot names a pid some other process may have by now.
    struct stat sb {};
    bool before_boot =
        ::stat((dir + "/" + starter::kStateFile).c_str(), &sb) == 0 && sb.st_mtime < boot_time();
    if (!st || pid <= 0 || before_boot || (::kill(pid, 0) != 0 && errno == ESRCH)) {
      KLOG_WARN("adopt: the starter of %s is gone; removing it", dir.c_str());
      remove_starter_leftovers(dir);
      continue;
    }
    auto rec = std::make_unique<StarterRec>();
    StarterRec* s = rec.get();
    s->slot = st.str("slot");
    s->dir = dir;
    s->claim_id = st.str("claim_id");
    s->pid = pid;
    s->adopted = true;
    if (have_spec) {
      s->cpu_list = spec.cpu_list;
      s->user = spec.slot_user;
    }
    s->spawned_ms = mono_ms();
    std::string state = st.str("state");
    if (state == "running" || state == "suspended" || state == "preparing") {
      classad::AdPtr job =
          have_spec ? std::move(spec.job) : classad::AdPtr(classad::ClassAd::make());
      std::string parent = s->slot.substr(0, s->slot.find('_'));
      startd::Event ev;
      ev.kind = startd::EventKind::kActivate;
      ev.slot = parent;
      ev.ad = job.get();
      ev.adopt_slot = s->slot;
      ev.adopt_claim_id = s->claim_id;
      // JobStart as the previous agent published it (the machine ad in job.json), else when the
      // starter says the job began.
      int64_t job_start = st.num("start_time", std::time(nullptr));
      if (have_spec && spec.machine) spec.machine->evaluate_int("JobStart", job_start);
      ev.adopt_job_start = job_start;
      startd::Output out;
      if (!sd_->handle(ev, &out, &err)) KLOG_WARN("adopt %s: %s", s->slot.c_str(), err.c_str());
      startd::SlotView v;
      if (!sd_->slot(s->slot, &v) || v.state != startd::State::kClaimed) {
        KLOG_WARN("adopt: %s could not be restored; its job will be killed", s->slot.c_str());
        s->outbox.push_back(core::Json::message("hard-kill"));
      } else {
        KLOG_INFO("adopt: %s job pid %lld resumed under starter %d", s->slot.c_str(),
                  static_cast<long long>(st.num("job_pid")), pid);
        local_claims_[s->slot] = 0;
        if (state == "suspended") {
          KLOG_INFO("adopt: %s job was suspended; continuing it", s->slot.c_str());
          s->outbox.push_back(core::Json::message("continue"));
        }
      }
      starters_[s->slot] = std::move(rec);
      process(out);
    } else {
      // Exited while we were away: collect the exit and let it clean up.
      finished_.push_back(std::move(rec));
      s->exited = true;
      s->outbox.push_back(core::Json::message("release"));
    }
    starter_connect(s);
  }
}

}  // namespace kite::agent
