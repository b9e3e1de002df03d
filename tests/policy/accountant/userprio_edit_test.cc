// Tests for condor_userprio's edit options: parsing, checks, effects, and the observed
// -setfactor message.
#include "policy/accountant/userprio_edit.h"

#include <gtest/gtest.h>

namespace kite::accountant {
namespace {

UserprioEdit parse_ok(const std::vector<std::string>& args) {
  UserprioEdit e;
  std::string error;
  EXPECT_TRUE(parse_userprio_edit(args, &e, &error)) << error;
  return e;
}

std::string parse_error(const std::vector<std::string>& args) {
  UserprioEdit e;
  std::string error;
  EXPECT_FALSE(parse_userprio_edit(args, &e, &error));
  return error;
}

TEST(UserprioEdit, SetFactorAsObserved) {
  Accountant acc;
  UserprioEdit e = parse_ok({"-setfactor", "bob@node.example.org", "10"});
  EXPECT_EQ(e.op, UserprioEdit::Op::kSetFactor);
  std::string msg;
  ASSERT_TRUE(apply_userprio_edit(acc, e, 100, &msg));
  // condor_userprio.setfactor.txt
  EXPECT_EQ(msg, "The priority factor of bob@node.example.org was set to 10.000000");
  EXPECT_EQ(acc.factor("bob@node.example.org"), 10);
}

TEST(UserprioEdit, EveryOption) {
  Accountant acc;
  acc.set_usage("u@d", 1, 1, 0);
  std::string msg;
  ASSERT_TRUE(apply_userprio_edit(acc, parse_ok({"-setprio", "u@d", "12.5"}), 10, &msg));
  EXPECT_EQ(acc.real_priority("u@d"), 12.5);
  ASSERT_TRUE(apply_userprio_edit(acc, parse_ok({"-set-floor", "u@d", "3"}), 10, &msg));
  EXPECT_EQ(acc.find("u@d")->floor, 3);
  ASSERT_TRUE(apply_userprio_edit(acc, parse_ok({"-setceil", "u@d", "7"}), 10, &msg));
  EXPECT_EQ(acc.find("u@d")->ceiling, 7);
  ASSERT_TRUE(apply_userprio_edit(acc, parse_ok({"-setceiling", "u@d", "8"}), 10, &msg));
  EXPECT_EQ(acc.find("u@d")->ceiling, 8);
  ASSERT_TRUE(apply_userprio_edit(acc, parse_ok({"-setaccum", "u@d", "2"}), 10, &msg));
  EXPECT_EQ(acc.find("u@d")->weighted_accumulated, 7200);
  ASSERT_TRUE(apply_userprio_edit(acc, parse_ok({"-setbegin", "u@d", "5"}), 10, &msg));
  EXPECT_EQ(acc.find("u@d")->begin_usage, 5);
  ASSERT_TRUE(apply_userprio_edit(acc, parse_ok({"-setlast", "u@d", "9"}), 10, &msg));
  EXPECT_EQ(acc.find("u@d")->last_usage, 9);
  ASSERT_TRUE(apply_userprio_edit(acc, parse_ok({"-resetusage", "u@d"}), 20, &msg));
  EXPECT_EQ(acc.find("u@d")->weighted_accumulated, 0);
  ASSERT_TRUE(apply_userprio_edit(acc, parse_ok({"-resetall"}), 20, &msg));
  EXPECT_EQ(acc.real_priority("u@d"), 0.5);
  ASSERT_TRUE(apply_userprio_edit(acc, parse_ok({"-delete", "u@d"}), 20, &msg));
  EXPECT_EQ(acc.find("u@d"), nullptr);
  EXPECT_FALSE(apply_userprio_edit(acc, parse_ok({"-delete", "u@d"}), 20, &msg));
  EXPECT_NE(msg.find("u@d"), std::string::npos);
}

TEST(UserprioEdit, BadOperandsAreNamed) {
  EXPECT_NE(parse_error({"-setfactor", "bob@d"}).find("-setfactor needs"), std::string::npos);
  EXPECT_NE(parse_error({"-setfactor", "bob@d", "ten"}).find("\"ten\" is not a number"),
            std::string::npos);
  EXPECT_NE(parse_error({"-setfactor", "bob@d", "0.5"}).find("at least 1.0"), std::string::npos);
  EXPECT_NE(parse_error({"-setfactor", "bob@d", "nan"}).find("\"nan\" is not a number"),
            std::string::npos);
  EXPECT_NE(parse_error({"-setprio", "bob@d", "inf"}).find("\"inf\" is not a number"),
            std::string::npos);
  EXPECT_NE(parse_error({"-setaccum", "bob@d", "1e300"}).find("is not a number"),
            std::string::npos);
  EXPECT_NE(parse_error({"-setprio", "bob@d", "0.1"}).find("at least 0.5"), std::string::npos);
  EXPECT_NE(parse_error({"-delete"}).find("-delete needs a user name"), std::string::npos);
  // No edit option at all: not an error, just not an edit.
  EXPECT_EQ(parse_error({"-all"}), "");
  UserprioEdit e = parse_ok({"-resetall"});
  EXPECT_EQ(e.op, UserprioEdit::Op::kResetAll);
}

}  // namespace
}  // namespace kite::accountant
