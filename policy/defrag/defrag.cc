// The defrag's poll (see defrag.h): machines from the slot ads, the rate's credit, the caps,
// the rank order, and the Defrag ad.
#include "policy/defrag/defrag.h"

#include <strings.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "policy/classad/eval_env.h"
#include "policy/classad/parser.h"
#include "policy/config/typed.h"

namespace kite::defrag {
namespace {

// A number, or nothing (an undefined rank counts as the lowest).
bool number_of(const classad::Value& v, double* out) {
  return v.is_number() && v.to_number(*out) && std::isfinite(*out);
}

bool is_true(const classad::Value& v) {
  return v.is_boolean() && v.as_boolean();
}

int64_t clock_value(const void* clock) {
  return *static_cast<const int64_t*>(clock);
}

struct Machine {
  bool draining = false;
  std::string drain_reason;  // DrainReason of a draining machine ("": none given)
  bool whole_slot = false;   // a partitionable slot meets DEFRAG_WHOLE_MACHINE_EXPR
  bool cancel_slot = false;  // a partitionable slot meets DEFRAG_CANCEL_REQUIREMENTS
  bool whole = false;
  bool candidate = false;
  bool ranked = false;  // `rank` is a number
  double rank = 0;
  const classad::ClassAd* totals = nullptr;  // the ad whose draining totals count
};

// HTCONDOR: defrag.rst DEFRAG_DRAINING_MACHINES_PER_HOUR: "The lowest rate of draining that is
// supported is one machine per day ...  A fractional number of machines contributing to the
// value ... is rounded to the nearest whole number of machines on a per day basis."
double drains_per_hour(double asked) {
  if (asked <= 0) return 0;
  return std::max(1.0, std::round(asked * 24.0)) / 24.0;
}

}  // namespace

const char* schedule_name(Schedule s) {
  switch (s) {
    case Schedule::kGraceful: return "graceful";
    case Schedule::kQuick: return "quick";
    case Schedule::kFast: return "fast";
  }
  return "graceful";
}

bool wanted(const config::Config& cfg) {
  std::string v;
  if (cfg.get("DEFRAG_INTERVAL", &v) && !v.empty()) return true;
  if (!cfg.get("DAEMON_LIST", &v)) return false;
  for (const std::string& word : config::split_list(v))
    if (strcasecmp(word.c_str(), "DEFRAG") == 0) return true;
  return false;
}

bool read_config(const config::Config& cfg, DefragConfig* out, std::string* err) {
  config::Status st = config::read_int(cfg, "DEFRAG_INTERVAL", &out->interval, nullptr, 1);
  if (st.ok)
    st = config::read_int(cfg, "DEFRAG_UPDATE_INTERVAL", &out->update_interval, nullptr, 1);
  if (st.ok) st = config::read_real(cfg, "DEFRAG_DRAINING_MACHINES_PER_HOUR", &out->per_hour);
  if (st.ok && (out->per_hour < 0 || !std::isfinite(out->per_hour)))
    st = config::Status::Error("DEFRAG_DRAINING_MACHINES_PER_HOUR must be a number >= 0");
  if (st.ok)
    st = config::read_int(cfg, "DEFRAG_MAX_CONCURRENT_DRAINING", &out->max_concurrent, nullptr, -1);
  if (st.ok) st = config::read_int(cfg, "DEFRAG_MAX_WHOLE_MACHINES", &out->max_whole, nullptr, -1);
  if (st.ok) st = config::read_expr(cfg, "DEFRAG_REQUIREMENTS", nullptr, &out->requirements);
  if (st.ok)
    st = config::read_expr(cfg, "DEFRAG_WHOLE_MACHINE_EXPR", "Cpus == TotalSlotCpus",
                           &out->whole_machine);
  if (st.ok) st = config::read_expr(cfg, "DEFRAG_CANCEL_REQUIREMENTS", nullptr, &out->cancel);
  // "This defaults to $(DEFRAG_WHOLE_MACHINE_EXPR)."
  if (st.ok && !out->cancel && out->whole_machine) {
    classad::expr_ref(out->whole_machine.get());
    out->cancel = classad::ExprPtr(out->whole_machine.get());
  }
  if (st.ok)
    st =
        config::read_expr(cfg, "DEFRAG_RANK", "-ExpectedMachineGracefulDrainingBadput", &out->rank);
  if (!st.ok) {
    *err = st.message;
    return false;
  }
  std::string v;
  if (cfg.get("DEFRAG_SCHEDULE", &v) && !v.empty()) {
    if (strcasecmp(v.c_str(), "graceful") == 0) {
      out->schedule = Schedule::kGraceful;
    } else if (strcasecmp(v.c_str(), "quick") == 0) {
      out->schedule = Schedule::kQuick;
    } else if (strcasecmp(v.c_str(), "fast") == 0) {
      out->schedule = Schedule::kFast;
    } else {
      *err = "DEFRAG_SCHEDULE = " + v + ": not graceful, quick or fast";
      return false;
    }
  }
  classad::ExprPtr start;
  st = config::read_expr(cfg, "DEFRAG_DRAINING_START_EXPR", nullptr, &start);
  if (!st.ok) {
    *err = st.message;
    return false;
  }
  if (start && cfg.get("DEFRAG_DRAINING_START_EXPR", &v)) out->draining_start = v;
  if (cfg.get("DEFRAG_NAME", &v) && !v.empty()) out->name = v;
  return true;
}

Poll poll(const DefragConfig& cfg, const std::vector<classad::AdPtr>& slots, int64_t now,
          DefragState* state) {
  Poll p;
  int64_t clock = now;
  classad::EvalEnv env;
  env.now_fn = clock_value;
  env.clock = &clock;
  // HTCONDOR: defrag.rst DEFRAG_REQUIREMENTS "The condor_defrag daemon will always add the
  // following requirements".
  static const classad::Expr* always =
      classad::parse_expr("PartitionableSlot && Offline =!= true && Draining =!= true").release();
  std::map<std::string, Machine> machines;
  for (const classad::AdPtr& ad : slots) {
    std::string name;
    if (!ad->evaluate_string("Machine", name) || name.empty()) continue;
    Machine& m = machines[name];
    if (!m.totals) m.totals = ad.get();
    bool draining = false, offline = false, partitionable = false;
    ad->evaluate_bool("Draining", draining);
    ad->evaluate_bool("Offline", offline);
    ad->evaluate_bool("PartitionableSlot", partitionable);
    if (draining && !offline) {
      m.draining = true;
      std::string reason;
      if (ad->evaluate_string("DrainReason", reason) && !reason.empty()) m.drain_reason = reason;
    }
    // "A machine is matched if any Partitionable slot on the machine matches this expression."
    if (!partitionable) continue;
    if (cfg.whole_machine && is_true(ad->evaluate_expr(cfg.whole_machine.get(), &env)))
      m.whole_slot = true;
    if (cfg.cancel && is_true(ad->evaluate_expr(cfg.cancel.get(), &env))) m.cancel_slot = true;
    if (is_true(ad->evaluate_expr(always, &env)) &&
        (!cfg.requirements || is_true(ad->evaluate_expr(cfg.requirements.get(), &env)))) {
      m.candidate = true;
      double r = 0;
      if (cfg.rank && number_of(ad->evaluate_expr(cfg.rank.get(), &env), &r) &&
          (!m.ranked || r > m.rank)) {
        m.rank = r;
        m.ranked = true;
      }
    }
  }
  // "the machine is not draining or was drained by condor_defrag" (DEFRAG_WHOLE_MACHINE_EXPR);
  // a drain is the defrag's with no DrainReason, "Defrag", or one naming it
  // (DEFRAG_CANCEL_REQUIREMENTS).
  for (auto& [name, m] : machines) {
    const bool ours = m.drain_reason.empty() || m.drain_reason == "Defrag" ||
                      m.drain_reason.find(cfg.name) != std::string::npos;
    m.whole = m.whole_slot && (!m.draining || ours);
    if (m.draining && ours && m.cancel_slot) p.cancel.push_back(name);
  }

  // The pool's draining costs, over the CPU time the machines' daemons have been up.
  double badput = 0, unclaimed = 0, cpu_time = 0;
  std::vector<std::pair<std::string, const Machine*>> order;
  for (const auto& [name, m] : machines) {
    ++p.machines;
    if (m.whole) ++p.whole;
    if (m.draining) ++p.draining;
    if (m.candidate && !m.whole && !m.draining) order.emplace_back(name, &m);
    int64_t b = 0, u = 0, cpus = 0, started = now;
    m.totals->evaluate_int("TotalMachineDrainingBadput", b);
    m.totals->evaluate_int("TotalMachineDrainingUnclaimedTime", u);
    if (!m.totals->evaluate_int("TotalCpus", cpus) || cpus <= 0)
      m.totals->evaluate_int("TotalSlotCpus", cpus);
    m.totals->evaluate_int("DaemonStartTime", started);
    badput += static_cast<double>(b);
    unclaimed += static_cast<double>(u);
    cpu_time += static_cast<double>(std::max<int64_t>(cpus, 1)) *
                static_cast<double>(std::max<int64_t>(now - started, 1));
  }
  p.candidates = static_cast<int64_t>(order.size());
  p.avg_badput = badput / cpu_time;
  p.avg_unclaimed = unclaimed / cpu_time;
  if (cpu_time <= 0) p.avg_badput = p.avg_unclaimed = 0;
  state->whole_peak = std::max(state->whole_peak, p.whole);
  state->draining_peak = std::max(state->draining_peak, p.draining);

  // The rate's credit.
  int64_t elapsed = state->last_poll ? now - state->last_poll : cfg.interval;
  state->last_poll = now;
  const double per_hour = drains_per_hour(cfg.per_hour);
  double per_poll = per_hour * static_cast<double>(cfg.interval) / 3600.0;
  state->credit += per_hour * static_cast<double>(std::max<int64_t>(elapsed, 0)) / 3600.0;
  state->credit = std::min(state->credit, std::max(1.0, per_poll));
  int64_t n = static_cast<int64_t>(std::floor(state->credit + 1e-9));

  if (cfg.per_hour <= 0) {
    p.why_none = "DEFRAG_DRAINING_MACHINES_PER_HOUR is 0";
    return p;
  }
  if (cfg.max_whole >= 0 && p.whole >= cfg.max_whole) {
    p.why_none = "whole machines (" + std::to_string(p.whole) + ") >= DEFRAG_MAX_WHOLE_MACHINES";
    return p;
  }
  if (cfg.max_concurrent >= 0 && p.draining >= cfg.max_concurrent) {
    p.why_none =
        "draining machines (" + std::to_string(p.draining) + ") >= DEFRAG_MAX_CONCURRENT_DRAINING";
    return p;
  }
  if (cfg.max_concurrent >= 0) n = std::min(n, cfg.max_concurrent - p.draining);
  if (cfg.max_whole >= 0) n = std::min(n, cfg.max_whole - p.whole - p.draining);
  if (n <= 0) {
    p.why_none = "the rate allows no drain yet";
    return p;
  }
  if (order.empty()) {
    p.why_none = "no machine meets DEFRAG_REQUIREMENTS without being whole or draining";
    return p;
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.second->ranked != b.second->ranked) return a.second->ranked;
    if (a.second->ranked && a.second->rank != b.second->rank)
      return a.second->rank > b.second->rank;
    return a.first < b.first;
  });
  for (size_t i = 0; i < order.size() && static_cast<int64_t>(i) < n; ++i)
    p.drain.push_back(order[i].first);
  state->credit -= static_cast<double>(p.drain.size());
  state->drains += static_cast<int64_t>(p.drain.size());
  return p;
}

classad::AdPtr defrag_ad(const DefragConfig& cfg, const DefragState& state, const Poll& p,
                         int64_t now, int64_t daemon_start) {
  classad::AdPtr ad(classad::ClassAd::make());
  using classad::Value;
  ad->insert_value("MyType", Value::string("Defrag"));
  ad->insert_value("Name", Value::string(cfg.name));
  ad->insert_value("DaemonStartTime", Value::integer(daemon_start));
  ad->insert_value("LastPollTime", Value::integer(now));
  ad->insert_value("AvgDrainingBadput", Value::real(p.avg_badput));
  ad->insert_value("AvgDrainingUnclaimed", Value::real(p.avg_unclaimed));
  ad->insert_value("DrainedMachines", Value::integer(state.drains));
  ad->insert_value("DrainSuccesses", Value::integer(state.successes));
  ad->insert_value("DrainFailures", Value::integer(state.failures));
  ad->insert_value("MachinesDraining", Value::integer(p.draining));
  ad->insert_value("MachinesDrainingPeak", Value::integer(state.draining_peak));
  ad->insert_value("WholeMachines", Value::integer(p.whole));
  ad->insert_value("WholeMachinesPeak", Value::integer(state.whole_peak));
  ad->insert_value("DefragSchedule", Value::string(schedule_name(cfg.schedule)));
  return ad;
}

}  // namespace kite::defrag
