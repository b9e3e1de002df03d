// The starter's start-up (arguments, the DIR lock, job.json, the log) and the job's way to
// running: sandbox and ads, the PREPARE hooks, the cgroup and its limits, the launch.
#include "agent/starter/starter.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "agent/core/files.h"
#include "agent/core/log.h"
#include "agent/starter/launch.h"
#include "agent/starter/protocol.h"
#include "agent/starter/sandbox.h"
#include "agent/starter/signals.h"
#include "agent/starter/starter_impl.h"
#include "policy/classad/expr.h"

namespace kite::starter {
namespace {

constexpr int64_t kMaxLogBytes = 1 << 20;
constexpr int kHoldFailedToCreateProcess = 6;
constexpr int kHoldFailedToAccessUserAccount = 23;

std::string under(const std::string& base, const std::string& p) {
  if (p.empty()) return base;
  if (p.front() == '/') return p;
  return base + (base.back() == '/' ? "" : "/") + p;
}

// A job attribute holding a file name: absolute, relative to `iwd`, or /dev/null if unset.
std::string job_file(const classad::ClassAd& ad, const char* attr, const std::string& iwd) {
  std::string v;
  if (!ad.evaluate_string(attr, v) || v.empty()) return "/dev/null";
  return under(iwd, v);
}

// The job's KillSig: a name ("SIGTERM", "TERM") or a number; SIGTERM when unset or unknown.
int job_kill_sig(const classad::ClassAd& ad) {
  int64_t n;
  std::string s;
  if (ad.evaluate_int("KillSig", n) && n > 0 && n < NSIG) return static_cast<int>(n);
  if (ad.evaluate_string("KillSig", s)) {
    int sig = signal_parse(s);
    if (sig > 0) return sig;
    KLOG_WARN("KillSig \"%s\" is not a signal; using SIGTERM", s.c_str());
  }
  return SIGTERM;
}

// Records why this DIR cannot be used, where the agent looks (state.json), if it can.
void record_startup_error(const std::string& dir, const std::string& message) {
  core::Json h = core::Json::message("hello");
  h.set("state", "exited").set("starter_pid", static_cast<int64_t>(getpid())).set("error", message);
  core::Json exit = core::Json::object();
  // HTCONDOR: a starter that cannot set up sends the job back to idle (StarterError).
  exit.set("outcome", "evict").set("VacateReason", "Starter failed: " + message);
  exit.set("VacateReasonCode", 1007).set("VacateReasonSubCode", 0);
  h.set_json("exit", std::move(exit));
  std::string err;
  if (!core::write_file_atomic(dir + "/" + kStateFile, h.dump(), 0644, &err,
                               core::Durability::kProcessCrash)) {
    KLOG_ERROR("%s", err.c_str());
  }
}

int usage_error() {
  std::fprintf(stderr,
               "usage: kite starter --dir DIR   (spawned by the agent; see "
               "agent/starter/protocol.h)\n");
  return 2;
}

}  // namespace

int starter_main(int argc, char** argv) {
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else if (std::strncmp(argv[i], "--dir=", 6) == 0) {
      dir = argv[i] + 6;
    } else {
      return usage_error();
    }
  }
  if (dir.empty()) return usage_error();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir.front() != '/') {
    // The starter works from "/" (it must not keep the agent's directory busy).
    char cwd[4096];
    if (!::getcwd(cwd, sizeof cwd)) {
      std::fprintf(stderr, "kite starter: getcwd: %s\n", std::strerror(errno));
      return 1;
    }
    dir = std::string(cwd) + "/" + dir;
  }
  if (::chdir("/") != 0) {
    std::fprintf(stderr, "kite starter: chdir /: %s\n", std::strerror(errno));
    return 1;
  }

  std::string err;
  if (!core::Log::open(dir + "/" + kLogFile, kMaxLogBytes, &err)) {
    std::fprintf(stderr, "kite starter: %s\n", err.c_str());
    return 1;
  }
  core::Log::set_tag("starter");
  // One starter per DIR: a lock on job.json for as long as this process lives (close-on-exec,
  // so the job does not inherit it), and never a second run of a job that already started.
  std::string job_path = dir + "/" + kJobFile;
  int lock_fd = ::open(job_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (lock_fd < 0) {
    KLOG_ERROR("cannot open %s: %s", job_path.c_str(), std::strerror(errno));
    std::fprintf(stderr, "kite starter: cannot open %s: %s\n", job_path.c_str(),
                 std::strerror(errno));
    return 1;
  }
  if (::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    KLOG_ERROR("another starter is running in %s; refusing", dir.c_str());
    std::fprintf(stderr, "kite starter: another starter is running in %s\n", dir.c_str());
    return 1;
  }
  struct stat sb;
  if (::stat((dir + "/" + kStateFile).c_str(), &sb) == 0) {
    KLOG_ERROR("%s/%s exists: this job was already started once; refusing to run it again",
               dir.c_str(), kStateFile);
    std::fprintf(stderr, "kite starter: %s/%s exists: refusing to run the job twice\n", dir.c_str(),
                 kStateFile);
    return 1;
  }
  std::string text;
  JobSpec spec;
  if (!core::read_file(job_path, &text, &err) || !job_spec_parse(text, &spec, &err)) {
    KLOG_ERROR("%s", err.c_str());
    std::fprintf(stderr, "kite starter: %s\n", err.c_str());
    record_startup_error(dir, err);
    return 1;
  }
  core::Log::set_tag(("starter[" + spec.slot + "]").c_str());
  KLOG_INFO("starting: slot %s, claim %s, pid %d", spec.slot.c_str(), spec.claim_id.c_str(),
            static_cast<int>(getpid()));
  int rc;
  {
    Starter s(dir, std::move(spec));
    rc = s.run();
  }
  ::close(lock_fd);
  core::Log::close();
  return rc;
}

Starter::Starter(std::string dir, JobSpec spec) : dir_(std::move(dir)), spec_(std::move(spec)) {
  uv_loop_init(&loop_);
}

Starter::~Starter() {
  if (oom_.fd >= 0) hal::cgroup_oom_close(&oom_);
  uv_loop_close(&loop_);
}

int Starter::run() {
  // A detached starter outlives terminals and broken agent connections.
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  ::umask(022);
  std::string err;
  save_state();
  if (!listen(&err)) {
    KLOG_ERROR("%s", err.c_str());
    record_startup_error(dir_, err);
    uv_close(reinterpret_cast<uv_handle_t*>(&server_), nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);
    return 1;
  }
  uv_signal_init(&loop_, &sigchld_);
  sigchld_.data = this;
  uv_signal_start(
      &sigchld_, [](uv_signal_t* h, int) { static_cast<Starter*>(h->data)->on_sigchld(); },
      SIGCHLD);
  for (uv_signal_t* s : {&sigterm_, &sigint_}) {
    uv_signal_init(&loop_, s);
    s->data = this;
  }
  auto on_term = [](uv_signal_t* h, int sig) {
    Starter* self = static_cast<Starter*>(h->data);
    KLOG_WARN("got %s: killing the job", signal_name(sig));
    self->hard_kill(std::string("the starter got ") + signal_name(sig));
  };
  uv_signal_start(&sigterm_, on_term, SIGTERM);
  uv_signal_start(&sigint_, on_term, SIGINT);
  for (uv_timer_t* t : {&usage_timer_, &lease_timer_}) {
    uv_timer_init(&loop_, t);
    t->data = this;
  }
  disconnected_since_ms_ = uv_now(&loop_);
  arm_lease_timer();
  prepare();
  uv_run(&loop_, UV_RUN_DEFAULT);
  return exit_status_;
}

std::vector<std::string> Starter::hook_env() const {
  std::vector<std::string> env = {
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  if (!sandbox_.empty()) {
    env.push_back("_CONDOR_SCRATCH_DIR=" + sandbox_);
    env.push_back("_CONDOR_JOB_AD=" + sandbox_ + "/" + kJobAdFile);
    env.push_back("_CONDOR_MACHINE_AD=" + sandbox_ + "/" + kMachineAdFile);
    env.push_back("TMPDIR=" + sandbox_);
  }
  env.push_back("_CONDOR_SLOT=" + spec_.slot);
  if (!user_.home.empty()) env.push_back("HOME=" + user_.home);
  return env;
}

bool Starter::rewrite_job_ad(std::string* err) {
  AsUser as(change_user_, user_.uid, user_.gid);
  return ad_file_write(sandbox_ + "/" + kJobAdFile, *spec_.job, err);
}

void Starter::prepare() {
  std::string err;
  // The job's user. HTCONDOR: SLOT_USER; a job never runs as root without ALLOW_ROOT_JOBS.
  if (!user_lookup("/etc", spec_.slot_user, &user_, &err)) {
    return fail_before_start("hold", kHoldFailedToAccessUserAccount, 0,
                             "Cannot find the slot user: " + err);
  }
  if (geteuid() == 0) {
    change_user_ = true;
  } else if (user_.uid != geteuid()) {
    // Without root nothing else is possible: run as ourselves (a personal, unprivileged agent).
    KLOG_WARN("not root: the job runs as uid %d, not as slot user %s", static_cast<int>(geteuid()),
              spec_.slot_user.c_str());
    user_.uid = geteuid();
    user_.gid = getegid();
    user_.groups = {user_.gid};
  }
  if (user_.uid == 0 && !spec_.allow_root_jobs) {
    return fail_before_start("hold", kHoldFailedToAccessUserAccount, 0,
                             "Refusing to run the job as root (slot user '" + spec_.slot_user +
                                 "' is uid 0 and ALLOW_ROOT_JOBS is false)");
  }
  if (!sandbox_create(spec_.execute, getpid(), user_.uid, user_.gid, change_user_, &sandbox_,
                      &err)) {
    return fail_before_start("evict", 0, 0, "Cannot create the job sandbox: " + err);
  }
  save_state();
  bool ads_ok;
  {
    AsUser as(change_user_, user_.uid, user_.gid);
    ads_ok = ad_file_write(sandbox_ + "/" + kMachineAdFile, *spec_.machine, &err);
  }
  if (!ads_ok || !rewrite_job_ad(&err)) {
    return fail_before_start("evict", 0, 0, "Cannot write the job's ads: " + err);
  }
  KLOG_INFO("sandbox %s, user %s (uid %d)", sandbox_.c_str(), user_.name.c_str(),
            static_cast<int>(user_.uid));
  run_prepare_hook("PREPARE_JOB_BEFORE_TRANSFER", spec_.hooks.prepare_job_before_transfer,
                   &Starter::after_before_transfer_hook);
}

void Starter::after_before_transfer_hook() {
  run_prepare_hook("PREPARE_JOB", spec_.hooks.prepare_job, &Starter::launch);
}

// Runs one PREPARE hook (if configured), merges its output into the job ad, then `next`.
HookSpec Starter::hook_spec(const char* name, const std::string& path, std::string input) const {
  HookSpec hs;
  hs.name = name;
  hs.path = path;
  hs.input = std::move(input);
  hs.env = hook_env();
  hs.cwd = sandbox_;
  hs.set_user = change_user_;
  hs.uid = user_.uid;
  hs.gid = user_.gid;
  hs.timeout_s = spec_.hook_timeout;
  return hs;
}

void Starter::run_prepare_hook(const std::string& name, const std::string& path,
                               void (Starter::*next)()) {
  if (abort_prepare_) return fail_before_start("evict", 0, 0, kill_reason_);
  if (path.empty()) return (this->*next)();
  HookSpec hs = hook_spec(name.c_str(), path, ad_to_old_text(*spec_.job));
  KLOG_INFO("running %s hook %s", name.c_str(), path.c_str());
  hook_ = HookRun::start(&loop_, hs, [this, next](const HookResult& r) {
    hook_ = nullptr;
    if (stopping_) return;
    if (!r.err.empty()) KLOG_INFO("%s stderr: %s", r.label().c_str(), r.err.c_str());
    if (abort_prepare_) return fail_before_start("evict", 0, 0, kill_reason_);
    HookVerdict v = hook_judge_prepare(r);
    if (v.kind == HookVerdict::kHold) {
      KLOG_WARN("%s: holding the job: %s", r.label().c_str(), v.message.c_str());
      return fail_before_start("hold", v.code, v.subcode, v.message);
    }
    if (v.kind == HookVerdict::kRequeue) {
      KLOG_WARN("%s: job back to idle: %s", r.label().c_str(), v.message.c_str());
      return fail_before_start("evict", 0, v.subcode, v.message);
    }
    for (const classad::ClassAd::Entry& e : v.updates->entries()) {
      spec_.job->insert(e.name->view(), classad::expr_copy(e.expr));
    }
    std::string err;
    if (v.updates->size() > 0 && !rewrite_job_ad(&err)) {
      return fail_before_start("evict", 0, 0, "Cannot write the job ad: " + err);
    }
    KLOG_INFO("%s succeeded (%zu attribute(s) updated)", r.label().c_str(), v.updates->size());
    (this->*next)();
  });
}

bool Starter::setup_cgroup(std::string* why) {
  // A memory limit is configured: running without one is allowed only by the operator.
  bool must_limit = spec_.memory_policy != hal::MemoryPolicy::kNone && spec_.memory_mb > 0;
  auto unconfined = [&](const std::string& reason) {
    if (!must_limit) return true;
    if (spec_.allow_unconfined) {
      KLOG_WARN("%s: running the job without its memory limit (ALLOW_UNCONFINED_JOBS)",
                reason.c_str());
      return true;
    }
    *why = "Cannot apply the job's memory limit (" + reason +
           "); the job is not run unconfined unless ALLOW_UNCONFINED_JOBS is true";
    return false;
  };
  if (spec_.cgroup_base.empty()) {
    KLOG_INFO("no cgroups (cgroup_base is empty): process groups for signals, SIGSTOP to suspend");
    return unconfined("cgroups are off (no BASE_CGROUP, or none detected by the agent)");
  }
  hal::Root root(spec_.cgroup_root);
  hal::CgroupLayout layout;
  hal::Status st = hal::cgroup_detect(root, &layout);
  if (!st.ok || layout.mode == hal::CgroupMode::kNone) {
    KLOG_WARN("no cgroups on this node (%s): running without",
              st.ok ? "none mounted" : st.message.c_str());
    return unconfined(std::string("no cgroups on this node: ") +
                      (st.ok ? "none mounted" : st.message));
  }
  cg_ = std::make_unique<hal::Cgroups>(root, layout, spec_.cgroup_base);
  st = cg_->create(spec_.slot, &job_cg_);
  if (!st.ok) {
    KLOG_WARN("cannot create the job cgroup (%s): running without cgroups", st.message.c_str());
    cg_->destroy(&job_cg_);
    cg_.reset();
    return unconfined("cannot create the job cgroup: " + st.message);
  }
  have_cgroup_ = true;
  // A cgroup left over from an earlier job on this slot must not carry strays into this one.
  if (!cg_->procs(job_cg_).empty()) {
    KLOG_WARN("cgroup %s still held processes of an earlier job: killing them", spec_.slot.c_str());
    cg_->thaw(job_cg_);
    cg_->kill_all(job_cg_);
  }
  if (cg_->frozen(job_cg_)) cg_->thaw(job_cg_);
  can_freeze_ = job_cg_.v2_freeze || job_cg_.v1_dirs.count("freezer") > 0;
  hal::MemoryLimitInput in;
  in.policy = spec_.memory_policy;
  in.slot_memory_mib = spec_.memory_mb;
  in.machine_memory_mib = spec_.total_memory_mb > 0 ? spec_.total_memory_mb : spec_.memory_mb;
  in.slot_virtual_kib = spec_.virtual_memory_kb;
  in.disable_swap = spec_.disable_swap;
  hal::MemoryLimits lim = hal::memory_limits_compute(in);
  if (spec_.memory_policy != hal::MemoryPolicy::kNone && spec_.memory_mb <= 0) {
    KLOG_WARN("memory_policy is set but memory_mb is 0: no memory limit");
    lim = hal::MemoryLimits();
  }
  memory_limit_mib_ = lim.hard > 0 ? lim.hard >> 20 : 0;
  st = cg_->set_memory(job_cg_, lim);
  if (!st.ok) {
    KLOG_WARN("memory limits: %s", st.message.c_str());
    if (!unconfined(st.message)) return false;
  }
  if (spec_.cpus > 0) {
    st = cg_->set_cpu_weight(job_cg_, spec_.cpus);
    if (!st.ok) KLOG_WARN("cpu weight: %s", st.message.c_str());
  }
  st = cg_->set_pids_max(job_cg_, spec_.pids_max);
  if (!st.ok && spec_.pids_max > 0) KLOG_WARN("pids limit: %s", st.message.c_str());
  if (!spec_.cpu_list.empty()) {
    st = cg_->set_cpuset(job_cg_, spec_.cpu_list);
    if (!st.ok) KLOG_WARN("cpu binding: %s", st.message.c_str());
  }
  if (!spec_.deny_devices.empty()) {
    st = cg_->deny_devices(&job_cg_, spec_.deny_devices);
    if (!st.ok) {
      KLOG_WARN("GPU isolation by environment variables only: %s", st.message.c_str());
    } else {
      KLOG_INFO("devices cgroup denies %zu device node(s) of GPUs not assigned to the job",
                spec_.deny_devices.size());
    }
  }
  st = cg_->oom_watch(job_cg_, &oom_);
  if (st.ok) {
    uv_poll_init(&loop_, &oom_poll_, oom_.fd);
    oom_poll_.data = this;
    uv_poll_start(&oom_poll_, UV_READABLE,
                  [](uv_poll_t* p, int, int) { static_cast<Starter*>(p->data)->on_oom(); });
    oom_poll_on_ = true;
  } else {
    KLOG_WARN("no OOM events: %s", st.message.c_str());
  }
  KLOG_INFO("cgroup %s/%s (%s), memory limit %lld MiB (%s policy)", spec_.cgroup_base.c_str(),
            spec_.slot.c_str(), hal::cgroup_mode_name(layout.mode),
            static_cast<long long>(memory_limit_mib_),
            spec_.memory_policy == hal::MemoryPolicy::kHard   ? "hard"
            : spec_.memory_policy == hal::MemoryPolicy::kSoft ? "soft"
                                                              : "no");
  return true;
}

void Starter::launch() {
  if (abort_prepare_) return fail_before_start("evict", 0, 0, kill_reason_);
  const classad::ClassAd& ad = *spec_.job;
  std::string err, iwd, cmd;
  if (!ad.evaluate_string("Cmd", cmd) || cmd.empty()) {
    return fail_before_start("hold", kHoldFailedToCreateProcess, 0,
                             "Cmd cannot be found in the job ad");
  }
  if (!ad.evaluate_string("Iwd", iwd) || iwd.empty()) iwd = sandbox_;
  iwd = under(sandbox_, iwd);
  LaunchSpec ls;
  ls.exe = under(iwd, cmd);
  std::vector<std::string> args;
  EnvList env;
  if (!job_args(ad, &args, &err) || !job_env(ad, &env, &err)) {
    return fail_before_start("hold", kHoldFailedToCreateProcess, 0, err);
  }
  ls.argv.push_back(ls.exe);
  ls.argv.insert(ls.argv.end(), args.begin(), args.end());
  StarterEnv se;
  se.sandbox = sandbox_;
  se.slot = spec_.slot;
  se.job_ad_path = sandbox_ + "/" + kJobAdFile;
  se.machine_ad_path = sandbox_ + "/" + kMachineAdFile;
  se.iwd = iwd;
  se.cpus = spec_.cpus;
  se.gpu_env = spec_.gpu_env;
  env_add_starter(se, &env);
  ls.env = env.entries();
  ls.iwd = iwd;
  ls.in = job_file(ad, "In", iwd);
  ls.out = job_file(ad, "Out", iwd);
  ls.err = job_file(ad, "Err", iwd);
  ls.change_user = change_user_;
  ls.uid = user_.uid;
  ls.gid = user_.gid;
  ls.groups = user_.groups;
  ls.new_pid_namespace = spec_.use_pid_namespace;
  kill_sig_ = job_kill_sig(ad);
  out_path_ = ls.out;
  err_path_ = ls.err;

  std::string why;
  if (!setup_cgroup(&why)) {
    KLOG_ERROR("%s", why.c_str());
    return fail_before_start("hold", kHoldFailedToCreateProcess, 0, why);
  }
  if (have_cgroup_) {
    std::string procs;
    if (!job_cg_.v2_dir.empty())
      ls.cgroup_procs.push_back(cg_->root().path(job_cg_.v2_dir + "/cgroup.procs"));
    for (const auto& [ctl, d] : job_cg_.v1_dirs) {
      std::string f = cg_->root().path(d + "/cgroup.procs");
      bool dup = false;
      for (const std::string& g : ls.cgroup_procs) dup = dup || g == f;
      if (!dup) ls.cgroup_procs.push_back(f);
    }
  }
  LaunchError le;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  uv_update_time(&loop_);
  pid_t pid = launch_job(ls, &le);
  if (pid < 0) {
    KLOG_ERROR("%s", le.message.c_str());
    return fail_before_start("hold", le.code, le.subcode, le.message);
  }
  job_pid_ = pid;
  start_time_ = now.tv_sec;
  start_mono_ms_ = uv_now(&loop_);
  phase_ = Phase::kRunning;
  KLOG_INFO("job started: pid %d, %s%s", static_cast<int>(pid), ls.exe.c_str(),
            spec_.use_pid_namespace ? " (own PID namespace)" : "");
  save_state();
  core::Json started = core::Json::message("started");
  started.set("job_pid", static_cast<int64_t>(pid)).set("start_time", start_time_);
  broadcast(started);
  uv_timer_start(
      &usage_timer_, [](uv_timer_t* t) { static_cast<Starter*>(t->data)->on_usage_timer(); },
      static_cast<uint64_t>(spec_.initial_update_interval) * 1000,
      static_cast<uint64_t>(spec_.update_interval) * 1000);
  usage_timer_on_ = true;
  // The job may have exited before SIGCHLD was watched for it: look once now.
  on_sigchld();
}

void Starter::fail_before_start(const char* outcome, int code, int subcode,
                                const std::string& reason) {
  core::Json exit = core::Json::object();
  exit.set("outcome", outcome);
  if (std::strcmp(outcome, "hold") == 0) {
    exit.set("HoldReason", reason).set("HoldReasonCode", code).set("HoldReasonSubCode", subcode);
  } else if (!reason.empty()) {
    // HTCONDOR: JobNotStarted (1003), the job goes back to idle.
    exit.set("VacateReason", reason)
        .set("VacateReasonCode", 1003)
        .set("VacateReasonSubCode", subcode);
  }
  KLOG_WARN("job not started: %s: %s", outcome, reason.c_str());
  publish_exit(std::move(exit));
}

}  // namespace kite::starter
