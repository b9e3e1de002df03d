// Tests for the one typed reader of configuration values (policy/config/typed.h): every boolean
// word, expressions, integer overflow, and errors that name the file and line of the definition.
#include "policy/config/typed.h"

#include <gtest/gtest.h>

#include "tests/policy/config/config_helpers.h"

namespace kite::config {
namespace {

using testing::load;

TEST(ConfigTyped, EveryBooleanWordInAnyCase) {
  const char* const kTrue[] = {"true", "TRUE", "True", "yes", "YES", "Yes", "t", "T", "1"};
  const char* const kFalse[] = {"false", "FALSE", "False", "no", "NO", "No", "f", "F", "0"};
  for (const char* w : kTrue) {
    bool b = false;
    EXPECT_TRUE(parse_bool_word(w, &b)) << w;
    EXPECT_TRUE(b) << w;
  }
  for (const char* w : kFalse) {
    bool b = true;
    EXPECT_TRUE(parse_bool_word(w, &b)) << w;
    EXPECT_FALSE(b) << w;
  }
  bool b = false;
  EXPECT_TRUE(parse_bool_word("  yes\t", &b));
  EXPECT_TRUE(b);
  for (const char* w : {"", "ye", "tru", "2", "on", "off", "yess", "y", "n"}) {
    EXPECT_FALSE(parse_bool_word(w, &b)) << w;
  }
}

TEST(ConfigTyped, BooleanMayBeAnExpressionOfConstants) {
  bool b = false;
  std::string why;
  EXPECT_TRUE(parse_bool("1 < 2", &b, &why));
  EXPECT_TRUE(b);
  EXPECT_TRUE(parse_bool("2 == 3 || false", &b, &why));
  EXPECT_FALSE(b);
  EXPECT_TRUE(parse_bool("5 - 5", &b, &why));  // a number: non-zero is true
  EXPECT_FALSE(b);
  EXPECT_FALSE(parse_bool("\"yes\"", &b, &why));  // a string is not a boolean
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(parse_bool("Undefined", &b, &why));
  EXPECT_FALSE(parse_bool("(1 <", &b, &why));
}

TEST(ConfigTyped, SameAnswerForEveryReader) {
  // ENABLE_BACKFILL = yes used to be false in one reader and true in another.
  Config c = load("ENABLE_BACKFILL = yes\nA = T\nB = no\nC = $(B)\n");
  for (const char* name : {"ENABLE_BACKFILL", "A"}) {
    bool b = false;
    EXPECT_TRUE(read_bool(c, name, &b).ok);
    EXPECT_TRUE(b) << name;
  }
  bool b = true;
  EXPECT_TRUE(read_bool(c, "C", &b).ok);  // read after macro expansion
  EXPECT_FALSE(b);
}

TEST(ConfigTyped, UndefinedOrBlankLeavesTheDefault) {
  Config c = load("BLANK =\n");
  bool b = true, found = true;
  EXPECT_TRUE(read_bool(c, "NOT_SET_ANYWHERE", &b, &found).ok);
  EXPECT_TRUE(b);
  EXPECT_FALSE(found);
  int64_t n = 42;
  EXPECT_TRUE(read_int(c, "BLANK", &n, &found).ok);
  EXPECT_EQ(n, 42);
  EXPECT_FALSE(found);
}

TEST(ConfigTyped, BuiltInDefaultsRead) {
  Config c = load("");
  int64_t n = 0;
  bool found = false;
  EXPECT_TRUE(read_int(c, "UPDATE_INTERVAL", &n, &found).ok);  // param table: 300
  EXPECT_TRUE(found);
  EXPECT_EQ(n, 300);
  bool b = true;
  EXPECT_TRUE(read_bool(c, "ENABLE_BACKFILL", &b).ok);  // param table: false
  EXPECT_FALSE(b);
}

TEST(ConfigTyped, IntegersFromExpressionsAndReals) {
  Config c = load("A = 5 * 60\nB = 7.9\nC = -7.9\nD = $(A) + 1\nE = 9223372036854775807\n");
  int64_t n = 0;
  EXPECT_TRUE(read_int(c, "A", &n).ok);
  EXPECT_EQ(n, 300);
  EXPECT_TRUE(read_int(c, "B", &n).ok);
  EXPECT_EQ(n, 7);  // truncated toward zero
  EXPECT_TRUE(read_int(c, "C", &n).ok);
  EXPECT_EQ(n, -7);
  EXPECT_TRUE(read_int(c, "D", &n).ok);
  EXPECT_EQ(n, 301);
  EXPECT_TRUE(read_int(c, "E", &n).ok);
  EXPECT_EQ(n, INT64_MAX);
}

TEST(ConfigTyped, IntegerOverflowIsAnError) {
  Config c = load(
      "BIG = 9223372036854775808\nHUGE = 123456789012345678901234\nREAL = 1e19\n"
      "NEG = -1e300\nINF = real(\"INF\")\n");
  for (const char* name : {"BIG", "HUGE", "REAL", "NEG", "INF"}) {
    int64_t n = 5;
    Status st = read_int(c, name, &n);
    EXPECT_FALSE(st.ok) << name;
    EXPECT_NE(st.message.find("out of range"), std::string::npos) << st.message;
    EXPECT_EQ(n, 5) << name;  // left alone on error
  }
}

TEST(ConfigTyped, RangeLimitsAreErrors) {
  Config c = load("N = -3\n");
  int64_t n = 0;
  Status st = read_int(c, "N", &n, nullptr, 0, 10);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("out of range (0 to 10)"), std::string::npos) << st.message;
}

TEST(ConfigTyped, ErrorsNameFileLineNameAndValue) {
  Config c = load("# comment\nX = 1\nFLAG = maybe\nCOUNT = lots\nR = \"s\"\n");
  bool b = false;
  Status st = read_bool(c, "FLAG", &b);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.message.rfind("t.conf, line 3: FLAG = maybe: not a boolean", 0), 0u) << st.message;
  int64_t n = 0;
  st = read_int(c, "COUNT", &n);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.message, "t.conf, line 4: COUNT = lots: not an integer");
  double d = 0;
  st = read_real(c, "R", &d);
  EXPECT_FALSE(st.ok);
  EXPECT_EQ(st.message, "t.conf, line 5: R = \"s\": not a number");
}

TEST(ConfigTyped, SubsystemPrefixWins) {
  Config c = load("FLAG = false\nSTARTD.FLAG = true\n");
  bool b = false;
  EXPECT_TRUE(read_bool(c, "FLAG", &b).ok);
  EXPECT_TRUE(b);
}

TEST(ConfigTyped, Reals) {
  Config c = load("A = 0.25 * 2\nB = 3\nC = real(\"NaN\")\n");
  double d = 0;
  EXPECT_TRUE(read_real(c, "A", &d).ok);
  EXPECT_DOUBLE_EQ(d, 0.5);
  EXPECT_TRUE(read_real(c, "B", &d).ok);
  EXPECT_DOUBLE_EQ(d, 3.0);
  EXPECT_FALSE(read_real(c, "C", &d).ok);
}

}  // namespace
}  // namespace kite::config
