// The startd core's public face (see startd.h): building the slots, inputs and facts, slot
// views, the next timer, and dispatching events to the engine (engine.h and its files).
#include "policy/startd/startd.h"
#include "policy/startd/engine.h"
#include "policy/startd/text_util.h"

#include <strings.h>

#include <algorithm>

#include "policy/classad/parser.h"
#include "policy/config/typed.h"

namespace kite::startd {

Startd::Startd(const config::Config& cfg, const MachineFacts& facts, const Clock& clock)
    : cfg_(cfg), facts_(facts), clock_(clock) {
  eval_env_.now_fn = [](const void* c) { return static_cast<const Clock*>(c)->now(); };
  eval_env_.clock = &clock_;
}

Startd::~Startd() = default;

void Startd::read_claim_lease() {
  int64_t n;
  claim_alive_ = cfg_int(cfg_, "ALIVE_INTERVAL", &n) && n > 0 ? n : 300;
  claim_missed_ = cfg_int(cfg_, "MAX_CLAIM_ALIVES_MISSED", &n) && n > 0 ? n : 6;
}

bool Startd::init(std::string* err) {
  int64_t n;
  read_claim_lease();
  if (cfg_int(cfg_, "POLLING_INTERVAL", &n) && n > 0) polling_interval_ = n;
  if (cfg_int(cfg_, "UPDATE_INTERVAL", &n) && n > 0) update_interval_ = n;
  std::string sa;
  if (cfg_.get("STARTD_SLOT_ATTRS", &sa)) slot_attrs_ = split_list(sa);
  if (cfg_.get("STARTD_VM_ATTRS", &sa)) {
    for (auto& x : split_list(sa)) slot_attrs_.push_back(x);
  }
  if (cfg_.get("STARTD_LATCH_EXPRS", &sa)) latch_exprs_ = split_list(sa);
  // HTCONDOR: startd STARTD_JOB_ATTRS: "By default, the job ClassAd attributes JobUniverse,
  // NiceUser, ExecutableSize and ImageSize are advertised into the machine ClassAd" (the
  // param table's own value is empty: the list adds to these); GlobalJobId as observed.
  job_attrs_ = {"JobUniverse", "NiceUser", "ExecutableSize", "ImageSize", "GlobalJobId"};
  if (cfg_.get("STARTD_JOB_ATTRS", &sa)) {
    for (auto& x : split_list(sa)) job_attrs_.push_back(x);
  }
  config::Status st = config::read_bool(cfg_, "ADVERTISE_PSLOT_ROLLUP_INFORMATION", &pslot_rollup_);
  if (st.ok) st = config::read_bool(cfg_, "ENABLE_BACKFILL", &enable_backfill_);
  if (!st.ok) {
    *err = st.message;
    return false;
  }
  if (cfg_.get("STARTD_PARTITIONABLE_SLOT_ATTRS", &sa)) rollup_attrs_ = split_list(sa);
  if (!layout_build(cfg_, facts_, &layout_, err)) return false;
  start_time_ = acct_time_ = last_claim_time_ = clock_.now();
  // HTCONDOR: startd UPDATE_OFFSET: "the first update will be sent after $(UPDATE_OFFSET)
  // seconds, and the second update will be sent after $(UPDATE_OFFSET) + $(UPDATE_INTERVAL)".
  int64_t offset = 0;
  if (cfg_int(cfg_, "UPDATE_OFFSET", &n) && n > 0) offset = n;
  next_update_ = start_time_ + offset;
  if (cfg_int(cfg_, "STARTD_NOCLAIM_SHUTDOWN", &n) && n > 0) noclaim_shutdown_ = n;
  // HTCONDOR: startd HIBERNATE_CHECK_INTERVAL: "The default value is 0, which disables the
  // check."
  if (cfg_int(cfg_, "HIBERNATE_CHECK_INTERVAL", &n) && n > 0) hibernate_interval_ = n;
  next_hibernate_ = start_time_ + hibernate_interval_;
  Output scratch;
  Engine eng{*this, &scratch, clock_.now()};
  for (const SlotSpec& spec : layout_.slots) {
    auto s = std::make_unique<SlotImpl>();
    s->id = spec.id;
    s->type_id = spec.type_id;
    s->partitionable = spec.partitionable;
    s->name = "slot" + std::to_string(spec.id);
    s->res = spec.res;
    s->total = spec.res;
    s->entered_state = s->entered_activity = clock_.now();
    std::string e;
    if (!load_policy(cfg_, s->id, s->type_id, &s->pol, &e)) {
      *err = s->name + ": " + e;
      return false;
    }
    bool ok = true;
    build_static_ad(*this, cfg_, facts_, *s, clock_.now(), err, &ok);
    if (!ok) return false;
    int64_t tc = 0;
    for (const SlotSpec& x : layout_.slots) tc += x.res.cpus;
    s->ad->insert_value("TotalCpus", Value::integer(tc));
    int64_t tm = 0;
    for (const SlotSpec& x : layout_.slots) tm += x.res.memory_mb;
    s->ad->insert_value("TotalMemory", Value::integer(tm));
    s->ad->insert_value("TotalSlots", Value::integer(static_cast<int64_t>(layout_.slots.size())));
    publish_consumption(cfg_, layout_, *s);
    eng.insert_policy(*s);
    eng.refresh(*s);
    eng.publish_pair_times(*s, s->state, s->activity, s->entered_activity);
    slots_.push_back(std::move(s));
  }
  eng.refresh_cross();
  return true;
}

bool Startd::reload_policy(std::string* err) {
  std::vector<Policy> fresh(slots_.size());
  for (size_t i = 0; i < slots_.size(); ++i) {
    std::string e;
    if (!load_policy(cfg_, slots_[i]->id, slots_[i]->type_id, &fresh[i], &e)) {
      *err = slots_[i]->name + ": " + e;
      return false;
    }
  }
  read_claim_lease();
  Output scratch;
  Engine eng{*this, &scratch, clock_.now()};
  for (size_t i = 0; i < slots_.size(); ++i) {
    slots_[i]->pol = std::move(fresh[i]);
    eng.insert_policy(*slots_[i]);
    eng.refresh(*slots_[i]);
  }
  eng.refresh_cross();
  return true;
}

bool Startd::set_inputs(const std::string& slot,
                        const std::vector<std::pair<std::string, std::string>>& assignments,
                        std::string* err) {
  std::vector<std::pair<std::string, ExprPtr>> parsed;
  for (auto& [name, text] : assignments) {
    classad::ParseError pe;
    ExprPtr e = classad::parse_expr(text, &pe);
    if (!e) {
      *err = name + "=" + text + ": " + pe.to_string();
      return false;
    }
    parsed.emplace_back(name, std::move(e));
  }
  auto apply_to = [&](SlotImpl& s) {
    for (auto& [name, e] : parsed) {
      classad::expr_ref(e.get());
      s.ad->insert(name, e.get());
    }
  };
  // Inputs set again replace the earlier value (startd cron sets the same ones every period).
  auto remember = [&](std::vector<std::pair<std::string, std::string>>* kept) {
    for (auto& a : assignments) {
      bool found = false;
      for (auto& m : *kept) {
        if (strcasecmp(m.first.c_str(), a.first.c_str()) == 0) {
          m.second = a.second;
          found = true;
        }
      }
      if (!found) kept->push_back(a);
    }
  };
  if (slot.empty()) {
    remember(&machine_inputs_);
    for (auto& s : slots_) apply_to(*s);
    return true;
  }
  for (auto& s : slots_) {
    if (s->name == slot) {
      remember(&s->inputs);
      apply_to(*s);
      // A partitionable slot's inputs also reach its dynamic slots.
      for (auto& d : slots_) {
        if (d->parent == s.get()) apply_to(*d);
      }
      return true;
    }
  }
  *err = "no slot named '" + slot + "'";
  return false;
}

// Reading a slot's ad is publishing it: the machine-wide attributes HTCondor computes when it
// publishes (job statistics, ExpectedMachine*Draining*) are brought up to date here.
std::vector<SlotView> Startd::slots() const {
  std::vector<SlotView> v;
  Output scratch;
  Engine eng{const_cast<Startd&>(*this), &scratch, clock_.now()};
  for (auto& s : slots_) {
    if (s->dead) continue;
    eng.publish_on_read(*s);
    SlotView x;
    x.name = s->name;
    x.state = s->state;
    x.activity = s->activity;
    x.dynamic = s->dynamic;
    x.partitionable = s->partitionable;
    x.starter_running = s->has_job && s->job.starter_running;
    x.starter_cleaning = s->starter_cleaning;
    x.job_ignores_softkill = s->flag_ignores_softkill;
    x.starter_stuck = s->flag_stuck;
    x.ad = s->ad.get();
    v.push_back(x);
  }
  return v;
}

bool Startd::slot(const std::string& name, SlotView* out) const {
  for (auto& s : slots_) {
    if (s->dead || strcasecmp(s->name.c_str(), name.c_str()) != 0) continue;
    Output scratch;
    Engine eng{const_cast<Startd&>(*this), &scratch, clock_.now()};
    eng.publish_on_read(*s);
    out->name = s->name;
    out->state = s->state;
    out->activity = s->activity;
    out->dynamic = s->dynamic;
    out->partitionable = s->partitionable;
    out->starter_running = s->has_job && s->job.starter_running;
    out->starter_cleaning = s->starter_cleaning;
    out->job_ignores_softkill = s->flag_ignores_softkill;
    out->starter_stuck = s->flag_stuck;
    out->ad = s->ad.get();
    return true;
  }
  return false;
}

bool Startd::set_job_flags(const std::string& slot, bool ignores_softkill, bool stuck,
                           std::string* err) {
  for (auto& s : slots_) {
    if (!s->dead && strcasecmp(s->name.c_str(), slot.c_str()) == 0) {
      if (s->partitionable) {
        // The newest dynamic slot of a partitionable slot (its job), else the pslot for the next.
        SlotImpl* pick = nullptr;
        for (auto& d : slots_) {
          if (!d->dead && d->parent == s.get() && d->has_claim) pick = d.get();
        }
        if (pick) {
          if (ignores_softkill) pick->flag_ignores_softkill = true;
          if (stuck) pick->flag_stuck = true;
          return true;
        }
      }
      if (ignores_softkill) s->flag_ignores_softkill = true;
      if (stuck) s->flag_stuck = true;
      return true;
    }
  }
  *err = "no slot named '" + slot + "'";
  return false;
}

// HTCONDOR: ep-policy "Load Average for Multi-core Machines"; startd
// SLOTS_CONNECTED_TO_KEYBOARD, SLOTS_CONNECTED_TO_CONSOLE, DISCONNECTED_KEYBOARD_IDLE_BOOST.
void Startd::update_facts(const MachineFacts& f) {
  facts_.load_avg = f.load_avg;
  facts_.keyboard_idle = f.keyboard_idle;
  facts_.console_idle = f.console_idle;
  // Benchmarks (measured by the caller) arrive with the samples; 0 = not measured.
  if (f.mips > 0) facts_.mips = f.mips;
  if (f.kflops > 0) facts_.kflops = f.kflops;
  int64_t kb = 0, con = 0, boost = 1200, n;
  if (cfg_int(cfg_, "SLOTS_CONNECTED_TO_KEYBOARD", &n)) kb = n;
  if (cfg_int(cfg_, "SLOTS_CONNECTED_TO_CONSOLE", &n)) con = n;
  if (cfg_int(cfg_, "DISCONNECTED_KEYBOARD_IDLE_BOOST", &n)) boost = n;
  int64_t disconnected = clock_.now() - start_time_ + boost;
  double owner_load = f.load_avg;
  std::vector<double> load(slots_.size(), 0);
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i]->dead || (pass == 0) != (slots_[i]->state == State::kOwner)) continue;
      double give = owner_load < 1.0 ? owner_load : 1.0;
      load[i] = give;
      owner_load -= give;
    }
  }
  if (owner_load > 0 && !slots_.empty()) load[0] += owner_load;
  for (size_t i = 0; i < slots_.size(); ++i) {
    SlotImpl& s = *slots_[i];
    if (s.dead) continue;
    int64_t console = s.id <= con ? f.console_idle : disconnected;
    int64_t keyboard = s.id <= kb ? std::min(f.keyboard_idle, console) : console;
    if (s.id > kb && s.id > con) keyboard = disconnected;
    s.ad->insert_value("KeyboardIdle", Value::integer(keyboard));
    s.ad->insert_value("ConsoleIdle", Value::integer(console));
    s.ad->insert_value("LoadAvg", Value::real(load[i]));
    s.ad->insert_value("TotalLoadAvg", Value::real(f.load_avg));
    s.ad->insert_value("Mips", Value::integer(static_cast<int64_t>(facts_.mips)));
    s.ad->insert_value("KFlops", Value::integer(static_cast<int64_t>(facts_.kflops)));
  }
}

void Startd::evaluate(Output* out) {
  Engine eng{*this, out, clock_.now()};
  eng.evaluate_all();
}

int64_t Startd::next_timer() const {
  if (shut_down_) return kNever;
  int64_t t = kNever;
  auto take = [&](int64_t x) {
    if (x < t) t = x;
  };
  take(next_update_);
  if (noclaim_shutdown_ > 0 && !shutting_down_) take(last_claim_time_ + noclaim_shutdown_);
  if (hibernate_interval_ > 0 && !shutting_down_) take(next_hibernate_);
  Output scratch;
  Engine eng{const_cast<Startd&>(*this), &scratch, clock_.now()};
  take(eng.next_fetch_time());
  for (auto& p : slots_) {
    SlotImpl& s = *p;
    if (s.dead) continue;
    if (s.state == State::kMatched) take(s.match_deadline);
    if (s.activity == Activity::kBenchmarking) take(s.benchmark_end);
    if (s.state == State::kPreempting && s.activity == Activity::kVacating) take(s.vacate_deadline);
    if (s.state == State::kPreempting && s.activity == Activity::kKilling && starter_alive(s) &&
        !s.job.starter_sigkilled)
      take(s.kill_deadline);
    if (s.has_claim && s.state == State::kClaimed) {
      take(s.claim.lease_expires);
      // (A work life of 0 ends an idle claim as soon as it is idle: no timer needed.)
      if (s.activity == Activity::kIdle && s.claim.activations > 0 && s.pol.claim_worklife > 0)
        take(s.claim.start + s.pol.claim_worklife + 1);
      if (s.retire != Retire::kNone && s.has_job &&
          (s.activity == Activity::kRetiring || s.activity == Activity::kSuspended)) {
        int64_t end = eng.retirement_end(s);
        if (end != kNever && s.activity == Activity::kRetiring) {
          int64_t due = end - eng.softkill_lead(s);
          take(due > eng.now ? due : eng.now);
        }
      }
    }
  }
  return t;
}

bool Startd::handle(const Event& ev, Output* out, std::string* err) {
  Engine eng{*this, out, clock_.now(), &ev};
  if (shut_down_) {
    if (!slots_.empty()) eng.act(*slots_[0], ActionKind::kRefuse, "startd has shut down");
    return true;
  }
  if (ev.kind == EventKind::kDrain && !draining_) {
    // HTCONDOR: condor_drain -start: the START expression while draining, in place of
    // DEFAULT_DRAINING_START_EXPR; refused before anything changes when it does not parse.
    classad::ExprPtr start;
    if (!ev.drain_start.empty()) {
      classad::ParseError pe;
      start = classad::parse_expr(ev.drain_start, &pe);
      if (!start) {
        *err = "-start " + ev.drain_start + ": " + pe.to_string();
        return false;
      }
    }
    drain_start_expr_ = std::move(start);
  }
  SlotImpl* s = nullptr;
  bool machine_wide = ev.kind == EventKind::kDrain || ev.kind == EventKind::kCancelDrain ||
                      ev.kind == EventKind::kShutdown;
  if (!machine_wide) {
    s = eng.find_slot(ev.slot);
    if (!s) {
      *err = "no slot named '" + ev.slot + "'";
      return false;
    }
    // Job-level events naming a partitionable slot go to its newest dynamic slot with a claim
    // (with a running starter if there is one): the pslot itself never runs a job.
    bool cleaned = ev.kind == EventKind::kStarterCleaned;
    bool job_event = ev.kind == EventKind::kStarterExited || ev.kind == EventKind::kDeactivate ||
                     ev.kind == EventKind::kJobExited || cleaned || ev.kind == EventKind::kAlive ||
                     ev.kind == EventKind::kLeaseExpired || ev.kind == EventKind::kWithdraw;
    if (s->partitionable && job_event) {
      SlotImpl* pick = nullptr;
      for (auto& d : slots_) {
        if (d->dead || d->parent != s || !d->has_claim) continue;
        // starter-cleaned wants the slot whose starter is cleaning up; the others a running job.
        auto wanted = [cleaned](const SlotImpl* x) {
          return cleaned ? x->starter_cleaning : x->has_job && x->job.starter_running;
        };
        if (!pick || wanted(d.get()) || !wanted(pick)) pick = d.get();
      }
      if (pick) s = pick;
    }
  }
  eng.accounting();
  switch (ev.kind) {
    case EventKind::kMatch: eng.on_match(*s, ev.ad); break;
    case EventKind::kClaim: eng.claim_request(*s, ev.ad, ev.priority_preemption); break;
    case EventKind::kActivate: eng.on_activate(*s, ev.ad); break;
    case EventKind::kDeactivate:
    case EventKind::kStarterExited:
    case EventKind::kJobExited:
    case EventKind::kStarterCleaned:
    case EventKind::kBackfillExited:
    case EventKind::kAlive:
    case EventKind::kLeaseExpired:
    case EventKind::kWithdraw: eng.on_job_event(*s, ev); break;
    case EventKind::kRelease:
    case EventKind::kVacate:
    case EventKind::kVacateFast: eng.on_release(*s, ev.kind); break;
    case EventKind::kDrain: eng.on_drain(ev); break;
    case EventKind::kCancelDrain: eng.on_cancel_drain(); break;
    case EventKind::kShutdown: eng.on_shutdown(ev); break;
    case EventKind::kFetchedWork: eng.on_fetched(*s, ev.ad); break;
  }
  // Draining is machine-wide: one slot's move can finish the drain (33) or end the admission
  // of jobs under the draining START expression for the others.
  if (draining_) {
    eng.drain_evict_admitted();
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (!slots_[i]->dead) eng.settle(*slots_[i]);
    }
    eng.finalize_drain();
  }
  eng.check_shutdown_done();
  eng.pslot_claims();
  eng.fetch_due();
  eng.compact();
  return true;
}

}  // namespace kite::startd
