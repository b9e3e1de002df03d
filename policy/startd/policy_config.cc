// Reading a slot's policy from the configuration: START, IS_OWNER, RANK, the retirement and
// vacate expressions, SUSPEND/CONTINUE/PREEMPT/KILL/WANT_* with their _VANILLA variants and
// SLOT<N>_/SLOT_TYPE_<N>_ overrides, and the timeouts, with HTCondor's defaults.
#include "policy/startd/engine.h"
#include "policy/startd/text_util.h"

#include "policy/classad/parser.h"
#include "policy/config/typed.h"

namespace kite::startd {

bool cfg_int(const config::Config& cfg, const char* name, int64_t* out) {
  bool found = false;
  return config::read_int(cfg, name, out, &found).ok && found;
}

namespace {

// Parses the slot's value of `name` (SLOT<N>_/SLOT_TYPE_<N>_ overrides; `_VANILLA` when asked).
bool policy_expr(const config::Config& cfg, const char* name, bool vanilla, int slot, int type,
                 const char* dflt, ExprPtr* out, std::string* err) {
  config::Entry e;
  std::string text;
  bool found = vanilla ? cfg.lookup_vanilla(name, true, slot, type, &e)
                       : cfg.lookup_slot(name, slot, type, &e);
  if (found) {
    config::Status st;
    if (!cfg.get(e.name, &text, &st)) {
      *err = st.message.empty() ? std::string(name) + ": cannot expand" : st.message;
      return false;
    }
  } else if (dflt) {
    text = dflt;
  } else {
    *out = ExprPtr();
    return true;
  }
  text = trim(text);
  if (text.empty()) {
    if (!dflt) {
      *out = ExprPtr();
      return true;
    }
    text = dflt;
  }
  classad::ParseError pe;
  *out = classad::parse_expr(text, &pe);
  if (!*out) {
    *err = std::string(found ? e.name : name) + " = " + text + ": " + pe.to_string();
    return false;
  }
  return true;
}

}  // namespace

bool load_policy(const config::Config& cfg, int slot, int type, Policy* p, std::string* err) {
  struct One {
    const char* name;
    ExprPtr* dst;
    const char* dflt;
  };
  One ones[] = {
      {"START", &p->start, "True"},
      {"IS_OWNER", &p->is_owner, "False"},
      {"RANK", &p->rank, "0"},
      {"MAXJOBRETIREMENTTIME", &p->mjrt, "0"},
      {"MachineMaxVacateTime", &p->mmvt, "600"},
      {"RUNBENCHMARKS", &p->runbench, nullptr},
      {"START_BACKFILL", &p->start_backfill, "False"},
      {"EVICT_BACKFILL", &p->evict_backfill, "False"},
      {"HIBERNATE", &p->hibernate, nullptr},
      // HTCONDOR: hooks.rst FetchWorkDelay: "If not defined, the condor_startd will wait 300
      // seconds (five minutes) between attempts to fetch work."
      {"FetchWorkDelay", &p->fetch_delay, "300"},
  };
  for (One& o : ones) {
    if (!policy_expr(cfg, o.name, false, slot, type, o.dflt, o.dst, err)) return false;
  }
  if (p->runbench) {
    // RUNBENCHMARKS = False disables benchmarks (the simulator's default).
    Value rv = classad::evaluate(p->runbench.get());
    if (rv.is_boolean() && !rv.as_boolean()) p->runbench = ExprPtr();
  }
  struct Two {
    const char* name;
    ExprPtr* dst;
    const char* dflt;
  };
  Two twos[] = {
      {"SUSPEND", p->suspend, "False"},
      {"CONTINUE", p->cont, "True"},
      {"PREEMPT", p->preempt, "False"},
      {"KILL", p->kill, "False"},
      {"WANT_SUSPEND", p->want_suspend, "False"},
      {"WANT_VACATE", p->want_vacate, "True"},
      // HTCONDOR: startd WANT_HOLD "defaults to False"; no default reason or subcode.
      {"WANT_HOLD", p->want_hold, "False"},
      {"WANT_HOLD_REASON", p->want_hold_reason, nullptr},
      {"WANT_HOLD_SUBCODE", p->want_hold_subcode, nullptr},
  };
  for (Two& t : twos) {
    if (!policy_expr(cfg, t.name, false, slot, type, t.dflt, &t.dst[0], err)) return false;
    if (!policy_expr(cfg, t.name, true, slot, type, t.dflt, &t.dst[1], err)) return false;
  }
  std::string ds;
  if (cfg.get("DEFAULT_DRAINING_START_EXPR", &ds) && !trim(ds).empty()) {
    p->draining_start = classad::parse_expr(trim(ds));
    p->has_draining_start = static_cast<bool>(p->draining_start);
  }
  if (!p->draining_start) p->draining_start = classad::parse_expr("undefined");
  int64_t n;
  if (cfg_int(cfg, "CLAIM_WORKLIFE", &n)) p->claim_worklife = n;
  if (cfg_int(cfg, "KILLING_TIMEOUT", &n) && n >= 0) p->killing_timeout = n;
  if (cfg_int(cfg, "MATCH_TIMEOUT", &n) && n >= 0) p->match_timeout = n;
  p->hooks = job_hooks_for_slot(cfg, slot);
  return true;
}

}  // namespace kite::startd
