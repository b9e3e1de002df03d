// Test helpers for the negotiator: ads from old-syntax text, submitters, jobs and slots.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "policy/classad/parser.h"
#include "policy/config/config.h"
#include "policy/negotiator/negotiator.h"

namespace kite::negotiator::testing {

inline classad::AdPtr ad(const std::string& text) {
  classad::ParseError err;
  classad::AdPtr a = classad::parse_classad_old(text, &err);
  EXPECT_TRUE(a) << err.to_string() << "\n" << text;
  return a;
}

// A job ad; `extra` adds or overrides attributes (one per line).
inline IdleJob job(int cluster, int proc, const std::string& owner, const std::string& extra = "",
                   int64_t qdate = 1000) {
  IdleJob j;
  j.cluster = cluster;
  j.proc = proc;
  j.ad = ad("ClusterId = " + std::to_string(cluster) + "\nProcId = " + std::to_string(proc) +
            "\nOwner = \"" + owner + "\"\nQDate = " + std::to_string(qdate) +
            "\nRequestCpus = 1\nRequestMemory = 128\nRequestDisk = 1024\n"
            "Requirements = TARGET.Memory >= RequestMemory\nRank = 0\n" +
            extra);
  return j;
}

// An idle static slot "slot<n>@<machine>".
inline classad::AdPtr slot(int n, const std::string& machine = "node1",
                           const std::string& extra = "") {
  return ad("Name = \"slot" + std::to_string(n) + "@" + machine + "\"\nMachine = \"" + machine +
            "\"\nSlotID = " + std::to_string(n) +
            "\nState = \"Unclaimed\"\nActivity = \"Idle\"\nCpus = 1\nMemory = 1024\n"
            "Disk = 100000\nStart = true\nRequirements = START\nRank = 0.0\nCurrentRank = 0.0\n" +
            extra);
}

inline Submitter submitter(const std::string& name, double prio, std::vector<IdleJob> jobs) {
  Submitter s;
  s.name = name;
  s.priority = prio;
  s.jobs = std::move(jobs);
  return s;
}

template <class... Jobs>
Submitter submitter(const std::string& name, double prio, Jobs&&... jobs) {
  std::vector<IdleJob> v;
  (v.push_back(std::move(jobs)), ...);
  return submitter(name, prio, std::move(v));
}

inline std::unique_ptr<config::Config> config_of(const std::string& text) {
  auto cfg = std::make_unique<config::Config>("NEGOTIATOR");
  config::Status st = cfg->load_string(text, "test.conf");
  EXPECT_TRUE(st.ok) << st.message;
  EXPECT_TRUE(cfg->finish().ok);
  return cfg;
}

// "cluster.proc -> slot" for each match, in order.
inline std::vector<std::string> pairs(const CycleResult& r) {
  std::vector<std::string> out;
  for (const Match& m : r.matches)
    out.push_back(std::to_string(m.cluster) + "." + std::to_string(m.proc) + "->" + m.slot);
  return out;
}

}  // namespace kite::negotiator::testing
