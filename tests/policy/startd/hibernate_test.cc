// Tests for the power-management decision's pieces: HIBERNATE values to levels (the
// reference's table, any case, numbers; anything else NONE) and the machine's decision.
#include <gtest/gtest.h>

#include "policy/classad/value.h"
#include "policy/startd/startd.h"

namespace kite::startd {
namespace {

using classad::Value;

TEST(Hibernate, LevelNamesOfTheReferenceTable) {
  struct Case {
    const char* text;
    int level;
  } cases[] = {{"NONE", 0},    {"0", 0},        {"S1", 1},   {"standby", 1},   {"Sleep", 1},
               {"S2", 2},      {"2", 2},        {"s3", 3},   {"RAM", 3},       {"mem", 3},
               {"SUSPEND", 3}, {"S4", 4},       {"disk", 4}, {"HIBERNATE", 4}, {"S5", 5},
               {"5", 5},       {"shutdown", 5}, {"OFF", 5},  {"NAP", 0},       {"S6", 0},
               {"", 0}};
  for (const Case& c : cases) EXPECT_EQ(hibernate_level(Value::string(c.text)), c.level) << c.text;
}

TEST(Hibernate, NumbersAndOtherTypes) {
  EXPECT_EQ(hibernate_level(Value::integer(3)), 3);
  EXPECT_EQ(hibernate_level(Value::integer(5)), 5);
  EXPECT_EQ(hibernate_level(Value::integer(6)), 0);
  EXPECT_EQ(hibernate_level(Value::integer(-1)), 0);
  EXPECT_EQ(hibernate_level(Value::boolean(true)), 0);
  EXPECT_EQ(hibernate_level(Value::undefined()), 0);
}

TEST(Hibernate, AnySlotVetoesElseTheLargestLevel) {
  EXPECT_EQ(hibernate_decision({3, 4, 3}), 4);
  EXPECT_EQ(hibernate_decision({3, 0, 5}), 0);
  EXPECT_EQ(hibernate_decision({1}), 1);
  EXPECT_EQ(hibernate_decision({}), 0);
  EXPECT_STREQ(hibernate_level_name(4), "S4");
  EXPECT_STREQ(hibernate_level_name(0), "NONE");
}

}  // namespace
}  // namespace kite::startd
