// Tests of the time built-ins (time, absTime, relTime, interval, formatTime,
// splitTime, dayTime, ...) and of the relTime/absTime text forms. Expected
// values come from the reference documentation and HTCondor 25's conformance
// vectors (which were computed in UTC).
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

#include "policy/classad/eval.h"
#include "policy/classad/functions.h"
#include "policy/classad/parser.h"
#include "policy/classad/time_format.h"
#include "policy/classad/unparse.h"
#include "tests/policy/classad/eval_helpers.h"

namespace kite::classad {
namespace {

class FunctionsTime : public ::testing::Test {
 protected:
  // The vectors were computed in UTC; pin the zone and the clock.
  static void SetUpTestSuite() {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

const int64_t kNow = 1600000000;

// Evaluates with the clock at kNow.
std::string Eval(const char* text) {
  const EvalEnv env = fixed_time_env(&kNow);
  return eval_text(text, &env);
}

TEST_F(FunctionsTime, TableListsEveryName) {
  for (const char* name : {"time", "absTime", "relTime", "interval", "formatTime", "splitTime",
                           "dayTime", "currentTime", "timeZoneOffset", "getYear", "getSeconds"}) {
    EXPECT_NE(function_find(name), nullptr) << name;
  }
}

TEST_F(FunctionsTime, TimeUsesTheClock) {
  EXPECT_EQ(Eval("time()"), "1600000000");
  EXPECT_EQ(Eval("isInteger(time())"), "true");
  EXPECT_EQ(Eval("time(1)"), "error");
  EXPECT_EQ(Eval("isReltime(dayTime())"), "true");
  EXPECT_EQ(Eval("dayTime()"), "relTime(\"12:26:40\")");  // 2020-09-13T12:26:40Z
  EXPECT_EQ(Eval("absTime()"), "absTime(\"2020-09-13T12:26:40-00:00\")");
}

TEST_F(FunctionsTime, AbsTimeFromStrings) {
  EXPECT_EQ(Eval(R"(absTime("2020-01-01T00:00:00Z"))"), R"(absTime("2020-01-01T00:00:00-00:00"))");
  EXPECT_EQ(Eval(R"(absTime("1999-12-31T23:59:59-08:00"))"),
            R"(absTime("1999-12-31T23:59:59-08:00"))");
  EXPECT_EQ(Eval(R"(absTime("2020-02-29T10:00:00-03:00"))"),
            R"(absTime("2020-02-29T10:00:00-03:00"))");
  EXPECT_EQ(Eval(R"(absTime("2020-01-01T00:00Z"))"), R"(absTime("2020-01-01T00:00:00-00:00"))");
  EXPECT_EQ(Eval(R"(absTime("1960-05-05T05:05:05Z"))"), R"(absTime("1960-05-05T05:05:05-00:00"))");
  EXPECT_EQ(Eval(R"(absTime("2020-01-01T00:00:00+01:00") == absTime("2019-12-31T23:00:00Z"))"),
            "true");
  EXPECT_EQ(Eval(R"(int(absTime("2020-01-01T00:00:00Z")))"), "1577836800");
}

TEST_F(FunctionsTime, AbsTimeFromNumbers) {
  EXPECT_EQ(Eval("absTime(1600000000, 0)"), R"(absTime("2020-09-13T12:26:40-00:00"))");
  EXPECT_EQ(Eval("absTime(-86400, 0)"), R"(absTime("1969-12-31T00:00:00-00:00"))");
  // The reference reads the seconds as a C int.
  EXPECT_EQ(Eval("absTime(4102444800, 0)"), R"(absTime("1963-11-25T17:31:44-00:00"))");
  EXPECT_EQ(Eval(R"(absTime("2020-01-01T00:00:00Z") == absTime(1577836800, 0))"), "true");
}

TEST_F(FunctionsTime, AbsTimeExceptional) {
  EXPECT_EQ(Eval(R"(absTime("x", 0))"), "\"x\"");
  EXPECT_EQ(Eval("absTime(error)"), "error");
  EXPECT_EQ(Eval("absTime([ a = 1 ])"), "error");
  EXPECT_EQ(Eval("absTime(0, undefined)"), "error");
  EXPECT_EQ(Eval("absTime(0, 0, 0)"), "error");
}

TEST_F(FunctionsTime, RelTime) {
  EXPECT_EQ(Eval("relTime(0)"), R"(relTime("00"))");
  EXPECT_EQ(Eval("relTime(60)"), R"(relTime("01:00"))");
  EXPECT_EQ(Eval("relTime(3661)"), R"(relTime("01:01:01"))");
  EXPECT_EQ(Eval("relTime(-1)"), R"(relTime("-01"))");
  EXPECT_EQ(Eval("relTime(1.5)"), R"(relTime("1.5"))");
  EXPECT_EQ(Eval("relTime(1000000)"), R"(relTime("11+13:46:40"))");
  EXPECT_EQ(Eval("relTime(relTime(30))"), R"(relTime("30"))");
  EXPECT_EQ(Eval("int(relTime(90))"), "90");
  // A string literal is folded the way the reference parser does: to a Real.
  EXPECT_EQ(Eval(R"(relTime("03:04"))"), "1.840000000000000E+02");
  EXPECT_EQ(Eval(R"(relTime("1d"))"), "8.640000000000000E+04");
  EXPECT_EQ(Eval("relTime(error)"), "error");
  EXPECT_EQ(Eval("relTime([ a = 1 ])"), "error");
  EXPECT_EQ(Eval("relTime(undefined)"), "undefined");
  EXPECT_EQ(Eval("relTime(1, 2)"), "error");
  EXPECT_EQ(Eval("relTime()"), "error");
}

TEST_F(FunctionsTime, Interval) {
  EXPECT_EQ(Eval("interval(0)"), "\"0\"");
  EXPECT_EQ(Eval("interval(60)"), "\"1:00\"");
  EXPECT_EQ(Eval("interval(67)"), "\"1:07\"");  // documented example
  // The manual shows "17+1:02:03", but HTCondor 25 pads the hours after a
  // day count (its vector interval(-90061) is "-1+01:01:01").
  EXPECT_EQ(Eval("interval(1472523)"), "\"17+01:02:03\"");
  EXPECT_EQ(Eval("interval(3600)"), "\"1:00:00\"");
  EXPECT_EQ(Eval("interval(86400)"), "\"1+00:00:00\"");
  EXPECT_EQ(Eval("interval(-1)"), "\"-1\"");
  EXPECT_EQ(Eval("interval(-90061)"), "\"-1+01:01:01\"");
  EXPECT_EQ(Eval("interval(\"60\")"), "\"1:00\"");
  EXPECT_EQ(Eval("interval(true)"), "\"1\"");
  EXPECT_EQ(Eval("interval(1, 2)"), "error");
}

TEST_F(FunctionsTime, FormatTime) {
  EXPECT_EQ(Eval(R"(formatTime(absTime("2020-03-04T05:06:07+01:30"), "%Y-%m-%d %H:%M:%S"))"),
            "\"2020-03-04 05:06:07\"");
  EXPECT_EQ(Eval(R"(formatTime(absTime("2020-03-04T05:06:07+01:30"), "%a"))"), "\"Wed\"");
  EXPECT_EQ(Eval(R"(formatTime(absTime("2020-03-04T05:06:07+01:30"), "%B"))"), "\"March\"");
  EXPECT_EQ(Eval(R"(formatTime(absTime("2020-03-04T05:06:07+01:30"), "%w"))"), "\"3\"");
  EXPECT_EQ(Eval(R"(formatTime(absTime("2020-03-04T05:06:07+01:30"), "%%"))"), "\"%\"");
  EXPECT_EQ(Eval(R"(formatTime(absTime("1999-12-31T23:59:59-08:00"), "%I%p"))"), "\"11PM\"");
  EXPECT_EQ(Eval(R"(formatTime(absTime("2021-07-04T00:00:00Z"), "%j %U %W"))"), "\"185 27 26\"");
  EXPECT_EQ(Eval(R"(formatTime(absTime("1999-12-31T23:59:59-08:00")))"),
            "\"Fri Dec 31 23:59:59 1999\"");
  EXPECT_EQ(Eval(R"(formatTime(1600000000, "%H:%M"))"), "\"12:26\"");
}

TEST_F(FunctionsTime, FormatTimeExceptional) {
  EXPECT_EQ(Eval(R"(formatTime("x"))"), "error");
  EXPECT_EQ(Eval("formatTime(true)"), "error");
  EXPECT_EQ(Eval(R"(formatTime(absTime("2020-03-04T05:06:07Z"), error))"), "error");
  EXPECT_EQ(Eval(R"(formatTime("2020", "%Y"))"), "error");
  EXPECT_EQ(Eval("formatTime(relTime(5))"), "error");
  EXPECT_EQ(Eval("formatTime(0, \"%Y\", 1)"), "error");
}

TEST_F(FunctionsTime, SplitTime) {
  EXPECT_EQ(Eval(R"(splitTime(absTime("2020-03-04T05:06:07+01:30")))"),
            "[ Day = 4; Type = \"AbsoluteTime\"; Year = 2020; Hours = 5; Month = 3; "
            "Offset = 5400; Minutes = 6; Seconds = 7 ]");
  EXPECT_EQ(Eval("splitTime(relTime(0))"),
            "[ Days = 0; Type = \"RelativeTime\"; Hours = 0; Minutes = 0; Seconds = 0.0 ]");
  EXPECT_EQ(Eval("splitTime(relTime(90061))"),
            "[ Days = 1; Type = \"RelativeTime\"; Hours = 1; Minutes = 1; "
            "Seconds = 1.000000000000000E+00 ]");
  EXPECT_EQ(Eval(R"(splitTime(absTime("2020-03-04T05:06:07+01:30")).Year)"), "2020");
  EXPECT_EQ(Eval(R"(splitTime("x"))"), "error");
  EXPECT_EQ(Eval("splitTime(true)"), "error");
  EXPECT_EQ(Eval("splitTime(undefined)"), "undefined");
  EXPECT_EQ(Eval("splitTime()"), "error");
}

TEST_F(FunctionsTime, FieldReaders) {
  EXPECT_EQ(Eval("getYear(absTime(1600000000, 0))"), "2020");
  EXPECT_EQ(Eval("getHours(relTime(7200))"), "2");
  EXPECT_EQ(Eval("getDays(absTime(0, 0))"), "error");
  EXPECT_EQ(Eval("getYear(relTime(5))"), "error");
  EXPECT_EQ(Eval("getYear(5)"), "error");
}

TEST(TimeFormat, RelTimeText) {
  std::string s;
  format_rel_time(s, 1000000);
  EXPECT_EQ(s, "11+13:46:40");
  s.clear();
  format_rel_time(s, -30);
  EXPECT_EQ(s, "-30");
  s.clear();
  format_rel_time(s, 90);
  EXPECT_EQ(s, "01:30");
  double secs = 0;
  EXPECT_TRUE(parse_rel_time("11+13:46:40", &secs));
  EXPECT_EQ(secs, 1000000);
  EXPECT_TRUE(parse_rel_time("-01", &secs));
  EXPECT_EQ(secs, -1);
  EXPECT_FALSE(parse_rel_time("x", &secs));
}

TEST(TimeFormat, AbsTimeText) {
  std::string s;
  format_abs_time(s, 1600000000, 0);
  EXPECT_EQ(s, "2020-09-13T12:26:40-00:00");
  int64_t secs = 0;
  int32_t offset = 0;
  EXPECT_TRUE(parse_abs_time("1999-12-31T23:59:59-08:00", &secs, &offset));
  EXPECT_EQ(offset, -8 * 3600);
  EXPECT_EQ(secs, 946713599);
  EXPECT_FALSE(parse_abs_time("x", &secs, &offset));
}

}  // namespace
}  // namespace kite::classad
