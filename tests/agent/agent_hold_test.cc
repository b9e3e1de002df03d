// Tests of the agent's reading of the core's hold-job action (WANT_HOLD's verdict).
#include <gtest/gtest.h>

#include "agent/startd/agent.h"

namespace kite::agent {
namespace {

TEST(HoldDetail, SoftAndHardWithCodeSubcodeAndAQuotedReason) {
  PendingHold h;
  std::string err;
  ASSERT_TRUE(parse_hold_detail(
      "soft HoldReasonCode=21 HoldReasonSubCode=7 HoldReason=\"a \\\"quoted\\\" reason\"", &h,
      &err))
      << err;
  EXPECT_TRUE(h.soft);
  EXPECT_EQ(h.code, 21);
  EXPECT_EQ(h.subcode, 7);
  EXPECT_EQ(h.reason, "a \"quoted\" reason");
  ASSERT_TRUE(
      parse_hold_detail("hard HoldReasonCode=21 HoldReasonSubCode=-3 HoldReason=\"x\"", &h, &err))
      << err;
  EXPECT_FALSE(h.soft);
  EXPECT_EQ(h.subcode, -3);
  EXPECT_EQ(h.reason, "x");
}

TEST(HoldDetail, MalformedDetailsAreErrorsThatQuoteThem) {
  PendingHold h;
  std::string err;
  for (const char* bad : {"gentle HoldReasonCode=21 HoldReasonSubCode=0 HoldReason=\"x\"",
                          "soft HoldReasonSubCode=0 HoldReason=\"x\"",
                          "soft HoldReasonCode=21x HoldReasonSubCode=0 HoldReason=\"x\"",
                          "soft HoldReasonCode=21 HoldReasonSubCode=0",
                          "soft HoldReasonCode=21 HoldReasonSubCode=0 HoldReason=7", ""}) {
    err.clear();
    EXPECT_FALSE(parse_hold_detail(bad, &h, &err)) << bad;
    EXPECT_NE(err.find(bad), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace kite::agent
