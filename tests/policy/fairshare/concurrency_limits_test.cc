// Tests for concurrency limits: the reference's examples (XSW, FILESERVER:3, sets LARGE and
// SMALL, concurrency_limits_expr on NETWORK), the name rules and the tracker.
#include "policy/fairshare/concurrency_limits.h"

#include <gtest/gtest.h>

#include <cmath>

#include "policy/classad/parser.h"

namespace kite::fairshare {
namespace {

std::vector<LimitUse> uses(const char* text) {
  std::vector<LimitUse> out;
  std::string error;
  EXPECT_TRUE(parse_concurrency_limits(text, &out, &error)) << error;
  return out;
}

LimitTable table(const std::string& text, config::Status* st = nullptr) {
  config::Config cfg("NEGOTIATOR");
  EXPECT_TRUE(cfg.load_string(text, "cm.conf").ok);
  EXPECT_TRUE(cfg.finish().ok);
  LimitTable t;
  config::Status got = limits_from_config(cfg, &t);
  if (st) {
    *st = got;
  } else {
    EXPECT_TRUE(got.ok) << got.message;
  }
  return t;
}

TEST(ConcurrencyLimits, ParsesNamesAndUnits) {
  auto u = uses("XSW, DATABASE, FILESERVER:3");
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(u[0].name, "xsw");
  EXPECT_EQ(u[0].units, 1);
  EXPECT_EQ(u[1].name, "database");
  EXPECT_EQ(u[2].name, "fileserver");
  EXPECT_EQ(u[2].units, 3);
  u = uses("Large.SwLicense");
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].name, "large.swlicense");
  EXPECT_TRUE(uses("").empty());
  EXPECT_TRUE(uses(" , ").empty());
  u = uses("xsw xsw:2");  // the same name twice adds up
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].units, 3);
}

TEST(ConcurrencyLimits, BadNamesAreNamed) {
  std::vector<LimitUse> out;
  std::string error;
  EXPECT_FALSE(parse_concurrency_limits("XSW, 9lives", &out, &error));
  EXPECT_NE(error.find("\"9lives\" (item 2"), std::string::npos) << error;
  EXPECT_NE(error.find("digit"), std::string::npos) << error;
  EXPECT_FALSE(parse_concurrency_limits("a.b.c", &out, &error));
  EXPECT_NE(error.find("at most one '.'"), std::string::npos) << error;
  EXPECT_FALSE(parse_concurrency_limits("db-server", &out, &error));
  EXPECT_NE(error.find("'-'"), std::string::npos) << error;
  EXPECT_FALSE(parse_concurrency_limits("xsw:many", &out, &error));
  EXPECT_NE(error.find("not a number"), std::string::npos) << error;
  EXPECT_FALSE(parse_concurrency_limits("xsw:0", &out, &error));
  EXPECT_FALSE(parse_concurrency_limits(":3", &out, &error));
  EXPECT_FALSE(parse_concurrency_limits("large.", &out, &error));
}

TEST(ConcurrencyLimits, XswLimitOfThree) {
  // Reference: XSW_LIMIT = 3 lets at most 3 jobs that declare XSW run at once.
  LimitTracker t(table("XSW_LIMIT = 3\n"));
  auto job = uses("XSW");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(t.fits(job)) << i;
    t.acquire(job);
  }
  std::string blocking;
  EXPECT_FALSE(t.fits(job, &blocking));
  EXPECT_EQ(blocking, "xsw");
  EXPECT_EQ(t.in_use("XSW"), 3);
  t.release(job);
  EXPECT_TRUE(t.fits(job));
  // Names without a limit and no CONCURRENCY_LIMIT_DEFAULT are not limited.
  EXPECT_TRUE(std::isinf(t.table().limit_of("database")));
}

TEST(ConcurrencyLimits, FileserverThreeUnitsPerJob) {
  LimitTracker t(table("FILESERVER_LIMIT = 7\nXSW_LIMIT = 3\nDATABASE_LIMIT = 100\n"));
  auto job = uses("XSW, DATABASE, FILESERVER:3");
  ASSERT_TRUE(t.fits(job));
  t.acquire(job);
  ASSERT_TRUE(t.fits(job));
  t.acquire(job);
  // 6 of 7 fileserver units held: a third job needs 3 more.
  std::string blocking;
  EXPECT_FALSE(t.fits(job, &blocking));
  EXPECT_EQ(blocking, "fileserver");
  EXPECT_TRUE(t.fits(uses("FILESERVER")));
}

TEST(ConcurrencyLimits, SetsAndTheDefault) {
  // Reference: LARGE.SWLICENSE and LARGE.DBSESSION get LARGE's default of 100; OTHER.LICENSE
  // gets CONCURRENCY_LIMIT_DEFAULT, 5, as there is no set OTHER.
  LimitTable lt = table(
      "CONCURRENCY_LIMIT_DEFAULT = 5\nCONCURRENCY_LIMIT_DEFAULT_LARGE = 100\n"
      "CONCURRENCY_LIMIT_DEFAULT_SMALL = 25\nXSW_LIMIT = 3\nlarge.special_LIMIT = 7\n");
  EXPECT_EQ(lt.limit_of("large.swlicense"), 100);
  EXPECT_EQ(lt.limit_of("LARGE.DBSESSION"), 100);
  EXPECT_EQ(lt.limit_of("small.swlicense"), 25);
  EXPECT_EQ(lt.limit_of("other.license"), 5);
  EXPECT_EQ(lt.limit_of("anything"), 5);
  EXPECT_EQ(lt.limit_of("xsw"), 3);
  EXPECT_EQ(lt.limit_of("large.special"), 7);
  LimitTracker t(lt);
  auto job = uses("OTHER.LICENSE");
  for (int i = 0; i < 5; ++i) t.acquire(job);
  EXPECT_FALSE(t.fits(job));
  EXPECT_TRUE(t.fits(uses("other.else")));  // each name has its own count
}

TEST(ConcurrencyLimits, LimitsExprEvaluatedAgainstTheMachine) {
  // Reference: concurrency_limits_expr = strcat("SWX:2 ", TARGET.NETWORK) on a machine of
  // NETWORK_A gives "SWX:2 NETWORK_A"; 10 per network, SWX 4.
  LimitTracker t(table("NETWORK_A_LIMIT = 10\nNETWORK_B_LIMIT = 10\nSWX_LIMIT = 4\n"));
  auto on_a = uses("SWX:2 NETWORK_A");
  auto on_b = uses("SWX:2 NETWORK_B");
  ASSERT_EQ(on_a.size(), 2u);
  ASSERT_TRUE(t.fits(on_a));
  t.acquire(on_a);
  ASSERT_TRUE(t.fits(on_b));
  t.acquire(on_b);
  EXPECT_EQ(t.in_use("network_a"), 1);
  EXPECT_EQ(t.in_use("network_b"), 1);
  EXPECT_FALSE(t.fits(on_a));  // SWX is full: 4 of 4
  EXPECT_TRUE(t.fits(uses("NETWORK_A")));
}

TEST(ConcurrencyLimits, JobLimitsEvaluatedAgainstTheMatchedMachine) {
  classad::AdPtr job =
      classad::parse_classad("[ ConcurrencyLimits = strcat(\"SWX:2 \", TARGET.NETWORK) ]");
  classad::AdPtr on_a = classad::parse_classad("[ NETWORK = \"NETWORK_A\" ]");
  classad::AdPtr on_b = classad::parse_classad("[ NETWORK = \"NETWORK_B\" ]");
  ASSERT_TRUE(job && on_a && on_b);
  std::vector<LimitUse> got;
  std::string error;
  ASSERT_TRUE(job_limit_uses(*job, *on_a, &got, &error)) << error;
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].name, "swx");
  EXPECT_EQ(got[0].units, 2);
  EXPECT_EQ(got[1].name, "network_a");
  ASSERT_TRUE(job_limit_uses(*job, *on_b, &got, &error)) << error;
  EXPECT_EQ(got[1].name, "network_b");
  // A plain list, no limits at all, and a value that is not a string.
  classad::AdPtr plain = classad::parse_classad("[ ConcurrencyLimits = \"XSW\" ]");
  ASSERT_TRUE(job_limit_uses(*plain, *on_a, &got, &error));
  ASSERT_EQ(got.size(), 1u);
  classad::AdPtr none = classad::parse_classad("[ Owner = \"u\" ]");
  ASSERT_TRUE(job_limit_uses(*none, *on_a, &got, &error));
  EXPECT_TRUE(got.empty());
  classad::AdPtr bad = classad::parse_classad("[ ConcurrencyLimits = 7 ]");
  EXPECT_FALSE(job_limit_uses(*bad, *on_a, &got, &error));
  EXPECT_NE(error.find("ConcurrencyLimits"), std::string::npos) << error;
}

TEST(ConcurrencyLimits, BadLimitValueNamesFileAndLine) {
  config::Status st;
  table("XSW_LIMIT = 3\nDB_LIMIT = plenty\n", &st);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("cm.conf, line 2"), std::string::npos) << st.message;
}

}  // namespace
}  // namespace kite::fairshare
