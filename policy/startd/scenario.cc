// The scenario runner behind `kite policy simulate` (see scenario.h): parse, then drive the
// startd core through time like the daemon would, simulating the jobs' and backfill's reactions.
#include "policy/startd/scenario.h"

#include <strings.h>

#include <algorithm>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "policy/classad/eval.h"
#include "policy/classad/parser.h"
#include "policy/classad/unparse.h"
#include "policy/config/config.h"
#include "policy/config/typed.h"
#include "policy/startd/scenario_steps.h"
#include "policy/startd/startd.h"

namespace kite::startd {

namespace {

using namespace scenario_detail;
using classad::AdPtr;

class Runner {
 public:
  Runner(Startd& sd, VirtualClock& clock, int64_t origin, ScenarioResult* r)
      : sd_(sd), clock_(clock), origin_(origin), r_(r) {}

  void line(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    r_->output += buf;
    r_->output += '\n';
  }

  int64_t rel() const { return clock_.now() - origin_; }

  // Prints the output and lets the simulated world react to the actions, until quiet.
  void drain_output(Output& out) {
    size_t oi = 0;
    while (oi < out.order.size()) {
      int k = out.order[oi++];
      if (k >= 0) {
        const TransitionRecord& t = out.transitions[k];
        if (t.number > 0) {
          line("t=%lld %s %s/%s -> %s/%s (%s) [%d]", static_cast<long long>(t.time - origin_),
               t.slot.c_str(), state_name(t.from_state), activity_name(t.from_activity),
               state_name(t.to_state), activity_name(t.to_activity), t.cause.c_str(), t.number);
        } else {
          line("t=%lld %s %s/%s -> %s/%s (%s)", static_cast<long long>(t.time - origin_),
               t.slot.c_str(), state_name(t.from_state), activity_name(t.from_activity),
               state_name(t.to_state), activity_name(t.to_activity), t.cause.c_str());
        }
        continue;
      }
      const Action& a = out.actions[~k];
      if (keep_actions_) log_.push_back(a);
      if (a.kind != ActionKind::kPublishAds) {
        line("t=%lld %s action %s%s%s", static_cast<long long>(a.time - origin_), a.slot.c_str(),
             action_name(a.kind), a.detail.empty() ? "" : " ", a.detail.c_str());
      }
      // The simulated world.
      SlotView v;
      bool have = sd_.slot(a.slot, &v);
      Event ev;
      ev.slot = a.slot;
      std::string err;
      switch (a.kind) {
        case ActionKind::kHoldJob:
          // The starter puts the job on hold and stops it: softly ("soft ...") like a soft
          // kill, else like a hard kill.
          if (have && v.starter_running &&
              (a.detail.compare(0, 4, "soft") == 0 ? !v.job_ignores_softkill : !v.starter_stuck)) {
            ev.kind = EventKind::kStarterExited;
            sd_.handle(ev, &out, &err);
          }
          break;
        case ActionKind::kSoftKill:
          if (have && v.starter_running && !v.job_ignores_softkill) {
            ev.kind = EventKind::kStarterExited;
            sd_.handle(ev, &out, &err);
          }
          break;
        case ActionKind::kHardKill:
          if (have && v.starter_running && !v.starter_stuck) {
            ev.kind = EventKind::kStarterExited;
            sd_.handle(ev, &out, &err);
          }
          break;
        case ActionKind::kKillStarter:
          if (have && (v.starter_running || v.starter_cleaning)) {
            ev.kind = EventKind::kStarterExited;
            sd_.handle(ev, &out, &err);
          }
          break;
        case ActionKind::kKillBackfill:
          if (have) {
            ev.kind = EventKind::kBackfillExited;
            sd_.handle(ev, &out, &err);
          }
          break;
        case ActionKind::kHibernate: {
          // The machine sleeps and is woken at once (the simulated world has no rooster).
          int level = 0;
          for (int l = 1; l <= 5; ++l)
            if (a.detail == hibernate_level_name(l)) level = l;
          sd_.resumed_from_sleep(level);
          break;
        }
        default: break;
      }
    }
  }

  void evaluate() {
    Output out;
    sd_.evaluate(&out);
    drain_output(out);
  }

  // Advances the clock to `target` (absolute), stopping at every poll and timer on the way
  // and at `target` itself.
  void advance_to(int64_t target) {
    int64_t poll = sd_.polling_interval();
    while (true) {
      int64_t now = clock_.now();
      int64_t r = now - origin_;
      int64_t next_poll = origin_ + (r / poll + 1) * poll;
      int64_t next = next_poll;
      int64_t timer = sd_.next_timer();
      if (timer != INT64_MAX && timer <= now) timer = now + 1;
      if (timer < next) next = timer;
      if (next > target) break;
      clock_.set(next);
      evaluate();
      if (sd_.shut_down()) break;
    }
    clock_.set(target);
  }

  bool run_step(const Step& st) {
    Output out;
    std::string err;
    Event ev;
    ev.slot = st.slot;
    ev.ad = st.ad.get();
    bool is_event = true;
    switch (st.cmd) {
      case Cmd::kSet:
        if (!sd_.set_inputs(st.slot, st.sets, &err)) {
          line("ERROR line %d: %s", st.line, err.c_str());
          r_->failed++;
        }
        return true;
      case Cmd::kMatch: ev.kind = EventKind::kMatch; break;
      case Cmd::kClaim:
        ev.kind = EventKind::kClaim;
        ev.priority_preemption = st.priority;
        break;
      case Cmd::kActivate: ev.kind = EventKind::kActivate; break;
      case Cmd::kDeactivate: ev.kind = EventKind::kDeactivate; break;
      case Cmd::kStarterExit:
      case Cmd::kJobExit:
        ev.kind = st.cmd == Cmd::kJobExit ? EventKind::kJobExited : EventKind::kStarterExited;
        ev.exit_code = st.code;
        break;
      case Cmd::kStarterCleaned: ev.kind = EventKind::kStarterCleaned; break;
      case Cmd::kRelease: ev.kind = EventKind::kRelease; break;
      case Cmd::kVacate: ev.kind = EventKind::kVacate; break;
      case Cmd::kVacateFast: ev.kind = EventKind::kVacateFast; break;
      case Cmd::kDrain:
        ev.kind = EventKind::kDrain;
        ev.drain = st.drain;
        ev.drain_resume = st.drain_resume;
        ev.drain_reason = st.drain_reason;
        break;
      case Cmd::kCancelDrain: ev.kind = EventKind::kCancelDrain; break;
      case Cmd::kWithdraw: ev.kind = EventKind::kWithdraw; break;
      case Cmd::kLeaseExpire: ev.kind = EventKind::kLeaseExpired; break;
      case Cmd::kAlive: ev.kind = EventKind::kAlive; break;
      case Cmd::kFetchWork: ev.kind = EventKind::kFetchedWork; break;
      case Cmd::kShutdown:
        ev.kind = EventKind::kShutdown;
        ev.shutdown = st.shutdown;
        break;
      case Cmd::kIgnoresSoftkill:
      case Cmd::kStarterStuck:
        is_event = false;
        if (!sd_.set_job_flags(st.slot, st.cmd == Cmd::kIgnoresSoftkill,
                               st.cmd == Cmd::kStarterStuck, &err)) {
          line("ERROR line %d: %s", st.line, err.c_str());
          r_->failed++;
        }
        break;
      case Cmd::kExpect:
      case Cmd::kExpectAttr:
      case Cmd::kExpectAction:
      case Cmd::kExpectNoAction:
      case Cmd::kExpectTotals: return true;  // checked after the evaluation
    }
    if (!is_event) return true;
    line("t=%lld > %s", static_cast<long long>(rel()), st.text.c_str());
    if ((st.cmd == Cmd::kVacate || st.cmd == Cmd::kVacateFast) && st.slot.empty()) {
      for (const SlotView& v : sd_.slots()) {
        if (v.dynamic) continue;
        ev.slot = v.name;
        sd_.handle(ev, &out, &err);
      }
    } else if (!sd_.handle(ev, &out, &err)) {
      line("ERROR line %d: %s: %s", st.line, st.text.c_str(), err.c_str());
      r_->failed++;
    }
    drain_output(out);
    return true;
  }

  // expect-totals: the slots' resources add up to the machine.
  void check_totals(const Step& st) {
    std::string report;
    if (sd_.resources_balance(&report)) {
      r_->passed++;
      return;
    }
    r_->failed++;
    line("FAIL line %d: t=%lld %s: %s", st.line, static_cast<long long>(rel()), st.text.c_str(),
         report.c_str());
  }

  // expect-action / expect-no-action: an action of that name on the slot (or, for a
  // partitionable slot, on one of its dynamic slots) whose detail contains the text, at a time
  // after the previous step's time and up to now.
  void check_action(const Step& st, int64_t since) {
    bool found = false;
    std::string pslot = st.slot + "_";
    for (const Action& a : log_) {
      if (a.time <= since || a.time > clock_.now()) continue;
      if (strcasecmp(action_name(a.kind), st.action.c_str()) != 0) continue;
      if (strcasecmp(a.slot.c_str(), st.slot.c_str()) != 0 &&
          strncasecmp(a.slot.c_str(), pslot.c_str(), pslot.size()) != 0)
        continue;
      if (!st.action_text.empty() && !contains_nocase(a.detail, st.action_text)) continue;
      found = true;
      break;
    }
    bool ok = st.cmd == Cmd::kExpectAction ? found : !found;
    if (ok) {
      r_->passed++;
      return;
    }
    r_->failed++;
    line("FAIL line %d: t=%lld %s: %s", st.line, static_cast<long long>(rel()), st.text.c_str(),
         found ? "there was such an action" : "no such action");
  }

  // Forgets the actions no later expectation can look at.
  void trim_log(int64_t before) {
    size_t k = 0;
    while (k < log_.size() && log_[k].time <= before) ++k;
    log_.erase(log_.begin(), log_.begin() + static_cast<long>(k));
  }

  void keep_actions() { keep_actions_ = true; }

  void check(const Step& st) {
    SlotView v;
    bool have = sd_.slot(st.slot, &v);
    long long t = static_cast<long long>(rel());
    if (st.cmd == Cmd::kExpect) {
      bool ok;
      std::string got;
      if (strcasecmp(st.state_text.c_str(), "absent") == 0) {
        ok = !have;
        got = have ? std::string(state_name(v.state)) + "/" + activity_name(v.activity) : "absent";
      } else if (!have) {
        ok = false;
        got = "absent (no such slot)";
      } else {
        got = std::string(state_name(v.state)) + "/" + activity_name(v.activity);
        size_t slash = st.state_text.find('/');
        if (slash == std::string::npos) {
          ok = strcasecmp(st.state_text.c_str(), state_name(v.state)) == 0;
        } else {
          ok = strcasecmp(st.state_text.c_str(), got.c_str()) == 0;
        }
      }
      if (ok) {
        r_->passed++;
      } else {
        r_->failed++;
        line("FAIL line %d: t=%lld expect %s %s: %s is %s", st.line, t, st.slot.c_str(),
             st.state_text.c_str(), st.slot.c_str(), got.c_str());
      }
      return;
    }
    if (!have) {
      r_->failed++;
      line("FAIL line %d: t=%lld %s: no slot named '%s'", st.line, t, st.text.c_str(),
           st.slot.c_str());
      return;
    }
    classad::Value val = v.ad->evaluate_expr(st.expr.get(), &sd_.eval_env());
    if (val.is_boolean() && val.as_boolean()) {
      r_->passed++;
      return;
    }
    r_->failed++;
    // Show the attributes the expression names, to say why.
    std::string why;
    std::string src = classad::to_string(st.expr.get());
    for (const auto& e : v.ad->sorted_entries()) {
      std::string n(e.name->view());
      size_t p = 0;
      bool named = false;
      while ((p = src.find(n, p)) != std::string::npos) {
        bool lb = p == 0 || !(isalnum(static_cast<unsigned char>(src[p - 1])) || src[p - 1] == '_');
        size_t q = p + n.size();
        bool rb =
            q >= src.size() || !(isalnum(static_cast<unsigned char>(src[q])) || src[q] == '_');
        if (lb && rb) {
          named = true;
          break;
        }
        p = q;
      }
      if (named) {
        why += " " + n + " = " + classad::to_string(v.ad->evaluate_attr(n, &sd_.eval_env())) + ";";
      }
    }
    line("FAIL line %d: t=%lld %s: got %s;%s", st.line, t, st.text.c_str(),
         classad::to_string(val).c_str(), why.c_str());
  }

 private:
  Startd& sd_;
  VirtualClock& clock_;
  int64_t origin_;
  ScenarioResult* r_;
  bool keep_actions_ = false;
  std::vector<Action> log_;  // actions, when some step expects them
};

}  // namespace

void scenario_run(std::string_view text, const std::string& name, ScenarioResult* res) {
  *res = ScenarioResult{};
  // Split at the `---` line.
  std::vector<std::string> lines;
  size_t p = 0;
  while (p <= text.size()) {
    size_t nl = text.find('\n', p);
    lines.emplace_back(
        text.substr(p, nl == std::string_view::npos ? std::string_view::npos : nl - p));
    if (nl == std::string_view::npos) break;
    p = nl + 1;
  }
  int sep = -1;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (trim(lines[i]) == "---") {
      sep = static_cast<int>(i);
      break;
    }
  }
  if (sep < 0) {
    res->error = true;
    res->output = name + ": no '---' line between the configuration and the steps\n";
    return;
  }
  std::string cfg_text;
  for (int i = 0; i < sep; ++i) cfg_text += lines[i] + "\n";
  std::vector<Step> steps;
  for (size_t i = sep + 1; i < lines.size(); ++i) {
    std::string l = trim(strip_comment(lines[i]));
    if (l.empty()) continue;
    Step st;
    std::string err;
    if (!parse_step(lines[i], static_cast<int>(i + 1), &st, &err)) {
      res->error = true;
      res->output += name + ": " + err + "\n";
      continue;
    }
    steps.push_back(std::move(st));
  }
  if (res->error) return;
  std::stable_sort(steps.begin(), steps.end(),
                   [](const Step& a, const Step& b) { return a.time < b.time; });

  // HTCONDOR: the simulated machine: 1 CPU, 1024 MB, 10 GiB disk, no swap unless configured.
  config::Config cfg;
  cfg.set_detected("DETECTED_CPUS", "1");
  cfg.set_detected("DETECTED_CORES", "1");
  cfg.set_detected("DETECTED_PHYSICAL_CPUS", "1");
  cfg.set_detected("DETECTED_MEMORY", "1024");
  cfg.set_detected("FULL_HOSTNAME", "localhost");
  cfg.set_detected("HOSTNAME", "localhost");
  cfg.set_detected("UID_DOMAIN", "localhost");
  cfg.set_detected("FILESYSTEM_DOMAIN", "localhost");
  config::Status st = cfg.load_string(cfg_text, name);
  if (st.ok) st = cfg.finish();
  if (!st.ok) {
    res->error = true;
    res->output = st.message + "\n";
    return;
  }
  MachineFacts facts;
  std::string v;
  int64_t cpus = 1;
  facts.memory_mb = 1024;
  st = config::read_int(cfg, "NUM_CPUS", &cpus, nullptr, 1, 1 << 20);
  if (st.ok) st = config::read_int(cfg, "MEMORY", &facts.memory_mb, nullptr, 0, INT64_MAX >> 20);
  if (!st.ok) {
    res->error = true;
    res->output = st.message + "\n";
    return;
  }
  facts.cpus = static_cast<int>(cpus);
  cfg.set_detected("DETECTED_CPUS", std::to_string(facts.cpus));
  cfg.set_detected("DETECTED_CORES", std::to_string(facts.cpus));
  cfg.set_detected("DETECTED_MEMORY", std::to_string(facts.memory_mb));
  if (cfg.get("FULL_HOSTNAME", &v) && !trim(v).empty()) facts.hostname = trim(v);
  int64_t origin = 0;
  if (cfg.get("SIMULATION_START", &v) && !trim(v).empty()) {
    if (!iso8601_parse(v, &origin)) {
      res->error = true;
      res->output = name + ": SIMULATION_START = " + v +
                    ": not an ISO 8601 UTC time (2024-01-01T00:00:00Z)\n";
      return;
    }
  }
  VirtualClock clock(origin);
  {
    Startd sd(cfg, facts, clock);
    std::string err;
    if (!sd.init(&err)) {
      res->error = true;
      res->output = name + ": " + err + "\n";
      return;
    }
    Runner run(sd, clock, origin, res);
    for (const Step& st : steps) {
      if (st.cmd == Cmd::kExpectAction || st.cmd == Cmd::kExpectNoAction) run.keep_actions();
    }
    // HTCONDOR: issue 5 "policy is evaluated once before the first step"
    run.evaluate();
    size_t i = 0;
    int64_t since = INT64_MIN;  // the previous step time (expect-action looks after it)
    while (i < steps.size()) {
      int64_t t = steps[i].time;
      run.advance_to(origin + t);
      size_t j = i;
      while (j < steps.size() && steps[j].time == t) run.run_step(steps[j++]);
      run.evaluate();
      for (size_t k = i; k < j; ++k) {
        if (steps[k].cmd == Cmd::kExpect || steps[k].cmd == Cmd::kExpectAttr) run.check(steps[k]);
        if (steps[k].cmd == Cmd::kExpectTotals) run.check_totals(steps[k]);
        if (steps[k].cmd == Cmd::kExpectAction || steps[k].cmd == Cmd::kExpectNoAction)
          run.check_action(steps[k], since);
      }
      since = origin + t;
      run.trim_log(since);
      i = j;
    }
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%d passed, %d failed\n", res->passed, res->failed);
  res->output += buf;
}

}  // namespace kite::startd
