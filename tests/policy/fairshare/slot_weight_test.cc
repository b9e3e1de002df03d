// Tests for slot weights: SlotWeight, the Cpus fallback, and NEGOTIATOR_USE_SLOT_WEIGHTS off.
#include "policy/fairshare/slot_weight.h"

#include <gtest/gtest.h>

#include "policy/classad/parser.h"

namespace kite::fairshare {
namespace {

double weight_of(const char* ad_text, bool use = true) {
  classad::AdPtr ad = classad::parse_classad(ad_text);
  EXPECT_TRUE(ad) << ad_text;
  return ad ? slot_weight(*ad, use) : -1;
}

TEST(SlotWeight, FromTheSlotAd) {
  EXPECT_EQ(weight_of("[ Cpus = 4; SlotWeight = Cpus ]"), 4);
  EXPECT_EQ(weight_of("[ Cpus = 4; Memory = 8192; SlotWeight = Memory / 1024.0 ]"), 8);
  EXPECT_EQ(weight_of("[ Cpus = 3 ]"), 3);                          // no SlotWeight: Cpus
  EXPECT_EQ(weight_of("[ Cpus = 2; SlotWeight = \"heavy\" ]"), 2);  // not a number: Cpus
  EXPECT_EQ(weight_of("[ Cpus = 0; SlotWeight = Cpus ]"), 0);       // a used-up pslot
  EXPECT_EQ(weight_of("[ Cpus = 2; SlotWeight = -1 ]"), 2);         // negative: Cpus
  EXPECT_EQ(weight_of("[ Memory = 1 ]"), 1);
  EXPECT_EQ(weight_of("[ Cpus = 4; SlotWeight = Cpus ]", false), 1);  // weights off
}

}  // namespace
}  // namespace kite::fairshare
