// The analysis behind condor_q -better-analyze: numbered steps, the conditions the Requirements
// reduce to with their slot counts, and the summary counts.
#include "policy/negotiator/analyze.h"

#include <gtest/gtest.h>

#include "tests/policy/negotiator/negotiator_rig.h"

namespace kite::negotiator {
namespace {

using testing::ad;
using testing::slot;

TEST(Analyze, StepsAreNumberedOperandsFirst) {
  classad::AdPtr job =
      ad("ClusterId = 1\nProcId = 0\nRequestMemory = 100\n"
         "Requirements = (TARGET.A == 1) && (TARGET.B || (TARGET.C > 2))\n");
  std::vector<classad::AdPtr> slots;
  JobAnalysis a = analyze_job(*job, slots);
  ASSERT_EQ(a.steps.size(), 5u);
  EXPECT_EQ(a.steps[0].text, "TARGET.A == 1");
  EXPECT_EQ(a.steps[1].text, "TARGET.B");
  EXPECT_EQ(a.steps[2].text, "TARGET.C > 2");
  EXPECT_EQ(a.steps[3].text, "[1] || [2]");
  EXPECT_EQ(a.steps[4].text, "[0] && [3]");
  EXPECT_EQ(a.root, 4);
}

TEST(Analyze, CountsSlotsPerConditionAndStopsAtTheFirstThatMatchesNone) {
  classad::AdPtr job =
      ad("ClusterId = 1\nProcId = 0\nRequestMemory = 2000\nOwner = \"alice\"\n"
         "Requirements = (TARGET.Arch == \"X86_64\") && (TARGET.Memory >= "
         "RequestMemory) && (TARGET.Gpus > 0)\n");
  std::vector<classad::AdPtr> slots;
  slots.push_back(slot(1, "a", "Arch = \"X86_64\"\nMemory = 4096"));
  slots.push_back(slot(2, "a", "Arch = \"X86_64\"\nMemory = 1024"));
  slots.push_back(slot(3, "b", "Arch = \"ARM\"\nMemory = 4096"));
  JobAnalysis a = analyze_job(*job, slots);
  ASSERT_EQ(a.conditions.size(), 3u);
  EXPECT_EQ(a.steps[a.conditions[0].step].text, "TARGET.Arch == \"X86_64\"");
  EXPECT_EQ(a.conditions[0].slots_matched, 2);
  EXPECT_EQ(a.conditions[1].slots_matched, 2);
  EXPECT_EQ(a.conditions[2].slots_matched, 0);
  EXPECT_EQ(a.slots, 3);
  EXPECT_EQ(a.machines, 2);
  EXPECT_EQ(a.rejected_by_job, 3);
  EXPECT_EQ(a.matched, 0);
  EXPECT_EQ(a.job_attrs, std::vector<std::string>{"RequestMemory"});
}

TEST(Analyze, SortsSlotsIntoRefusedByJobRefusedBySlotAndMatched) {
  classad::AdPtr job =
      ad("ClusterId = 1\nProcId = 0\nOwner = \"alice\"\nRequestMemory = 1\n"
         "Requirements = TARGET.Memory >= 2048\n");
  std::vector<classad::AdPtr> slots;
  slots.push_back(slot(1, "a", "Memory = 4096"));
  slots.push_back(slot(2, "a", "Memory = 4096\nStart = TARGET.Owner == \"bob\""));
  slots.push_back(slot(3, "a", "Memory = 1024"));
  JobAnalysis a = analyze_job(*job, slots);
  EXPECT_EQ(a.rejected_by_job, 1);
  EXPECT_EQ(a.rejected_by_slot, 1);
  EXPECT_EQ(a.matched, 1);
  EXPECT_EQ(a.machines, 1);
}

TEST(Analyze, AnOrReducesToTheOperandThatMatchesAsMuch) {
  classad::AdPtr job =
      ad("ClusterId = 1\nProcId = 0\nRequestMemory = 1\n"
         "Requirements = (TARGET.Memory > 100 || TARGET.Memory > 5000) && "
         "(TARGET.X =?= 1 || TARGET.Y =?= 1)\n");
  std::vector<classad::AdPtr> slots;
  slots.push_back(slot(1, "a", "Memory = 4096\nX = 1"));
  slots.push_back(slot(2, "a", "Memory = 4096\nY = 1"));
  JobAnalysis a = analyze_job(*job, slots);
  ASSERT_EQ(a.conditions.size(), 2u);
  EXPECT_EQ(a.steps[a.conditions[0].step].text, "TARGET.Memory > 100");
  EXPECT_EQ(a.steps[a.conditions[1].step].text, "[3] || [4]");
  EXPECT_EQ(a.conditions[1].slots_matched, 2);
}

}  // namespace
}  // namespace kite::negotiator
