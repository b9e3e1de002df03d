// The pool simulator's engine: machines and their slots, jobs, the accountant, a negotiation
// cycle on the virtual clock, claim reuse, and the expectations (see pool_sim.h).
#include "policy/pool/pool_sim.h"

#include <strings.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <queue>
#include <set>

#include "policy/accountant/accountant.h"
#include "policy/classad/classad.h"
#include "policy/classad/match.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "policy/config/config.h"
#include "policy/config/typed.h"
#include "policy/fairshare/concurrency_limits.h"
#include "policy/fairshare/group_quotas.h"
#include "policy/fairshare/slot_weight.h"
#include "policy/negotiator/negotiator.h"
#include "policy/pool/pool_steps.h"

namespace kite::pool {
namespace {

using classad::AdPtr;
using classad::ClassAd;
using classad::Value;

constexpr int64_t kDefaultDiskKb = 10 * 1024 * 1024;  // 10 GiB

enum class JobState { kIdle, kRunning, kGone };

struct Job {
  int32_t id = 0;
  std::string submit;     // the `submit` name
  std::string principal;  // the accountant's submitter name
  std::string group;      // configured group, or "<none>"
  AdPtr ad;
  int64_t runtime = -1;
  int64_t qdate = 0;
  int64_t prio = 0;
  JobState state = JobState::kIdle;
  int slot = -1;
  int64_t start = 0;
  double weight = 0;   // slot weight it holds while running
  double request = 1;  // RequestCpus: its weight as demand while idle
  int batch = 0;       // the `submit` step (its line) that made it
  int batch_end = 0;   // one past the index of that step's last job (its jobs are contiguous)
  std::vector<fairshare::LimitUse> limits;  // held while running
};

struct Slot {
  std::string name;
  int machine = -1;
  AdPtr ad;
  bool live = false;
  bool partitionable = false;
  int parent = -1;  // dynamic slots: their partitionable slot
  int job = -1;     // index into jobs
  std::string claim_user;
  int64_t claim_start = 0;
  int64_t res[3] = {0, 0, 0};  // Cpus, Memory, Disk it holds (dynamic slots: carved)
  int dslots = 0;              // partitionable: dynamic slots carved so far
};

struct Machine {
  std::string name;
  AdPtr base;  // the scenario's ad, with `set` changes
  bool partitionable = false;
  int64_t nslots = 0;
  bool on = false;
  std::vector<int> slots;
};

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// `name` is `group` or inside its subtree.
bool in_group(std::string_view name, std::string_view group) {
  if (iequal(name, group)) return true;
  return name.size() > group.size() && name[group.size()] == '.' &&
         iequal(name.substr(0, group.size()), group);
}

int64_t int_attr(const ClassAd& ad, const char* name, int64_t dflt) {
  int64_t v;
  if (ad.evaluate_int(name, v)) return v;
  double d;
  if (ad.evaluate_real(name, d)) return static_cast<int64_t>(std::ceil(d));
  return dflt;
}

std::string str_attr(const ClassAd& ad, const char* name) {
  std::string s;
  ad.evaluate_string(name, s);
  return s;
}

void set_str(ClassAd& ad, const char* name, std::string_view v) {
  ad.insert_value(name, Value::string(v));
}
void set_int(ClassAd& ad, const char* name, int64_t v) {
  ad.insert_value(name, Value::integer(v));
}

bool set_expr(ClassAd& ad, const char* name, const std::string& text, std::string* error) {
  classad::ParseError pe;
  classad::ExprPtr e = classad::parse_expr(text, &pe);
  if (!e) {
    *error = std::string(name) + " = " + text + ": " + pe.to_string();
    return false;
  }
  ad.insert(name, e.release());
  return true;
}

// Copies every attribute of `from` into `to`.
void merge(ClassAd& to, const ClassAd& from) {
  for (const ClassAd::Entry& e : from.entries()) {
    classad::expr_ref(e.expr);
    to.insert(e.name->view(), e.expr);
  }
}

class Sim {
 public:
  Sim(const std::string& file, PoolResult* res) : file_(file), res_(res) {}
  bool setup(const std::string& cfg_text);
  bool add_step(const Step& st);
  void run();

 private:
  bool fail(int line, const std::string& msg) {
    res_->error = true;
    res_->output += file_ + ":" + std::to_string(line) + ": " + msg + "\n";
    return false;
  }
  bool apply(const Step& st);
  void check(const Step& st);
  void cycle();
  bool machine_up(int m, int line);
  void machine_down(int m);
  int new_slot();
  void start_job(int j, int s);
  void stop_job(int j, JobState to, bool reuse);
  void release_slot(int s);
  void charge(const std::string& principal);
  bool can_run(int j, int s);
  std::vector<fairshare::LimitUse> limits_of(int j, int s);
  std::string resolve(const std::string& name) const;
  int machine_index(const std::string& name) const;
  void report_cycle(size_t matches, int64_t preempted);
  std::vector<fairshare::GroupQuota> quotas();
  int64_t next_end();
  void set_state(int j, JobState to);
  // Running and idle jobs of one `submit` name in one group, kept by set_state().
  struct Tally {
    std::string principal;
    int64_t running = 0, idle = 0;
    double run_weight = 0, idle_request = 0;
  };
  void tally(const Job& j, int sign);

  std::string file_;
  PoolResult* res_;
  config::Config cfg_{"NEGOTIATOR"};
  accountant::Accountant acc_;
  fairshare::GroupSettings groups_;
  fairshare::LimitTracker limits_;
  std::string uid_domain_;
  std::string start_expr_ = "True", rank_expr_ = "0";
  int64_t interval_ = 60, worklife_ = 1200;
  std::vector<Machine> machines_;
  std::vector<Slot> slots_;
  std::vector<Job> jobs_;
  std::vector<Step> steps_;
  std::map<std::string, std::string> principal_of_;  // lower-cased submit name -> principal
  std::map<std::string, int> slot_by_name_;
  int64_t now_ = 0;
  int64_t preemptions_ = 0;  // since the last `expect preemptions`
  bool reschedule_ = false;
  bool preemption_possible_ = true;  // false: no job offers need to count running slots
  std::set<std::string> warned_;
  std::vector<fairshare::GroupQuota> last_quotas_;
  // Indexes kept by set_state(), so no step scans every job ever submitted.
  std::map<std::string, std::set<std::pair<int64_t, int>>> idle_;  // principal -> (-prio, job)
  std::set<int> running_;
  std::map<std::pair<std::string, std::string>, Tally> tally_;  // (submit name, group)
  std::map<std::string, std::pair<int64_t, double>> usage_;     // principal -> slots, weight
  using End = std::pair<int64_t, int>;                          // (end time, job)
  std::priority_queue<End, std::vector<End>, std::greater<End>> ends_;
};

void Sim::tally(const Job& j, int sign) {
  if (j.state == JobState::kGone) return;
  Tally& t = tally_[{j.submit, j.group}];
  t.principal = j.principal;
  if (j.state == JobState::kRunning) {
    t.running += sign;
    t.run_weight += sign * j.weight;
  } else {
    t.idle += sign;
    t.idle_request += sign * j.request;
  }
}

void Sim::set_state(int j, JobState to) {
  Job& job = jobs_[j];
  if (job.state == to) return;
  tally(job, -1);
  if (job.state == JobState::kIdle) idle_[job.principal].erase({-job.prio, j});
  if (job.state == JobState::kRunning) {
    running_.erase(j);
    auto& u = usage_[job.principal];
    u.first -= 1;
    u.second -= job.weight;
  }
  job.state = to;
  if (to == JobState::kIdle) idle_[job.principal].insert({-job.prio, j});
  if (to == JobState::kRunning) {
    running_.insert(j);
    auto& u = usage_[job.principal];
    u.first += 1;
    u.second += job.weight;
    if (job.runtime > 0) ends_.push({job.start + job.runtime, j});
  }
  tally(job, +1);
}

bool Sim::setup(const std::string& cfg_text) {
  cfg_.set_detected("FULL_HOSTNAME", "localhost");
  cfg_.set_detected("HOSTNAME", "localhost");
  config::Status st = cfg_.load_string(cfg_text, file_);
  if (st.ok) st = cfg_.finish();
  accountant::Settings as;
  if (st.ok) st = accountant::settings_from_config(cfg_, &as);
  if (st.ok) st = fairshare::group_settings_from_config(cfg_, &groups_);
  fairshare::LimitTable table;
  if (st.ok) st = fairshare::limits_from_config(cfg_, &table);
  if (st.ok) st = config::read_int(cfg_, "NEGOTIATOR_INTERVAL", &interval_, nullptr, 1);
  if (st.ok) st = config::read_int(cfg_, "CLAIM_WORKLIFE", &worklife_);
  if (!st.ok) {
    res_->error = true;
    res_->output += st.message + "\n";
    return false;
  }
  acc_.set_settings(std::move(as));
  limits_ = fairshare::LimitTracker(std::move(table));
  if (!cfg_.get("UID_DOMAIN", &uid_domain_) || uid_domain_.empty()) uid_domain_ = "localhost";
  std::string v;
  if (cfg_.get("START", &v) && !v.empty()) start_expr_ = v;
  if (cfg_.get("RANK", &v) && !v.empty()) rank_expr_ = v;
  // Running jobs can lose their slots only to priority preemption (PREEMPTION_REQUIREMENTS
  // not False) or to a machine RANK.
  bool preempt = false;
  config::Status pst = config::read_bool(cfg_, "PREEMPTION_REQUIREMENTS", &preempt);
  preemption_possible_ = !pst.ok || preempt || rank_expr_ != "0";
  return true;
}

int Sim::machine_index(const std::string& name) const {
  for (size_t i = 0; i < machines_.size(); ++i)
    if (iequal(machines_[i].name, name)) return static_cast<int>(i);
  return -1;
}

bool Sim::add_step(const Step& st) {
  if (st.kind != StepKind::kMachine) {
    if (st.kind == StepKind::kSubmit && st.runtime == 0)
      return fail(st.line, "submit: runtime must be at least 1 second");
    if (st.kind == StepKind::kMachineOff || st.kind == StepKind::kMachineOn ||
        st.kind == StepKind::kSet) {
      for (const std::string& n : st.names) {
        if (machine_index(n) < 0) return fail(st.line, "no machine named '" + n + "'");
      }
    }
    steps_.push_back(st);
    return true;
  }
  classad::ParseError pe;
  AdPtr base(st.ad.empty() ? ClassAd::make() : classad::parse_classad(st.ad, &pe).release());
  if (!base) return fail(st.line, "machine ad " + st.ad + ": " + pe.to_string());
  for (const std::string& n : st.names) {
    if (machine_index(n) >= 0) return fail(st.line, "machine '" + n + "' is defined twice");
    Machine m;
    m.name = n;
    m.base = AdPtr(base->copy());
    m.partitionable = st.partitionable;
    m.nslots = st.count > 0 ? st.count : 1;
    machines_.push_back(std::move(m));
    if (!machine_up(static_cast<int>(machines_.size()) - 1, st.line)) return false;
  }
  return true;
}

int Sim::new_slot() {
  for (size_t i = 0; i < slots_.size(); ++i)
    if (!slots_[i].live && !slots_[i].ad) return static_cast<int>(i);
  slots_.emplace_back();
  return static_cast<int>(slots_.size()) - 1;
}

// Publishes a slot's state (and a partitionable slot's resources) in its ad.
void publish(Slot& s, const std::vector<Job>& jobs) {
  ClassAd& ad = *s.ad;
  set_int(ad, "Cpus", s.res[0]);
  set_int(ad, "Memory", s.res[1]);
  set_int(ad, "Disk", s.res[2]);
  if (s.job >= 0) {
    const Job& j = jobs[s.job];
    set_str(ad, "State", "Claimed");
    set_str(ad, "Activity", "Busy");
    set_str(ad, "RemoteUser", j.principal);
    set_str(ad, "RemoteOwner", j.principal);
    set_int(ad, "RemoteJobId", j.id);
  } else {
    set_str(ad, "State", "Unclaimed");
    set_str(ad, "Activity", "Idle");
    ad.remove("RemoteUser");
    ad.remove("RemoteOwner");
    ad.remove("RemoteJobId");
  }
}

bool Sim::machine_up(int mi, int line) {
  Machine& m = machines_[mi];
  if (m.on) return true;
  const int64_t cpus = int_attr(*m.base, "Cpus", 1);
  const int64_t mem = int_attr(*m.base, "Memory", 1024);
  const int64_t disk = int_attr(*m.base, "Disk", kDefaultDiskKb);
  if (cpus < 1 || mem < 0 || disk < 0) return fail(line, "machine " + m.name + ": bad resources");
  const int64_t n = m.partitionable ? 1 : m.nslots;
  for (int64_t k = 0; k < n; ++k) {
    int si = new_slot();
    Slot& s = slots_[si];
    s = Slot{};
    s.name = "slot" + std::to_string(k + 1) + "@" + m.name;
    s.machine = mi;
    s.live = true;
    s.partitionable = m.partitionable;
    s.res[0] = std::max<int64_t>(1, cpus / n);
    s.res[1] = mem / n;
    s.res[2] = disk / n;
    s.ad = AdPtr(ClassAd::make());
    ClassAd& ad = *s.ad;
    set_str(ad, "MyType", "Machine");
    set_str(ad, "OpSys", "LINUX");
    set_str(ad, "Arch", "X86_64");
    std::string error;
    if (!set_expr(ad, "Start", start_expr_, &error) ||
        !set_expr(ad, "Requirements", "START", &error) || !set_expr(ad, "Rank", rank_expr_, &error))
      return fail(line, error);
    merge(ad, *m.base);
    if (m.base->lookup("Rank")) preemption_possible_ = true;
    set_str(ad, "Name", s.name);
    set_str(ad, "Machine", m.name);
    set_int(ad, "SlotID", k + 1);
    ad.insert_value("PartitionableSlot", Value::boolean(m.partitionable));
    if (m.partitionable) {
      set_int(ad, "TotalSlotCpus", cpus);
      set_int(ad, "TotalSlotMemory", mem);
      set_int(ad, "TotalSlotDisk", disk);
    }
    publish(s, jobs_);
    m.slots.push_back(si);
    slot_by_name_[s.name] = si;
  }
  m.on = true;
  return true;
}

void Sim::machine_down(int mi) {
  Machine& m = machines_[mi];
  if (!m.on) return;
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    if (!s.live || s.machine != mi) continue;
    if (s.job >= 0) stop_job(s.job, JobState::kIdle, false);
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    if (!s.live || s.machine != mi) continue;
    slot_by_name_.erase(s.name);
    s = Slot{};
  }
  m.slots.clear();
  m.on = false;
}

// The accountant learns a submitter's new usage at the current time.
void Sim::charge(const std::string& principal) {
  const auto& u = usage_[principal];
  acc_.set_usage(principal, u.first, u.second < 1e-9 ? 0 : u.second, now_);
  auto group_fn = [](std::string_view submitter, const void* ctx) {
    const auto* g = static_cast<const fairshare::GroupSettings*>(ctx);
    std::string_view user = submitter.substr(0, submitter.rfind('@'));
    return fairshare::group_of(*g, user);
  };
  acc_.set_group_usage(group_fn, &groups_, now_);
}

std::vector<fairshare::LimitUse> Sim::limits_of(int j, int s) {
  std::vector<fairshare::LimitUse> uses;
  std::string error;
  if (!fairshare::job_limit_uses(*jobs_[j].ad, *slots_[s].ad, &uses, &error)) uses.clear();
  return uses;
}

void Sim::start_job(int j, int s) {
  Job& job = jobs_[j];
  Slot& slot = slots_[s];
  job.slot = s;
  job.start = now_;
  slot.job = j;
  publish(slot, jobs_);
  job.weight = fairshare::slot_weight(*slot.ad);
  job.limits = limits_of(j, s);
  limits_.acquire(job.limits);
  set_state(j, JobState::kRunning);
  charge(job.principal);
}

// Gives a free slot back: a static slot waits Unclaimed; a dynamic slot's resources return to
// its partitionable slot.
void Sim::release_slot(int si) {
  Slot& s = slots_[si];
  s.claim_user.clear();
  if (s.parent < 0) {
    publish(s, jobs_);
    return;
  }
  Slot& p = slots_[s.parent];
  for (int k = 0; k < 3; ++k) p.res[k] += s.res[k];
  publish(p, jobs_);
  slot_by_name_.erase(s.name);
  s = Slot{};
}

bool Sim::can_run(int j, int s) {
  ClassAd& job = *jobs_[j].ad;
  ClassAd& slot = *slots_[s].ad;
  classad::MatchPair pair(job, slot);
  if (!pair.symmetric()) return false;
  return limits_.fits(limits_of(j, s));
}

void Sim::stop_job(int j, JobState to, bool reuse) {
  Job& job = jobs_[j];
  const int si = job.slot;
  set_state(j, to);
  job.slot = -1;
  limits_.release(job.limits);
  job.limits.clear();
  Slot& s = slots_[si];
  s.job = -1;
  publish(s, jobs_);
  // Claim reuse: the same submitter's next idle job the slot can run, in the schedd's order.
  int next = -1;
  if (reuse && now_ - s.claim_start < worklife_) {
    for (const auto& [prio, k] : idle_[s.claim_user]) {
      if (can_run(k, si)) {
        next = k;
        break;
      }
    }
  }
  if (next >= 0) {
    start_job(next, si);
  } else {
    release_slot(si);
  }
  charge(job.principal);
}

std::string Sim::resolve(const std::string& name) const {
  if (name.find('@') != std::string::npos) return name;
  for (const fairshare::GroupConfig& g : groups_.groups)
    if (iequal(g.name, name)) return g.name;
  if (name == fairshare::kNoGroup) return name;
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto it = principal_of_.find(lower);
  if (it != principal_of_.end()) return it->second;
  return name + "@" + uid_domain_;
}

bool Sim::apply(const Step& st) {
  switch (st.kind) {
    case StepKind::kSubmit: {
      classad::ParseError pe;
      AdPtr user(st.ad.empty() ? ClassAd::make() : classad::parse_classad(st.ad, &pe).release());
      if (!user) return fail(st.line, "submit ad " + st.ad + ": " + pe.to_string());
      std::string acct = str_attr(*user, "AccountingGroup");
      std::string acct_group = str_attr(*user, "AcctGroup");
      std::string acct_user = str_attr(*user, "AcctGroupUser");
      bool nice = false;
      user->evaluate_bool("NiceUser", nice);
      // Charged to AccountingGroup ("group.user"), else AcctGroup.AcctGroupUser, else the name.
      std::string who = !acct.empty() ? acct
                        : !acct_group.empty()
                            ? acct_group + "." + (acct_user.empty() ? st.name : acct_user)
                            : st.name;
      std::string principal = accountant::submitter_name(who, uid_domain_, nice);
      std::string group_text = acct_group;
      if (group_text.empty() && !acct.empty()) {
        size_t dot = acct.rfind('.');
        group_text = dot == std::string::npos ? acct : acct.substr(0, dot);
      }
      std::string group = fairshare::group_of(groups_, group_text);
      std::string lower = st.name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      principal_of_[lower] = principal;
      const int batch_start = static_cast<int>(jobs_.size());
      for (int64_t k = 0; k < st.count; ++k) {
        Job j;
        j.id = static_cast<int32_t>(jobs_.size() + 1);
        j.submit = st.name;
        j.principal = principal;
        j.group = group;
        j.runtime = st.runtime;
        j.qdate = now_;
        j.ad = AdPtr(ClassAd::make());
        ClassAd& ad = *j.ad;
        set_str(ad, "MyType", "Job");
        set_str(ad, "Owner", acct_user.empty() ? st.name : acct_user);
        set_str(ad, "User", principal);
        set_int(ad, "ClusterId", j.id);
        set_int(ad, "ProcId", 0);
        set_int(ad, "QDate", now_);
        set_int(ad, "JobStatus", 1);
        set_int(ad, "RequestCpus", 1);
        set_int(ad, "RequestMemory", 1);
        set_int(ad, "RequestDisk", 1);
        merge(ad, *user);
        // The job's own Requirements and the resource clause submit adds.
        std::string req =
            "TARGET.Cpus >= RequestCpus && TARGET.Memory >= RequestMemory && "
            "TARGET.Disk >= RequestDisk";
        if (const classad::Expr* own = user->lookup("Requirements")) {
          std::string text;
          classad::unparse_expr(text, own);
          req = "(" + text + ") && " + req;
        }
        std::string error;
        if (!set_expr(ad, "Requirements", req, &error)) return fail(st.line, error);
        j.prio = int_attr(ad, "JobPrio", 0);
        j.request = static_cast<double>(int_attr(ad, "RequestCpus", 1));
        j.batch = st.line;
        j.batch_end = batch_start + static_cast<int>(st.count);
        j.state = JobState::kGone;  // set_state() makes it Idle and indexes it
        jobs_.push_back(std::move(j));
        set_state(static_cast<int>(jobs_.size()) - 1, JobState::kIdle);
      }
      return true;
    }
    case StepKind::kUserprio: {
      std::string who = resolve(st.name);
      if (st.what == "setfactor") {
        if (st.value < 1) return fail(st.line, "userprio setfactor: the factor must be >= 1");
        acc_.set_factor(who, st.value, now_);
      } else if (st.what == "setprio") {
        if (st.value < accountant::kMinPriority)
          return fail(st.line, "userprio setprio: the priority must be >= 0.5");
        acc_.set_priority(who, st.value, now_);
      } else if (st.what == "setceil") {
        acc_.set_ceiling(who, st.value, now_);
      } else if (st.what == "setfloor") {
        acc_.set_floor(who, st.value, now_);
      } else if (st.what == "resetusage") {
        acc_.reset_usage(who, now_);
      } else {
        acc_.remove(who);
      }
      return true;
    }
    case StepKind::kExit: {
      std::vector<int> running;
      for (int k : running_)
        if (iequal(jobs_[k].submit, st.name)) running.push_back(k);
      std::stable_sort(running.begin(), running.end(),
                       [&](int a, int b) { return jobs_[a].start < jobs_[b].start; });
      if (static_cast<int64_t>(running.size()) > st.count) running.resize(st.count);
      for (int k : running) stop_job(k, JobState::kGone, true);
      return true;
    }
    case StepKind::kRemove: {
      int64_t left = st.count;
      std::vector<int> newest;
      for (const auto& [principal, set] : idle_)
        for (const auto& [prio, k] : set)
          if (iequal(jobs_[k].submit, st.name)) newest.push_back(k);
      std::sort(newest.begin(), newest.end(), std::greater<int>());
      for (int k : newest) {
        if (left-- <= 0) break;
        set_state(k, JobState::kGone);
      }
      return true;
    }
    case StepKind::kMachineOff:
      for (const std::string& n : st.names) machine_down(machine_index(n));
      return true;
    case StepKind::kMachineOn:
      for (const std::string& n : st.names)
        if (!machine_up(machine_index(n), st.line)) return false;
      return true;
    case StepKind::kSet: {
      classad::ParseError pe;
      AdPtr change(classad::parse_classad(st.ad, &pe));
      if (!change) return fail(st.line, "set " + st.ad + ": " + pe.to_string());
      for (const std::string& n : st.names) {
        Machine& m = machines_[machine_index(n)];
        merge(*m.base, *change);
        for (Slot& s : slots_) {
          if (!s.live || s.machine != machine_index(n)) continue;
          merge(*s.ad, *change);
          publish(s, jobs_);
        }
      }
      return true;
    }
    case StepKind::kReschedule: reschedule_ = true; return true;
    default: return true;
  }
}

std::vector<fairshare::GroupQuota> Sim::quotas() {
  double pool = 0;
  for (const Slot& s : slots_) {
    if (!s.live || s.parent >= 0) continue;
    if (s.partitionable) {
      pool += static_cast<double>(int_attr(*s.ad, "TotalSlotCpus", s.res[0]));
    } else {
      pool += fairshare::slot_weight(*s.ad);
    }
  }
  std::map<std::string, fairshare::GroupDemand> by;
  for (const auto& [key, t] : tally_) {
    fairshare::GroupDemand& d = by[key.second];
    d.name = key.second;
    d.usage += t.run_weight;
    d.requested += t.run_weight + t.idle_request;
  }
  std::vector<fairshare::GroupDemand> demand;
  for (auto& [name, d] : by) demand.push_back(d);
  return fairshare::compute_group_quotas(groups_, pool, demand);
}

void Sim::cycle() {
  acc_.update(now_);
  // No free slot and no way to preempt: nothing can match, and the negotiator is not asked.
  bool any_free = preemption_possible_;
  for (size_t i = 0; i < slots_.size() && !any_free; ++i) {
    const Slot& s = slots_[i];
    any_free = s.live && s.job < 0 && (!s.partitionable || s.res[0] > 0);
  }
  if (!any_free || idle_.empty()) {
    last_quotas_ = quotas();
    report_cycle(0, 0);
    return;
  }
  negotiator::CycleInput in;
  in.cfg = &cfg_;
  in.now = now_;
  std::map<std::string, size_t> index;
  // The jobs of one `submit` step are identical: no cycle can match more of them than there
  // are slots it may take (free ones, and running ones when preemption is possible), and once
  // one fails the rest are skipped, so at most that many are offered.
  size_t slot_count = 0;
  for (const Slot& s : slots_) {
    if (!s.live || (s.job >= 0 && !preemption_possible_)) continue;
    slot_count += s.partitionable ? static_cast<size_t>(std::max<int64_t>(1, s.res[0])) : 1;
  }
  std::map<int, size_t> offered;  // batch -> jobs offered
  for (const auto& [principal, set] : idle_) {
    for (auto next = set.begin(); next != set.end();) {
      const Job& j = jobs_[next->second];
      if (++offered[j.batch] > slot_count + 1) {
        next = set.lower_bound({next->first, j.batch_end});  // the batch's other jobs
        continue;
      }
      ++next;
      auto it = index.find(j.principal);
      if (it == index.end()) {
        it = index.emplace(j.principal, in.submitters.size()).first;
        negotiator::Submitter s;
        s.name = j.principal;
        s.priority = acc_.effective_priority(j.principal);
        s.nice = accountant::is_nice_user(j.principal);
        if (const accountant::Record* r = acc_.find(j.principal)) {
          s.usage = r->weighted_in_use;
          s.floor = r->floor;
          s.ceiling = r->ceiling;
        }
        in.submitters.push_back(std::move(s));
      }
      j.ad->ref();
      in.submitters[it->second].jobs.push_back({j.id, 0, AdPtr(j.ad.get())});
    }
  }
  for (const accountant::Record& r : acc_.records()) {
    if (!r.is_group && !index.count(r.name))
      in.other_users.push_back({r.name, acc_.effective_priority(r.name), r.weighted_in_use});
  }
  for (int r : running_) {
    const Job& j = jobs_[r];
    in.limits_in_use.insert(in.limits_in_use.end(), j.limits.begin(), j.limits.end());
  }
  // Without preemption only free slots can match: the negotiator gets those, and the whole
  // pool's slot weight for the pie.
  for (const Slot& s : slots_) {
    if (!s.live) continue;
    in.pool_weight += fairshare::slot_weight(*s.ad);
    if (!preemption_possible_ && s.job >= 0) continue;
    s.ad->ref();
    in.slots.push_back(AdPtr(s.ad.get()));
  }
  negotiator::CycleResult out = negotiator::negotiate(in);
  // Settings the negotiator could not read (named with their file and line): said once.
  for (const std::string& w : out.warnings) {
    if (warned_.insert(w).second) res_->output += file_ + ": warning: " + w + "\n";
  }
  int64_t preempted = 0;
  for (const negotiator::Match& m : out.matches) {
    auto si = slot_by_name_.find(m.slot);
    if (si == slot_by_name_.end() || m.cluster < 1 || m.cluster > (int32_t)jobs_.size()) continue;
    const int j = m.cluster - 1;
    if (jobs_[j].state != JobState::kIdle) continue;
    int target = si->second;
    if (m.partitionable) {
      Slot& p = slots_[target];
      const ClassAd& ad = *jobs_[j].ad;
      int64_t want[3] = {int_attr(ad, "RequestCpus", 1), int_attr(ad, "RequestMemory", 1),
                         int_attr(ad, "RequestDisk", 1)};
      bool fits = true;
      for (int k = 0; k < 3; ++k) fits = fits && want[k] <= p.res[k] && want[k] >= 0;
      if (!fits) continue;
      const int d = new_slot();
      Slot& pp = slots_[target];  // new_slot may move the vector
      Slot& ds = slots_[d];
      ds = Slot{};
      ds.name = "slot1_" + std::to_string(++pp.dslots) + "@" + machines_[pp.machine].name;
      ds.machine = pp.machine;
      ds.live = true;
      ds.parent = target;
      ds.ad = AdPtr(pp.ad->copy());
      ds.ad->insert_value("PartitionableSlot", Value::boolean(false));
      ds.ad->insert_value("DynamicSlot", Value::boolean(true));
      set_str(*ds.ad, "Name", ds.name);
      for (int k = 0; k < 3; ++k) {
        ds.res[k] = want[k];
        pp.res[k] -= want[k];
      }
      publish(pp, jobs_);
      slot_by_name_[ds.name] = d;
      target = d;
    } else if (slots_[target].job >= 0) {
      const int victim = slots_[target].job;
      stop_job(victim, JobState::kIdle, false);
      ++preempted;
    }
    Slot& s = slots_[target];
    s.claim_user = jobs_[j].principal;
    s.claim_start = now_;
    start_job(j, target);
  }
  preemptions_ += preempted;
  last_quotas_ = quotas();
  report_cycle(out.matches.size(), preempted);
}

void Sim::report_cycle(size_t matches, int64_t preempted) {
  std::map<std::string, std::pair<int64_t, int64_t>> counts;  // submit name -> running, idle
  std::map<std::string, std::string> principal;
  for (const auto& [key, t] : tally_) {
    if (t.running == 0 && t.idle == 0) continue;
    auto& c = counts[key.first];
    c.first += t.running;
    c.second += t.idle;
    principal[key.first] = t.principal;
  }
  std::string line = "t=" + std::to_string(now_) + " matches=" + std::to_string(matches) +
                     " preemptions=" + std::to_string(preempted);
  for (const auto& [name, c] : counts) {
    line += " " + name + "=" + std::to_string(c.first) + "/" + std::to_string(c.second);
    const std::string& p = principal[name];
    res_->csv += std::to_string(now_) + "," + name + ",submitter," + std::to_string(c.first) + "," +
                 std::to_string(c.second) + "," + fmt(acc_.real_priority(p)) + "," +
                 fmt(acc_.effective_priority(p)) + ",\n";
  }
  for (const fairshare::GroupQuota& q : last_quotas_) {
    if (q.name == fairshare::kNoGroup && groups_.groups.empty()) continue;
    int64_t running = 0, idle = 0;
    for (const auto& [key, t] : tally_) {
      if (!in_group(key.second, q.name)) continue;
      running += t.running;
      idle += t.idle;
    }
    res_->csv += std::to_string(now_) + "," + q.name + ",group," + std::to_string(running) + "," +
                 std::to_string(idle) + "," + fmt(acc_.real_priority(q.name)) + "," +
                 fmt(acc_.effective_priority(q.name)) + "," + fmt(q.effective_quota) + "\n";
  }
  res_->output += line + "\n";
}

void Sim::check(const Step& st) {
  double got = 0;
  std::string got_text;
  bool ok = false;
  const std::string& what = st.what;
  if (what == "running" || what == "idle") {
    const bool running = what == "running";
    bool is_group = false;
    for (const fairshare::GroupConfig& g : groups_.groups) is_group |= iequal(g.name, st.name);
    for (const auto& [key, t] : tally_) {
      if (is_group ? in_group(key.second, st.name) : iequal(key.first, st.name))
        got += static_cast<double>(running ? t.running : t.idle);
    }
    ok = got >= st.value && got <= st.high;
  } else if (what == "limit") {
    got = limits_.in_use(st.name);
    ok = got >= st.value - 1e-9 && got <= st.high + 1e-9;
  } else if (what == "preemptions") {
    got = static_cast<double>(preemptions_);
    preemptions_ = 0;
    ok = got >= st.value && got <= st.high;
  } else if (what == "quota") {
    bool found = false;
    for (const fairshare::GroupQuota& q : last_quotas_) {
      if (!iequal(q.name, st.name)) continue;
      found = true;
      got = q.effective_quota;
    }
    if (!found) {
      got_text = "no such group";
    }
    ok = found && std::fabs(got - st.value) <= st.tolerance;
  } else if (what == "prio" || what == "eup") {
    std::string who = resolve(st.name);
    got = what == "prio" ? acc_.real_priority(who) : acc_.effective_priority(who);
    ok = std::fabs(got - st.value) <= st.tolerance;
  } else if (what == "on") {
    auto it = slot_by_name_.find(st.name);
    got_text = "none";
    if (it == slot_by_name_.end()) {
      got_text = "no such slot";
    } else if (slots_[it->second].job >= 0) {
      got_text = jobs_[slots_[it->second].job].submit;
    }
    ok = iequal(got_text, st.who);
  }
  if (ok) {
    ++res_->passed;
    return;
  }
  ++res_->failed;
  if (got_text.empty()) got_text = fmt(got);
  std::string want =
      what == "on" ? st.who
                   : (st.value == st.high ? fmt(st.value) : fmt(st.value) + ".." + fmt(st.high));
  if (st.tolerance > 1e-6) want += " +- " + fmt(st.tolerance);
  res_->output += "FAIL " + file_ + ":" + std::to_string(st.line) + ": t=" + std::to_string(now_) +
                  " expect " + what + (st.name.empty() ? "" : " " + st.name) + ": want " + want +
                  ", got " + got_text + "\n";
}

// The earliest end of a running job (entries of jobs that ended otherwise are dropped).
int64_t Sim::next_end() {
  while (!ends_.empty()) {
    const auto [end, j] = ends_.top();
    const Job& job = jobs_[j];
    if (job.state == JobState::kRunning && job.runtime > 0 && job.start + job.runtime == end)
      return end;
    ends_.pop();
  }
  return INT64_MAX;
}

void Sim::run() {
  std::stable_sort(steps_.begin(), steps_.end(),
                   [](const Step& a, const Step& b) { return a.time < b.time; });
  const int64_t end = steps_.empty() ? 0 : steps_.back().time;
  size_t next = 0;
  now_ = 0;
  while (now_ <= end) {
    // 1. Jobs whose runtime ends now exit, with claim reuse (earliest start first).
    while (next_end() <= now_) {
      const int due = ends_.top().second;
      ends_.pop();
      stop_job(due, JobState::kGone, true);
    }
    // 2. This time's steps in file order; expectations wait for the cycle.
    std::vector<const Step*> expects;
    for (; next < steps_.size() && steps_[next].time == now_; ++next) {
      if (steps_[next].kind == StepKind::kExpect) {
        expects.push_back(&steps_[next]);
      } else if (!apply(steps_[next])) {
        return;
      }
    }
    // 3. A cycle when one falls due.
    if (now_ % interval_ == 0 || reschedule_) {
      reschedule_ = false;
      cycle();
    }
    for (const Step* e : expects) check(*e);
    int64_t t = (now_ / interval_ + 1) * interval_;
    if (next < steps_.size()) t = std::min(t, steps_[next].time);
    t = std::min(t, next_end());
    now_ = t;
  }
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// The line without its `#` comment (a '#' inside a string literal stays).
std::string strip_comment(const std::string& s) {
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"' && (i == 0 || s[i - 1] != '\\')) quoted = !quoted;
    if (s[i] == '#' && !quoted) return s.substr(0, i);
  }
  return s;
}

}  // namespace

void pool_run(std::string_view text, const std::string& name, PoolResult* res) {
  *res = PoolResult{};
  std::vector<std::string> lines;
  size_t p = 0;
  while (p <= text.size()) {
    size_t nl = text.find('\n', p);
    lines.emplace_back(
        text.substr(p, nl == std::string_view::npos ? std::string_view::npos : nl - p));
    if (nl == std::string_view::npos) break;
    p = nl + 1;
  }
  size_t sep = 0;
  while (sep < lines.size() && trim(lines[sep]) != "---") ++sep;
  if (sep == lines.size()) {
    res->error = true;
    res->output = name + ": no '---' line between the configuration and the steps\n";
    return;
  }
  std::string cfg_text;
  for (size_t i = 0; i < sep; ++i) cfg_text += lines[i] + "\n";
  std::unique_ptr<Sim> sim(new Sim(name, res));
  if (!sim->setup(cfg_text)) return;
  for (size_t i = sep + 1; i < lines.size(); ++i) {
    std::string l = trim(strip_comment(lines[i]));
    if (l.empty()) continue;
    Step st;
    std::string error;
    if (!parse_step(l, &st, &error)) {
      res->error = true;
      res->output += name + ":" + std::to_string(i + 1) + ": " + error + "\n";
      continue;
    }
    st.line = static_cast<int>(i + 1);
    if (!res->error) sim->add_step(st);
  }
  if (res->error) return;
  sim->run();
  if (res->error) return;
  res->output +=
      std::to_string(res->passed) + " passed, " + std::to_string(res->failed) + " failed\n";
}

}  // namespace kite::pool
