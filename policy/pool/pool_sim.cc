// The pool simulator's engine: machines (each running the startd core, sim_machine.h), jobs, the
// accountant, a negotiation cycle on the virtual clock, claim reuse, preemption with retirement
// and vacate time, and the expectations (see pool_sim.h).
#include "policy/pool/pool_sim.h"

#include <strings.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
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
#include "policy/negotiator/cycle_settings.h"
#include "policy/negotiator/match_cache.h"
#include "policy/negotiator/negotiator.h"
#include "policy/pool/pool_steps.h"
#include "policy/pool/sim_machine.h"
#include "policy/startd/clock.h"

namespace kite::pool {
namespace {

using classad::AdPtr;
using classad::ClassAd;
using classad::Value;

constexpr int64_t kDefaultDiskKb = 10 * 1024 * 1024;  // 10 GiB

// kMatched: a preempting claim was accepted for the job; it runs once the slot is free (it counts
// as idle but is not offered to the negotiator meanwhile).
enum class JobState { kIdle, kMatched, kRunning, kGone };

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
  int machine = -1;  // where it runs (or waits for its slot)
  std::string slot;  // the startd's slot name there
  int64_t start = 0;
  double weight = 0;    // slot weight it holds while running
  double request = 1;   // RequestCpus: its weight as demand while idle
  int batch = 0;        // the `submit` step (its line) that made it
  int kind = 0;         // jobs of equal kind (submitter and ad) are identical to the negotiator
  int batch_end = 0;    // one past the index of that step's last job (its jobs are contiguous)
  bool listed = false;  // in its submitter's IdleList (from its first time Idle on)
  std::vector<fairshare::LimitUse> limits;  // held while running
};

// The simulator's side of one startd slot that holds a claim: whose jobs run there.
struct SlotRec {
  std::string name;  // the startd's name, "slot1_2"
  int job = -1;      // the job running there
  int pending = -1;  // the job whose claim waits for the slot (preemption, or just claimed)
  std::string claim_user;
  int64_t claim_start = 0;
};

struct Machine {
  std::string name;
  AdPtr base;  // the scenario's ad, with `set` changes
  bool partitionable = false;
  int64_t nslots = 0;
  bool on = false;
  std::unique_ptr<config::Config> cfg;  // its own copy: `set START=...` changes its policy
  std::unique_ptr<SimMachine> sm;
  std::vector<SlotRec> recs;
  int64_t timer = INT64_MAX;  // the startd's next timer as last asked
  // Its share of the pool's sums as of its last sync (0 while off): every slot's weight, and
  // what the group quotas count (the partitionable slots' CPUs, the static slots' weights).
  double weight_all = 0, weight_quota = 0;
};

// Machine attributes that are the startd's policy (configuration), not inputs: a machine ad or
// `set` naming one changes that machine's policy, as its own configuration would.
bool is_policy_attr(std::string_view name) {
  for (const char* p : {"START", "RANK", "SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND",
                        "WANT_VACATE", "IS_OWNER", "MaxJobRetirementTime", "MachineMaxVacateTime"})
    if (name.size() == std::strlen(p) && strncasecmp(name.data(), p, name.size()) == 0) return true;
  return false;
}

// Policy a startd must look at every cycle to follow: it may change its mind at any time.
constexpr const char* kEachCycleKnobs[] = {"SUSPEND", "PREEMPT", "KILL", "CONTINUE",
                                           "WANT_SUSPEND"};

bool changes_each_cycle(const ClassAd& ad) {
  for (const char* knob : kEachCycleKnobs)
    if (ad.lookup(knob)) return true;
  return false;
}

// Splits ad entries into configuration lines (policy attributes) and inputs (the rest).
void split_attrs(const ClassAd& ad, std::string* policy,
                 std::vector<std::pair<std::string, std::string>>* inputs) {
  for (const ClassAd::Entry& e : ad.entries()) {
    std::string_view n = e.name->view();
    std::string text;
    classad::unparse_expr(text, e.expr);
    if (is_policy_attr(n)) {
      *policy += std::string(n) + " = " + text + "\n";
    } else {
      inputs->emplace_back(std::string(n), text);
    }
  }
}

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

// Copies every attribute of `from` into `to`.
void merge(ClassAd& to, const ClassAd& from) {
  for (const ClassAd::Entry& e : from.entries()) {
    classad::expr_ref(e.expr);
    to.insert(e.name->view(), e.expr);
  }
}

// A slot the negotiator may give a job: free (Unclaimed or Owner: START decides), a
// partitionable slot, or one running a job when preemption is possible. Slots retiring,
// vacating or waiting for a preempting claim are not offered.
bool offered(const SimSlot& s, const SlotRec* r, bool preemption_possible) {
  if (r && r->pending >= 0) return false;
  if (s.partitionable) return true;
  if (s.state == startd::State::kUnclaimed || s.state == startd::State::kOwner) return !r;
  return preemption_possible && s.state == startd::State::kClaimed &&
         s.activity == startd::Activity::kBusy && r && r->job >= 0;
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
  const config::Config* machine_config(const Machine& m, int64_t cpus, int64_t mem,
                                       std::string* error);
  SlotRec* rec(int m, const std::string& slot);
  void sync(int m);
  void timers_due();
  int64_t next_timer();
  void start_job(int j, int m, const std::string& slot);
  void stop_job(int j, JobState to, bool reuse);
  void evicted(int j);
  void charge(const std::string& principal);
  void charge_groups();
  bool can_run(int j, ClassAd& slot);
  std::vector<fairshare::LimitUse> limits_of(int j, ClassAd& slot);
  std::string resolve(const std::string& name) const;
  int machine_index(const std::string& name) const;
  // "slot1_2@node3" -> machine index and "slot1_2"; -1 when there is no such machine.
  int split_slot(const std::string& full, std::string* slot) const;
  void report_cycle(size_t matches, int64_t preempted);
  void note_machine(int m);
  void note_limits(const Job& j, int sign);
  std::vector<fairshare::GroupQuota> quotas();
  int64_t next_end();
  void set_state(int j, JobState to);
  double waiting_weight(const std::string& principal) const {
    auto it = waiting_.find(principal);
    return it == waiting_.end() || it->second < 1e-9 ? 0 : it->second;
  }
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
  std::shared_ptr<const negotiator::CycleSettings> settings_;  // read once for every cycle
  // NEGOTIATOR_SLOT_CONSTRAINT: the slots the negotiator fetches, so the pool it divides.
  bool fetched(const SimSlot& s) const {
    return negotiator::passes(*s.ad, settings_->knobs.slot_constraint);
  }
  negotiator::MatchCache match_cache_;  // answers for the slots that stay free between cycles
  accountant::Accountant acc_;
  fairshare::GroupSettings groups_;
  // Accountant name -> its configured group (groups_ does not change once set up).
  std::map<std::string, std::string, std::less<>> group_of_;
  fairshare::LimitTracker limits_;
  std::string uid_domain_;
  std::string cfg_text_;
  int64_t interval_ = 60, worklife_ = 1200;
  std::vector<Machine> machines_;
  std::map<std::string, int> machine_by_name_;  // lower-cased
  // Startd configurations by layout and resources: "slots/cpus/memory" (0 slots: partitionable).
  std::map<std::string, std::unique_ptr<config::Config>> machine_cfgs_;
  std::vector<Job> jobs_;
  std::vector<Step> steps_;
  std::map<std::string, std::string> principal_of_;  // lower-cased submit name -> principal
  std::map<std::string, int> kinds_;                 // principal + "\n" + submit ad -> kind
  int64_t now_ = 0;
  startd::VirtualClock clock_;
  bool evaluate_each_cycle_ = false;      // SUSPEND/PREEMPT configured: the startds look each cycle
  using Timer = std::pair<int64_t, int>;  // (time, machine); stale when != the machine's timer
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  int64_t preemptions_ = 0;  // since the last `expect preemptions`
  bool reschedule_ = false;
  bool preemption_possible_ = true;  // false: no job offers need to count running slots
  std::set<std::string> warned_;
  std::vector<fairshare::GroupQuota> last_quotas_;
  // Indexes kept by set_state(), so no step scans every job ever submitted.
  // A submitter's jobs in the order they are offered, (-prio, job), each from its first time
  // Idle on, whatever its state now: a flat array walked from `head` (no job before it is Idle)
  // skipping the jobs not Idle, instead of a tree of the Idle ones (tens of thousands in a
  // long run, whose nodes every cycle's walk missed in the cache).
  struct IdleList {
    std::vector<std::pair<int64_t, int>> order;
    size_t head = 0;
  };
  // The position in `list` of the first Idle job at or after `p` (order.size(): none).
  size_t next_idle(const IdleList& list, size_t p) const {
    while (p < list.order.size() && jobs_[list.order[p].second].state != JobState::kIdle) ++p;
    return p;
  }
  void list_idle(int j);
  std::map<std::string, IdleList> idle_;  // by principal
  std::set<int> running_;
  std::set<int> limited_;  // the running jobs that hold concurrency-limit units
  // The units limited_ jobs hold, summed by limit name as they spell it; used while every
  // amount is a whole number (so any order of adding gives the same sums).
  std::map<std::string, double> limit_sums_;
  int64_t inexact_limits_ = 0;  // running jobs holding a fraction of a unit
  // Kept by note_machine() so no cycle scans every machine: the machines with a slot the
  // negotiator may be offered when nothing can preempt, and the pool's sums (exact while every
  // machine's share is a whole number; else each cycle adds them up again).
  std::set<int> offering_;
  double pool_all_ = 0, pool_quota_ = 0;
  bool sums_exact_ = true;
  std::map<std::pair<std::string, std::string>, Tally> tally_;  // (submit name, group)
  std::map<std::string, std::pair<int64_t, double>> usage_;     // principal -> slots, weight
  // Slot weight of jobs whose claims wait for their slots: theirs already in the negotiator's
  // eyes (the accountant charges them once they run).
  std::map<std::string, double> waiting_;
  using End = std::pair<int64_t, int>;  // (end time, job)
  std::priority_queue<End, std::vector<End>, std::greater<End>> ends_;
  // A submitter's usage changed at now_ and its groups' usage is not yet recomputed: done
  // once before anything reads the accountant or the clock moves (charging a group several
  // times at one time gives what the last charge gives).
  bool groups_stale_ = false;
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

// A whole number small enough that sums of such stay exact in a double.
bool whole_number(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15;
}

void Sim::note_limits(const Job& j, int sign) {
  for (const fairshare::LimitUse& u : j.limits) {
    if (!whole_number(u.units)) {
      inexact_limits_ += sign;
      continue;
    }
    auto it = limit_sums_.emplace(u.name, 0.0).first;
    it->second += sign * u.units;
    if (it->second == 0) limit_sums_.erase(it);
  }
}

void Sim::set_state(int j, JobState to) {
  Job& job = jobs_[j];
  if (job.state == to) return;
  tally(job, -1);
  if (job.state == JobState::kRunning) {
    running_.erase(j);
    if (limited_.erase(j)) note_limits(job, -1);
    auto& u = usage_[job.principal];
    u.first -= 1;
    u.second -= job.weight;
  }
  if (job.state == JobState::kMatched) waiting_[job.principal] -= job.request;
  job.state = to;
  if (to == JobState::kMatched) waiting_[job.principal] += job.request;
  if (to == JobState::kIdle) list_idle(j);
  if (to == JobState::kRunning) {
    running_.insert(j);
    if (!job.limits.empty()) {
      limited_.insert(j);
      note_limits(job, +1);
    }
    auto& u = usage_[job.principal];
    u.first += 1;
    u.second += job.weight;
    if (job.runtime > 0) ends_.push({job.start + job.runtime, j});
  }
  tally(job, +1);
}

void Sim::list_idle(int j) {
  Job& job = jobs_[j];
  IdleList& list = idle_[job.principal];
  const std::pair<int64_t, int> key{-job.prio, j};
  auto at = std::lower_bound(list.order.begin(), list.order.end(), key);
  if (!job.listed) {
    job.listed = true;
    at = list.order.insert(at, key);  // (a new job: nearly always at the end)
  }
  list.head = std::min(list.head, static_cast<size_t>(at - list.order.begin()));
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
  settings_ = negotiator::read_cycle_settings(&cfg_);
  limits_ = fairshare::LimitTracker(std::move(table));
  if (!cfg_.get("UID_DOMAIN", &uid_domain_) || uid_domain_.empty()) uid_domain_ = "localhost";
  cfg_text_ = cfg_text;
  std::string v, rank_expr = "0";
  if (cfg_.get("RANK", &v) && !v.empty()) rank_expr = v;
  // The startds evaluate their policy on their timers and when something happens to them; a
  // SUSPEND or PREEMPT policy may change its mind at any time, so then they look every cycle.
  for (const char* knob : kEachCycleKnobs) {
    config::Entry e;
    if (cfg_.lookup(knob, &e) && !e.is_default) evaluate_each_cycle_ = true;
  }
  // Running jobs can lose their slots only to priority preemption (PREEMPTION_REQUIREMENTS
  // not False) or to a machine RANK.
  bool preempt = false;
  config::Status pst = config::read_bool(cfg_, "PREEMPTION_REQUIREMENTS", &preempt);
  preemption_possible_ = !pst.ok || preempt || rank_expr != "0";
  return true;
}

int Sim::machine_index(const std::string& name) const {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto it = machine_by_name_.find(lower);
  return it == machine_by_name_.end() ? -1 : it->second;
}

int Sim::split_slot(const std::string& full, std::string* slot) const {
  const size_t at = full.find('@');
  if (at == std::string::npos) return -1;
  *slot = full.substr(0, at);
  return machine_index(full.substr(at + 1));
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
    if (changes_each_cycle(*base)) evaluate_each_cycle_ = true;
    if (base->lookup("Rank")) preemption_possible_ = true;
    m.nslots = st.count > 0 ? st.count : 1;
    std::string lower = n;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    machine_by_name_[lower] = static_cast<int>(machines_.size());
    machines_.push_back(std::move(m));
    if (!machine_up(static_cast<int>(machines_.size()) - 1, st.line)) return false;
  }
  return true;
}

// The startd configuration of machines like `m`: the scenario's settings, with the layout the
// machine line asks for (`nslots` static slots sharing everything evenly, or one partitionable
// slot) and the machine's CPUs and memory as detected. The simulated schedd never misses a
// keep-alive and the collector needs no periodic updates, so leases and ad updates are out of
// the way unless the scenario sets them.
const config::Config* Sim::machine_config(const Machine& m, int64_t cpus, int64_t mem,
                                          std::string* error) {
  const int64_t slots = m.partitionable ? 0 : m.nslots;
  const std::string key =
      std::to_string(slots) + "/" + std::to_string(cpus) + "/" + std::to_string(mem);
  auto it = machine_cfgs_.find(key);
  if (it != machine_cfgs_.end()) return it->second.get();
  std::string text = "ALIVE_INTERVAL = 100000000\nUPDATE_INTERVAL = 100000000\n" + cfg_text_ +
                     "\nNUM_SLOTS_TYPE_1 = " + (slots == 0 ? "1" : std::to_string(slots)) + "\n";
  text += slots == 0 ? "SLOT_TYPE_1 = 100%\nSLOT_TYPE_1_PARTITIONABLE = True\n"
                     : "SLOT_TYPE_1 = 1/" + std::to_string(slots) +
                           "\nSLOT_TYPE_1_PARTITIONABLE = False\n";
  auto cfg = std::make_unique<config::Config>("STARTD");
  cfg->set_detected("FULL_HOSTNAME", "localhost");
  cfg->set_detected("HOSTNAME", "localhost");
  for (const char* n : {"DETECTED_CPUS", "DETECTED_CORES", "DETECTED_PHYSICAL_CPUS"})
    cfg->set_detected(n, std::to_string(cpus));
  cfg->set_detected("DETECTED_MEMORY", std::to_string(mem));
  config::Status st = cfg->load_string(text, file_);
  if (st.ok) st = cfg->finish();
  if (!st.ok) {
    *error = st.message;
    return nullptr;
  }
  return machine_cfgs_.emplace(key, std::move(cfg)).first->second.get();
}

bool Sim::machine_up(int mi, int line) {
  Machine& m = machines_[mi];
  if (m.on) return true;
  const int64_t cpus = int_attr(*m.base, "Cpus", 1);
  const int64_t mem = int_attr(*m.base, "Memory", 1024);
  const int64_t disk = int_attr(*m.base, "Disk", kDefaultDiskKb);
  if (cpus < 1 || cpus > 1 << 20 || mem < 0 || disk < 0 || cpus < (m.partitionable ? 1 : m.nslots))
    return fail(line, "machine " + m.name + ": bad resources (at least one CPU per slot)");
  std::string error;
  const config::Config* cfg = machine_config(m, cpus, mem, &error);
  if (!cfg) return fail(line, "machine " + m.name + ": " + error);
  startd::MachineFacts facts;
  facts.cpus = static_cast<int>(cpus);
  facts.memory_mb = mem;
  facts.disk_kb = disk;
  facts.hostname = m.name;
  // The machine ad's policy attributes are its configuration; the others (but resources) are
  // the startd's inputs, in every slot's ad.
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string policy;
  split_attrs(*m.base, &policy, &inputs);
  inputs.erase(std::remove_if(inputs.begin(), inputs.end(),
                              [](const std::pair<std::string, std::string>& in) {
                                return iequal(in.first, "Cpus") || iequal(in.first, "Memory") ||
                                       iequal(in.first, "Disk");
                              }),
               inputs.end());
  m.cfg = std::make_unique<config::Config>(*cfg);
  if (!policy.empty()) {
    config::Status st = m.cfg->load_string(policy, file_);
    if (!st.ok) return fail(line, "machine " + m.name + ": " + st.message);
  }
  m.sm = std::make_unique<SimMachine>(*m.cfg, facts, clock_);
  if (!m.sm->init(inputs, &error)) {
    m.sm.reset();
    return fail(line, "machine " + m.name + ": " + error);
  }
  m.on = true;
  sync(mi);
  return true;
}

// The machine leaves: its jobs are Idle again at once, its claims are gone.
void Sim::machine_down(int mi) {
  Machine& m = machines_[mi];
  if (!m.on) return;
  for (SlotRec& r : m.recs) {
    if (r.job >= 0) evicted(r.job);
    if (r.pending >= 0) set_state(r.pending, JobState::kIdle);
  }
  m.recs.clear();
  m.sm.reset();
  m.cfg.reset();
  m.on = false;
  m.timer = INT64_MAX;
  note_machine(mi);
}

void Sim::note_machine(int mi) {
  Machine& m = machines_[mi];
  double all = 0, quota = 0;
  bool offers = false;
  if (m.on) {
    for (const SimSlot& s : m.sm->slots()) {
      if (!fetched(s)) continue;
      all += s.weight;
      if (!s.dynamic) quota += s.partitionable ? static_cast<double>(s.total_cpus) : s.weight;
      offers = offers || offered(s, m.recs.empty() ? nullptr : rec(mi, s.name), false);
    }
  }
  if (offers) {
    offering_.insert(mi);
  } else {
    offering_.erase(mi);
  }
  sums_exact_ = sums_exact_ && whole_number(all) && whole_number(quota);
  pool_all_ += all - m.weight_all;
  pool_quota_ += quota - m.weight_quota;
  m.weight_all = all;
  m.weight_quota = quota;
}

SlotRec* Sim::rec(int mi, const std::string& slot) {
  for (SlotRec& r : machines_[mi].recs)
    if (iequal(r.name, slot)) return &r;
  return nullptr;
}

// Brings the simulator's view of machine `mi` in line with its startd after something happened
// there: a job whose starter is gone was preempted (Idle again); a claim waiting for its slot
// runs its job once the slot is Claimed/Idle; records of claims that ended go.
void Sim::sync(int mi) {
  Machine& m = machines_[mi];
  for (size_t i = 0; i < m.recs.size(); ++i) {
    SlotRec& r = m.recs[i];
    const SimSlot* s = m.sm->find(r.name);
    if (r.job >= 0 && (!s || !s->running)) evicted(r.job);
    s = m.sm->find(r.name);
    if (r.pending >= 0 && r.job < 0 && s && s->partitionable) {
      // A claim waiting for the dynamic slots it preempts: once its own slot is carved, the
      // job waits there (a record visited later in this loop).
      std::string dslot;
      if (!m.sm->pslot_claim_done(r.name, &dslot)) continue;
      const int p = r.pending;
      r.pending = -1;
      if (dslot.empty()) {
        set_state(p, JobState::kIdle);
        continue;
      }
      SlotRec carved;
      carved.name = dslot;
      carved.pending = p;
      m.recs.push_back(std::move(carved));
      continue;
    }
    if (r.pending >= 0 && r.job < 0) {
      const int p = r.pending;
      if (s && s->state == startd::State::kClaimed && s->activity == startd::Activity::kIdle) {
        r.pending = -1;
        if (m.sm->activate(r.name, *jobs_[p].ad)) {
          r.claim_user = jobs_[p].principal;
          r.claim_start = now_;
          start_job(p, mi, r.name);
        } else {
          set_state(p, JobState::kIdle);
        }
      } else if (!s ||
                 (s->state != startd::State::kClaimed && s->state != startd::State::kPreempting)) {
        r.pending = -1;
        set_state(p, JobState::kIdle);
      }
    }
  }
  m.recs.erase(std::remove_if(m.recs.begin(), m.recs.end(),
                              [](const SlotRec& r) { return r.job < 0 && r.pending < 0; }),
               m.recs.end());
  note_machine(mi);
  int64_t t = m.sm->next_timer();
  if (t != INT64_MAX) t = std::max(t, now_ + 1);
  if (t == m.timer) return;  // its entry in timers_ still holds
  m.timer = t;
  if (t != INT64_MAX) timers_.push({t, mi});
}

// The earliest startd timer (stale entries dropped).
int64_t Sim::next_timer() {
  while (!timers_.empty()) {
    const Timer t = timers_.top();
    const Machine& m = machines_[t.second];
    if (m.on && m.timer == t.first) return t.first;
    timers_.pop();
  }
  return INT64_MAX;
}

void Sim::timers_due() {
  while (next_timer() <= now_) {
    const int mi = timers_.top().second;
    timers_.pop();
    machines_[mi].timer = INT64_MAX;
    machines_[mi].sm->evaluate();
    sync(mi);
  }
}

// The accountant learns a submitter's new usage at the current time.
void Sim::charge(const std::string& principal) {
  const auto& u = usage_[principal];
  acc_.set_usage(principal, u.first, u.second < 1e-9 ? 0 : u.second, now_);
  groups_stale_ = true;
}

void Sim::charge_groups() {
  if (!groups_stale_) return;
  groups_stale_ = false;
  auto group_fn = [](std::string_view submitter, const void* ctx) {
    auto& sim = *static_cast<Sim*>(const_cast<void*>(ctx));
    auto it = sim.group_of_.find(submitter);
    if (it == sim.group_of_.end()) {
      std::string_view user = submitter.substr(0, submitter.rfind('@'));
      it = sim.group_of_.emplace(submitter, fairshare::group_of(sim.groups_, user)).first;
    }
    return it->second;
  };
  acc_.set_group_usage(group_fn, this, now_);
}

std::vector<fairshare::LimitUse> Sim::limits_of(int j, ClassAd& slot) {
  std::vector<fairshare::LimitUse> uses;
  std::string error;
  if (!fairshare::job_limit_uses(*jobs_[j].ad, slot, &uses, &error)) uses.clear();
  return uses;
}

// Job j starts on the slot (its claim is active there).
void Sim::start_job(int j, int mi, const std::string& slot) {
  Job& job = jobs_[j];
  job.machine = mi;
  job.slot = slot;
  job.start = now_;
  SlotRec* r = rec(mi, slot);
  if (!r) {
    machines_[mi].recs.emplace_back();
    r = &machines_[mi].recs.back();
    r->name = slot;
  }
  r->job = j;
  const SimSlot* s = machines_[mi].sm->find(slot);
  job.weight = s ? s->weight : 1;
  job.limits = s ? limits_of(j, *s->ad) : std::vector<fairshare::LimitUse>{};
  limits_.acquire(job.limits);
  set_state(j, JobState::kRunning);
  charge(job.principal);
}

// Job j lost its slot (preempted, or the machine left): Idle again.
void Sim::evicted(int j) {
  Job& job = jobs_[j];
  if (SlotRec* r = job.machine >= 0 ? rec(job.machine, job.slot) : nullptr) r->job = -1;
  set_state(j, JobState::kIdle);
  job.machine = -1;
  limits_.release(job.limits);
  job.limits.clear();
  charge(job.principal);
}

bool Sim::can_run(int j, ClassAd& slot) {
  ClassAd& job = *jobs_[j].ad;
  classad::MatchPair pair(job, slot);
  if (!pair.symmetric()) return false;
  return limits_.fits(limits_of(j, slot));
}

// Job j ends by itself (its runtime is over, `exit`, or `remove` of a running job).
void Sim::stop_job(int j, JobState to, bool reuse) {
  Job& job = jobs_[j];
  const int mi = job.machine;
  const std::string slot = job.slot;
  Machine& m = machines_[mi];
  set_state(j, to);
  job.machine = -1;
  limits_.release(job.limits);
  job.limits.clear();
  SlotRec* r = rec(mi, slot);
  std::string claim_user = r ? r->claim_user : job.principal;
  const int64_t claim_start = r ? r->claim_start : job.start;
  if (r) r->job = -1;
  m.sm->job_exited(slot);
  // Claim reuse: the same submitter's next idle job the slot can run, in the schedd's order.
  bool reused = false;
  const SimSlot* s = m.sm->find(slot);
  if (reuse && s && now_ - claim_start < worklife_ && (!r || r->pending < 0) &&
      s->state == startd::State::kClaimed && s->activity == startd::Activity::kIdle) {
    IdleList& list = idle_[claim_user];
    for (size_t p = next_idle(list, list.head); p < list.order.size(); p = next_idle(list, p + 1)) {
      const int k = list.order[p].second;
      if (!can_run(k, *s->ad)) continue;
      if (m.sm->activate(slot, *jobs_[k].ad)) {
        start_job(k, mi, slot);
        reused = true;
      }
      break;
    }
  }
  if (!reused && (!r || r->pending < 0)) m.sm->release(slot);
  charge(job.principal);
  sync(mi);
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
  charge_groups();
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
      const int kind =
          kinds_.emplace(principal + "\n" + st.ad, static_cast<int>(kinds_.size())).first->second;
      // The job's own Requirements and the resource clause submit adds: parsed once and shared
      // by the batch's jobs, so the negotiator walks one tree per batch, not one per job.
      classad::ExprPtr req;
      if (st.count > 0) {
        std::string text =
            "TARGET.Cpus >= RequestCpus && TARGET.Memory >= RequestMemory && "
            "TARGET.Disk >= RequestDisk";
        if (const classad::Expr* own = user->lookup("Requirements")) {
          std::string user_req;
          classad::unparse_expr(user_req, own);
          text = "(" + user_req + ") && " + text;
        }
        classad::ParseError rpe;
        req = classad::parse_expr(text, &rpe);
        if (!req) return fail(st.line, "Requirements = " + text + ": " + rpe.to_string());
      }
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
        classad::expr_ref(req.get());
        ad.insert("Requirements", req.get());
        ad.share_layout();  // every job of a batch has one shape: one layout for all of them
        j.prio = int_attr(ad, "JobPrio", 0);
        j.request = static_cast<double>(int_attr(ad, "RequestCpus", 1));
        j.batch = st.line;
        j.kind = kind;
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
      for (const auto& [principal, list] : idle_)
        for (size_t p = next_idle(list, list.head); p < list.order.size();
             p = next_idle(list, p + 1))
          if (iequal(jobs_[list.order[p].second].submit, st.name))
            newest.push_back(list.order[p].second);
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
      // Policy attributes (START, RANK, ...) change the machine's configuration; resources
      // (Cpus, Memory, Disk) take effect when the machine next comes on; the rest are inputs.
      std::vector<std::pair<std::string, std::string>> inputs;
      std::string policy;
      split_attrs(*change, &policy, &inputs);
      if (change->lookup("Rank")) preemption_possible_ = true;
      if (changes_each_cycle(*change)) evaluate_each_cycle_ = true;
      for (const std::string& n : st.names) {
        const int mi = machine_index(n);
        Machine& m = machines_[mi];
        merge(*m.base, *change);
        if (!m.on) continue;
        std::string error;
        if (!policy.empty()) {
          config::Status cs = m.cfg->load_string(policy, file_);
          if (!cs.ok) return fail(st.line, "set: " + cs.message);
          if (!m.sm->reload_policy(&error)) return fail(st.line, "set: " + error);
        }
        if (!inputs.empty() && !m.sm->set_inputs(inputs, &error))
          return fail(st.line, "set: " + error);
        sync(mi);
      }
      return true;
    }
    case StepKind::kReschedule: reschedule_ = true; return true;
    default: return true;
  }
}

std::vector<fairshare::GroupQuota> Sim::quotas() {
  double pool = pool_quota_;
  if (!sums_exact_) {
    pool = 0;
    for (const Machine& m : machines_) {
      if (!m.on) continue;
      for (const SimSlot& s : m.sm->slots()) {
        if (s.dynamic || !fetched(s)) continue;
        pool += s.partitionable ? static_cast<double>(s.total_cpus) : s.weight;
      }
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
  charge_groups();
  acc_.update(now_);
  if (evaluate_each_cycle_) {
    for (size_t mi = 0; mi < machines_.size(); ++mi) {
      if (!machines_[mi].on) continue;
      machines_[mi].sm->evaluate();
      sync(static_cast<int>(mi));
    }
  }
  // No free slot and no way to preempt: nothing can match, and the negotiator is not asked.
  const bool any_free = preemption_possible_ || !offering_.empty();
  if (!any_free || idle_.empty()) {
    last_quotas_ = quotas();
    report_cycle(0, 0);
    return;
  }
  negotiator::CycleInput in;
  in.cfg = &cfg_;
  in.settings = settings_;
  in.match_cache = &match_cache_;
  in.now = now_;
  std::map<std::string, size_t> index;
  // Jobs of one kind (one submitter's, with the same ad, whatever `submit` made them) are
  // identical: no cycle can match more of them than there are slots it may take (free ones,
  // and running ones when preemption is possible), and once one fails the rest are skipped, so
  // at most that many are offered.
  size_t slot_count = 0;
  auto offer = [&](int mi) {
    const Machine& m = machines_[mi];
    for (const SimSlot& s : m.sm->slots()) {
      const SlotRec* r = m.recs.empty() ? nullptr : rec(mi, s.name);
      if (!offered(s, r, preemption_possible_) || !fetched(s)) continue;
      slot_count += s.partitionable ? static_cast<size_t>(std::max<int64_t>(1, s.cpus)) : 1;
      s.ad->ref();
      in.slots.push_back(AdPtr(s.ad));
    }
  };
  if (preemption_possible_) {  // running slots are offered too: every machine is looked at
    for (size_t mi = 0; mi < machines_.size(); ++mi)
      if (machines_[mi].on) offer(static_cast<int>(mi));
  } else {
    for (int mi : offering_) offer(mi);
  }
  in.pool_weight = pool_all_;
  if (!sums_exact_) {
    in.pool_weight = 0;
    for (const Machine& m : machines_) {
      if (!m.on) continue;
      for (const SimSlot& s : m.sm->slots())
        if (fetched(s)) in.pool_weight += s.weight;
    }
  }
  std::vector<size_t> offered_jobs(kinds_.size(), 0);  // kind -> jobs offered
  for (auto& [principal, list] : idle_) {
    size_t sub = SIZE_MAX;  // its entry in in.submitters (all of `list` are its jobs)
    list.head = next_idle(list, list.head);
    const auto& order = list.order;
    for (size_t next = list.head; next < order.size(); next = next_idle(list, next)) {
      const Job& j = jobs_[order[next].second];
      if (++offered_jobs[static_cast<size_t>(j.kind)] > slot_count + 1) {
        const std::pair<int64_t, int> after{order[next].first, j.batch_end};  // the batch's rest
        next =
            static_cast<size_t>(std::lower_bound(order.begin() + static_cast<std::ptrdiff_t>(next),
                                                 order.end(), after) -
                                order.begin());
        continue;
      }
      ++next;
      if (sub != SIZE_MAX) {
        j.ad->ref();
        in.submitters[sub].jobs.push_back({j.id, 0, AdPtr(j.ad.get())});
        continue;
      }
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
        s.usage += waiting_weight(j.principal);
        in.submitters.push_back(std::move(s));
      }
      sub = it->second;
      j.ad->ref();
      in.submitters[sub].jobs.push_back({j.id, 0, AdPtr(j.ad.get())});
    }
  }
  // Submitters with running jobs and none to match count in the pie too (pie_spin.cc says why).
  for (const auto& [principal, use] : usage_) {
    if ((use.first <= 0 && waiting_weight(principal) <= 0) || index.count(principal)) continue;
    index.emplace(principal, in.submitters.size());
    negotiator::Submitter s;
    s.name = principal;
    s.priority = acc_.effective_priority(principal);
    s.nice = accountant::is_nice_user(principal);
    s.usage = use.second;
    if (const accountant::Record* r = acc_.find(principal)) {
      s.usage = r->weighted_in_use;
      s.floor = r->floor;
      s.ceiling = r->ceiling;
    }
    s.usage += waiting_weight(principal);
    in.submitters.push_back(std::move(s));
  }
  for (const accountant::Record& r : acc_.records()) {
    if (!r.is_group && !index.count(r.name))
      in.other_users.push_back({r.name, acc_.effective_priority(r.name), r.weighted_in_use});
  }
  if (inexact_limits_ == 0) {  // whole units: their sums are what adding each up gives
    for (const auto& [name, units] : limit_sums_) in.limits_in_use.push_back({name, units});
  } else {
    for (int r : limited_) {  // (in job order, as running_ has them)
      const Job& j = jobs_[r];
      in.limits_in_use.insert(in.limits_in_use.end(), j.limits.begin(), j.limits.end());
    }
  }
  negotiator::CycleResult out = negotiator::negotiate(in);
  in.slots.clear();  // the ads are the startds': they change as the matches are claimed
  // Settings the negotiator could not read (named with their file and line): said once.
  for (const std::string& w : out.warnings) {
    if (warned_.insert(w).second) res_->output += file_ + ": warning: " + w + "\n";
  }
  int64_t preempted = 0;
  for (const negotiator::Match& m : out.matches) {
    std::string slot;
    const int mi = split_slot(m.slot, &slot);
    if (mi < 0 || !machines_[mi].on || m.cluster < 1 || m.cluster > (int32_t)jobs_.size()) continue;
    const int j = m.cluster - 1;
    if (jobs_[j].state != JobState::kIdle) continue;
    Machine& mach = machines_[mi];
    const SlotRec* before = rec(mi, slot);
    // A partitionable slot's match may preempt several of its dynamic slots (pslot preemption).
    int64_t victims = before && before->job >= 0 ? 1 : 0;
    for (const std::string& name : m.preempted_slots) {
      std::string dslot;
      const SlotRec* d = split_slot(name, &dslot) == mi ? rec(mi, dslot) : nullptr;
      if (d && d->job >= 0) ++victims;
    }
    // The schedd claims the slot; the startd decides (START, RANK, resources) and, for a
    // preemption, retires and vacates the running job first (for a partitionable slot, the
    // dynamic slots it preempts, then it carves the new claim's slot).
    bool waits = false;
    const bool by_priority =
        m.preempting && (m.reason == "priority" || (m.partitionable && !m.preempted_slots.empty()));
    const std::string claimed = mach.sm->claim(slot, *jobs_[j].ad, by_priority, &waits);
    if (claimed.empty()) {
      sync(mi);
      continue;
    }
    SlotRec* r = rec(mi, claimed);
    if (!r) {
      mach.recs.emplace_back();
      r = &mach.recs.back();
      r->name = claimed;
    }
    r->pending = j;
    set_state(j, JobState::kMatched);
    preempted += victims;
    sync(mi);
  }
  preemptions_ += preempted;
  last_quotas_ = quotas();
  report_cycle(out.matches.size(), preempted);
}

void Sim::report_cycle(size_t matches, int64_t preempted) {
  charge_groups();
  if (!res_->report_cycles) return;
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
  charge_groups();
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
    std::string slot;
    const int mi = split_slot(st.name, &slot);
    got_text = "none";
    if (mi < 0 || !machines_[mi].on || !machines_[mi].sm->find(slot)) {
      got_text = "no such slot";
    } else if (const SlotRec* r = rec(mi, slot); r && r->job >= 0) {
      got_text = jobs_[r->job].submit;
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
    clock_.set(now_);
    // 1. Jobs whose runtime ends now exit, with claim reuse (earliest start first); then the
    // startds' timers due now (retirement and vacate ends) fire.
    while (next_end() <= now_) {
      const int due = ends_.top().second;
      ends_.pop();
      stop_job(due, JobState::kGone, true);
    }
    timers_due();
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
    t = std::min(t, next_timer());
    charge_groups();
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
  const bool report_cycles = res->report_cycles;
  *res = PoolResult{};
  res->report_cycles = report_cycles;
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
