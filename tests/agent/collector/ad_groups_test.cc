// Unit tests of counted query replies: equal projections counted once, ads that differ or hold
// an expression kept apart, and clearing between frames.
#include "agent/collector/ad_groups.h"

#include <gtest/gtest.h>

#include <string>

#include "policy/classad/parser.h"
#include "tests/agent/collector/old_ad.h"

namespace kite::collector {
namespace {

using testing_ads::ad;

TEST(AdGroups, EqualProjectionsAreCountedOnce) {
  AdGroups g({"Arch", "State"});
  g.add(*ad("Name = \"a\"\nArch = \"X86_64\"\nState = \"Claimed\"\nMemory = 1\n"));
  g.add(*ad("Name = \"b\"\nArch = \"X86_64\"\nState = \"Claimed\"\nMemory = 2\n"));
  g.add(*ad("Name = \"c\"\nArch = \"X86_64\"\nState = \"Owner\"\n"));
  g.add(*ad("Name = \"d\"\nState = \"Claimed\"\n"));  // no Arch: a group of its own
  g.add(*ad("Name = \"e\"\nArch = \"X86_64\"\nState = \"Claimed\"\n"));
  ASSERT_EQ(g.texts().size(), 3u);
  EXPECT_EQ(g.texts()[0], "{\"Arch\": \"X86_64\",\"State\": \"Claimed\"}");
  EXPECT_EQ(g.counts()[0], 3u);
  EXPECT_EQ(g.texts()[1], "{\"Arch\": \"X86_64\",\"State\": \"Owner\"}");
  EXPECT_EQ(g.counts()[1], 1u);
  EXPECT_EQ(g.texts()[2], "{\"State\": \"Claimed\"}");
  EXPECT_EQ(g.counts()[2], 1u);
  // A string and an integer that print alike are different values.
  AdGroups h({"X"});
  h.add(*ad("X = 1\n"));
  h.add(*ad("X = \"1\"\n"));
  EXPECT_EQ(h.texts().size(), 2u);
}

TEST(AdGroups, AnExpressionGroupsTheWholeAd) {
  AdGroups g({"State"});
  g.add(*ad("Name = \"a\"\nState = Busy ? \"Claimed\" : \"Owner\"\nBusy = true\n"));
  g.add(*ad("Name = \"b\"\nState = Busy ? \"Claimed\" : \"Owner\"\nBusy = true\n"));
  g.add(*ad("Name = \"a\"\nState = Busy ? \"Claimed\" : \"Owner\"\nBusy = true\n"));
  // The whole ad travels (as project() sends it), so only identical ads share a group.
  ASSERT_EQ(g.texts().size(), 2u);
  EXPECT_NE(g.texts()[0].find("\"Busy\": true"), std::string::npos);
  EXPECT_EQ(g.counts()[0], 2u);
  EXPECT_EQ(g.counts()[1], 1u);
}

TEST(AdGroups, ClearStartsOver) {
  AdGroups g({"State"});
  g.add(*ad("State = \"Owner\"\n"));
  EXPECT_GT(g.bytes(), 0u);
  g.clear();
  EXPECT_EQ(g.bytes(), 0u);
  EXPECT_TRUE(g.texts().empty());
  g.add(*ad("State = \"Owner\"\n"));
  ASSERT_EQ(g.counts().size(), 1u);
  EXPECT_EQ(g.counts()[0], 1u);
}

}  // namespace
}  // namespace kite::collector
