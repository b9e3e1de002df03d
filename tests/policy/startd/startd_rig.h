// A Startd on a virtual clock for the API tests: configuration text in, events by name, and
// the state, actions and attributes the tests assert on.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "policy/classad/parser.h"
#include "policy/config/config.h"
#include "policy/startd/startd.h"

namespace kite::startd {

struct StartdRig {
  config::Config cfg;
  MachineFacts facts;
  VirtualClock clock{1000};
  std::unique_ptr<Startd> sd;
  Output out;

  StartdRig(const char* conf, int cpus, int64_t memory_mb) {
    cfg.set_detected("DETECTED_CPUS", std::to_string(cpus));
    EXPECT_TRUE(cfg.load_string(conf, "t.conf").ok);
    facts.cpus = cpus;
    facts.memory_mb = memory_mb;
    sd = std::make_unique<Startd>(cfg, facts, clock);
    std::string err;
    EXPECT_TRUE(sd->init(&err)) << err;
    sd->evaluate(&out);
  }

  std::string state(const char* slot) {
    SlotView v;
    if (!sd->slot(slot, &v)) return "absent";
    return std::string(state_name(v.state)) + "/" + activity_name(v.activity);
  }
  void ev(EventKind k, const char* slot, const char* ad = nullptr, bool priority = false) {
    classad::AdPtr a;
    if (ad) a = classad::parse_classad(ad);
    Event e;
    e.kind = k;
    e.slot = slot;
    e.ad = a.get();
    e.priority_preemption = priority;
    std::string err;
    EXPECT_TRUE(sd->handle(e, &out, &err)) << err;
  }
  const Action* find(ActionKind k, const char* slot) {
    for (const Action& a : out.actions)
      if (a.kind == k && a.slot == slot) return &a;
    return nullptr;
  }
  bool has_action(ActionKind k, const char* slot) { return find(k, slot) != nullptr; }
  int64_t attr(const char* slot, const char* name) {
    SlotView v;
    int64_t x = -1;
    if (sd->slot(slot, &v)) v.ad->evaluate_int(name, x);
    return x;
  }
};

}  // namespace kite::startd
