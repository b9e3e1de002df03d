// Tests for the one check of a requested amount (policy/startd/requests.h): numbers round up,
// undefined is left to the caller, everything else is refused with a reason naming it.
#include "policy/startd/requests.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "policy/classad/parser.h"

namespace kite::startd {
namespace {

using classad::Value;

RequestValue check(const Value& v, int64_t limit, int64_t* out, std::string* why) {
  return request_amount("RequestCpus", v, limit, out, why);
}

TEST(RequestAmount, NumbersRoundUpToWholeUnits) {
  int64_t out = -1;
  std::string why;
  EXPECT_EQ(check(Value::integer(3), 8, &out, &why), RequestValue::kAmount);
  EXPECT_EQ(out, 3);
  EXPECT_EQ(check(Value::real(0.5), 8, &out, &why), RequestValue::kAmount);
  EXPECT_EQ(out, 1);
  EXPECT_EQ(check(Value::real(7.0001), 8, &out, &why), RequestValue::kAmount);
  EXPECT_EQ(out, 8);
  EXPECT_EQ(check(Value::integer(0), 8, &out, &why), RequestValue::kAmount);
  EXPECT_EQ(out, 0);
  EXPECT_EQ(check(Value::boolean(true), 8, &out, &why), RequestValue::kAmount);
  EXPECT_EQ(out, 1);
}

TEST(RequestAmount, UndefinedIsTheCallersDefault) {
  int64_t out = 42;
  std::string why;
  EXPECT_EQ(check(Value::undefined(), 8, &out, &why), RequestValue::kUndefined);
  EXPECT_EQ(out, 42);
  EXPECT_TRUE(why.empty());
}

TEST(RequestAmount, BadValuesAreRefusedWithAReason) {
  struct Case {
    Value v;
    const char* want;
  };
  const Case cases[] = {
      {Value::integer(-100), "RequestCpus -100 is negative"},
      {Value::real(-0.5), "RequestCpus -0.5 is negative"},
      {Value::real(std::nan("")), "RequestCpus is not a finite number"},
      {Value::real(std::numeric_limits<double>::infinity()), "RequestCpus is not a finite number"},
      {Value::integer(int64_t{1} << 62),
       "RequestCpus 4611686018427387904 is more than the machine's 8"},
      {Value::real(8.5), "RequestCpus 8.5 is more than the machine's 8"},
      {Value::string("two"), "RequestCpus is not a number (\"two\")"},
      {Value::error(), "RequestCpus is not a number"},
  };
  for (const Case& c : cases) {
    int64_t out = 42;
    std::string why;
    EXPECT_EQ(check(c.v, 8, &out, &why), RequestValue::kBad) << c.want;
    EXPECT_NE(why.find(c.want), std::string::npos) << why;
    EXPECT_EQ(out, 42) << c.want;
  }
}

// Every request of an ad, against the machine's totals; the first bad one names itself.
TEST(RequestsRead, ChecksEveryResourceAgainstTheMachine) {
  Layout L;
  L.machine.cpus = 4;
  L.machine.memory_mb = 1000;
  L.machine.disk_kb = 4096;
  L.resources.push_back(CustomResource{"GPUs", 2, {}, {}, {}});
  L.machine.custom = {2};
  RequestAmounts r;
  std::string why;
  classad::AdPtr ok = classad::parse_classad("[RequestCpus = 1.5; RequestGPUs = 2]");
  ASSERT_TRUE(requests_read(*ok, nullptr, L, &r, &why)) << why;
  EXPECT_EQ(r.std[0], 2);
  EXPECT_TRUE(r.given[0]);
  EXPECT_EQ(r.std[1], 1);  // not given: 1
  EXPECT_FALSE(r.given[1]);
  ASSERT_EQ(r.custom.size(), 1u);
  EXPECT_EQ(r.custom[0], 2);
  classad::AdPtr bad = classad::parse_classad("[RequestCpus = 1; RequestGPUs = 3]");
  EXPECT_FALSE(requests_read(*bad, nullptr, L, &r, &why));
  EXPECT_NE(why.find("RequestGPUs 3 is more than the machine's 2"), std::string::npos) << why;
  classad::AdPtr nan = classad::parse_classad("[RequestDisk = real(\"NaN\")]");
  EXPECT_FALSE(requests_read(*nan, nullptr, L, &r, &why));
  EXPECT_NE(why.find("RequestDisk is not a finite number"), std::string::npos) << why;
}

}  // namespace
}  // namespace kite::startd
