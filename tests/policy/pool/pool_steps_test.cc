// Tests of the pool scenario's step parser (policy/pool/pool_steps.h) and pool_run's reporting.
#include "policy/pool/pool_steps.h"
#include "policy/pool/pool_sim.h"

#include <gtest/gtest.h>

namespace kite::pool {
namespace {

TEST(PoolSteps, RangesExpandInOrder) {
  std::vector<std::string> names;
  std::string error;
  ASSERT_TRUE(expand_names("node[1-3,7]", &names, &error)) << error;
  EXPECT_EQ(names, (std::vector<std::string>{"node1", "node2", "node3", "node7"}));
  names.clear();
  ASSERT_TRUE(expand_names("big", &names, &error));
  EXPECT_EQ(names, (std::vector<std::string>{"big"}));
}

TEST(PoolSteps, BadRangesAreRefused) {
  for (const char* bad : {"node[3-1]", "node[1-", "node[a-b]", "[1-2]", "node[]"}) {
    std::vector<std::string> names;
    std::string error;
    EXPECT_FALSE(expand_names(bad, &names, &error)) << bad;
    EXPECT_NE(error.find("range"), std::string::npos) << bad << ": " << error;
  }
}

TEST(PoolSteps, MachineLines) {
  Step st;
  std::string error;
  ASSERT_TRUE(parse_step("machine duo slots 4 [Cpus=4; Memory=8192]", &st, &error)) << error;
  EXPECT_EQ(st.kind, StepKind::kMachine);
  EXPECT_EQ(st.count, 4);
  EXPECT_FALSE(st.partitionable);
  EXPECT_EQ(st.ad, "[Cpus=4; Memory=8192]");
  Step p;
  ASSERT_TRUE(parse_step("machine big partitionable", &p, &error)) << error;
  EXPECT_TRUE(p.partitionable);
  Step both;
  EXPECT_FALSE(parse_step("machine x partitionable slots 2", &both, &error));
}

TEST(PoolSteps, SubmitWithRuntimeInHoursAndAd) {
  Step st;
  std::string error;
  ASSERT_TRUE(parse_step("at 2h submit bob 50 runtime 10m [RequestCpus=2]", &st, &error)) << error;
  EXPECT_EQ(st.kind, StepKind::kSubmit);
  EXPECT_EQ(st.time, 7200);
  EXPECT_EQ(st.name, "bob");
  EXPECT_EQ(st.count, 50);
  EXPECT_EQ(st.runtime, 600);
  EXPECT_EQ(st.ad, "[RequestCpus=2]");
}

TEST(PoolSteps, ExpectForms) {
  Step st;
  std::string error;
  ASSERT_TRUE(parse_step("at 60 expect running alice 18..22", &st, &error)) << error;
  EXPECT_EQ(st.what, "running");
  EXPECT_EQ(st.value, 18);
  EXPECT_EQ(st.high, 22);
  Step prio;
  ASSERT_TRUE(parse_step("at 60 expect prio alice 0.5 0.01", &prio, &error)) << error;
  EXPECT_DOUBLE_EQ(prio.value, 0.5);
  EXPECT_DOUBLE_EQ(prio.tolerance, 0.01);
  Step on;
  ASSERT_TRUE(parse_step("at 60 expect on slot1@node3 none", &on, &error)) << error;
  EXPECT_EQ(on.name, "slot1@node3");
  EXPECT_EQ(on.who, "none");
}

TEST(PoolSteps, SetBuildsAnAdFromItems) {
  Step st;
  std::string error;
  ASSERT_TRUE(parse_step("at 90 set node[1-2] Owner=\"x\" LoadAvg=0.5 + 1", &st, &error)) << error;
  EXPECT_EQ(st.names.size(), 2u);
  EXPECT_EQ(st.ad, "[Owner=\"x\"; LoadAvg=0.5 + 1]");
}

TEST(PoolSteps, ErrorsSayWhatIsWrong) {
  struct Case {
    const char* line;
    const char* says;
  };
  for (const Case& c :
       {Case{"at 0 frob x", "unknown step"}, Case{"at x submit a 1", "not a time"},
        Case{"at 0 submit a", "expected NAME COUNT"},
        Case{"at 0 userprio setfactor a", "expected NAME VALUE"},
        Case{"at 0 userprio boost a 1", "unknown operation"},
        Case{"at 0 expect running a", "expected 2 argument"},
        Case{"at 0 expect weather a 1", "unknown form"},
        Case{"at 0 reschedule now", "no arguments"}, Case{"hello", "expected 'machine"}}) {
    Step st;
    std::string error;
    EXPECT_FALSE(parse_step(c.line, &st, &error)) << c.line;
    EXPECT_NE(error.find(c.says), std::string::npos) << c.line << ": " << error;
  }
}

}  // namespace
}  // namespace kite::pool

namespace kite::pool {
namespace {

// Without cycle reports (`-q` and no `--csv`) the expectations and the summary are the same.
TEST(PoolRun, WithoutCycleReportsTheSummaryAndFailuresAreTheSame) {
  const std::string scenario =
      "NEGOTIATOR_INTERVAL = 60\n---\nmachine node[1-2]\nat 0 submit alice 3\n"
      "at 60 expect running alice 2\nat 60 expect idle alice 2\n";
  PoolResult full;
  pool_run(scenario, "two.pool", &full);
  PoolResult quiet;
  quiet.report_cycles = false;
  pool_run(scenario, "two.pool", &quiet);
  EXPECT_NE(full.output.find("t=0 matches=2 preemptions=0 alice=2/1"), std::string::npos)
      << full.output;
  EXPECT_NE(full.csv.find("60,alice,submitter,2,1,"), std::string::npos) << full.csv;
  EXPECT_EQ(quiet.csv, "");
  EXPECT_EQ(quiet.output.find("matches="), std::string::npos) << quiet.output;
  EXPECT_EQ(full.passed, 1);
  EXPECT_EQ(full.failed, 1);
  EXPECT_EQ(quiet.passed, 1);
  EXPECT_EQ(quiet.failed, 1);
  EXPECT_NE(quiet.output.find("FAIL two.pool:6:"), std::string::npos) << quiet.output;
  EXPECT_NE(quiet.output.find("1 passed, 1 failed"), std::string::npos) << quiet.output;
}

}  // namespace
}  // namespace kite::pool
