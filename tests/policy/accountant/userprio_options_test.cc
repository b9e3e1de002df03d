// Tests for condor_userprio's command line: display modes, -activefrom, -af, edits, errors.
#include "policy/accountant/userprio_options.h"

#include <gtest/gtest.h>

namespace kite::accountant {
namespace {

using Kind = UserprioRequest::Kind;

// 2026-11-22 00:48:58 UTC
constexpr int64_t kNow = 1795308538;

TEST(UserprioOptions, DisplayModes) {
  EXPECT_EQ(parse_userprio_args({}, kNow).kind, Kind::kTable);
  EXPECT_EQ(parse_userprio_args({}, kNow).view.table, UserprioTable::kDefault);
  EXPECT_EQ(parse_userprio_args({"-all"}, kNow).view.table, UserprioTable::kAll);
  EXPECT_EQ(parse_userprio_args({"-usage"}, kNow).view.table, UserprioTable::kUsage);
  EXPECT_EQ(parse_userprio_args({"-most"}, kNow).view.table, UserprioTable::kDefault);
  EXPECT_TRUE(parse_userprio_args({"-allusers"}, kNow).view.all_users);
  EXPECT_EQ(parse_userprio_args({"-quotas"}, kNow).kind, Kind::kQuotas);
  EXPECT_EQ(parse_userprio_args({"-long"}, kNow).kind, Kind::kLong);
  UserprioRequest r = parse_userprio_args({"-all", "bob@d", "carol@d"}, kNow);
  EXPECT_EQ(r.view.users, (std::vector<std::string>{"bob@d", "carol@d"}));
  EXPECT_EQ(r.view.now, kNow);
  EXPECT_EQ(r.view.active_window, 86400);
}

TEST(UserprioOptions, Autoformat) {
  UserprioRequest r = parse_userprio_args({"-af:h", "Name", "Priority", "PriorityFactor"}, kNow);
  EXPECT_EQ(r.kind, Kind::kAf);
  EXPECT_TRUE(r.af_header);
  EXPECT_EQ(r.af_attrs, (std::vector<std::string>{"Name", "Priority", "PriorityFactor"}));
  r = parse_userprio_args({"-af", "Name"}, kNow);
  EXPECT_FALSE(r.af_header);
  EXPECT_EQ(parse_userprio_args({"-af"}, kNow).kind, Kind::kUsage);
}

TEST(UserprioOptions, ActiveFrom) {
  // From midnight 11/01/2026 UTC (1793491200) to kNow.
  UserprioRequest r = parse_userprio_args({"-activefrom", "11", "1", "2026"}, kNow);
  EXPECT_EQ(r.kind, Kind::kTable);
  EXPECT_EQ(r.view.active_window, kNow - 1793491200);
  EXPECT_EQ(parse_userprio_args({"-activefrom", "13", "1", "2026"}, kNow).kind, Kind::kUsage);
  EXPECT_EQ(parse_userprio_args({"-activefrom", "11", "1"}, kNow).kind, Kind::kUsage);
}

TEST(UserprioOptions, EditsAndErrors) {
  UserprioRequest r = parse_userprio_args({"-setfactor", "bob@d", "10"}, kNow);
  EXPECT_EQ(r.kind, Kind::kEdit);
  EXPECT_EQ(r.edit.name, "bob@d");
  EXPECT_EQ(r.edit.value, 10);
  r = parse_userprio_args({"-setfactor", "bob@d"}, kNow);
  EXPECT_EQ(r.kind, Kind::kUsage);
  EXPECT_NE(r.error.find("-setfactor"), std::string::npos);
  // condor_userprio.json.txt: -json prints the usage (and exits 1).
  EXPECT_EQ(parse_userprio_args({"-json"}, kNow).kind, Kind::kUsage);
  r = parse_userprio_args({"-bogus"}, kNow);
  EXPECT_EQ(r.kind, Kind::kUsage);
  EXPECT_NE(r.error.find("-bogus"), std::string::npos);
}

}  // namespace
}  // namespace kite::accountant
