// Tests for the checked double -> integer conversion (policy/util/double_to_int.h): every
// rounding mode, NaN and infinities, the int64 edges and the caller's range.
#include "policy/util/double_to_int.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>

namespace kite::util {
namespace {

constexpr int64_t kMin = INT64_MIN, kMax = INT64_MAX;

int64_t conv(double v, Round r) {
  int64_t out = 12345;
  EXPECT_TRUE(double_to_int64(v, r, kMin, kMax, &out)) << v;
  return out;
}

TEST(DoubleToInt, RoundingModes) {
  EXPECT_EQ(conv(2.5, Round::kDown), 2);
  EXPECT_EQ(conv(2.5, Round::kUp), 3);
  EXPECT_EQ(conv(2.5, Round::kTowardZero), 2);
  EXPECT_EQ(conv(2.5, Round::kNearest), 3);
  EXPECT_EQ(conv(-2.5, Round::kDown), -3);
  EXPECT_EQ(conv(-2.5, Round::kUp), -2);
  EXPECT_EQ(conv(-2.5, Round::kTowardZero), -2);
  EXPECT_EQ(conv(-2.5, Round::kNearest), -3);  // half away from zero
  EXPECT_EQ(conv(0.01, Round::kUp), 1);
  EXPECT_EQ(conv(2.0, Round::kUp), 2);  // whole numbers stay
  EXPECT_EQ(conv(-0.0, Round::kUp), 0);
}

TEST(DoubleToInt, NotFiniteIsRefused) {
  int64_t out = 7;
  for (double v : {std::nan(""), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    for (Round r : {Round::kDown, Round::kUp, Round::kTowardZero, Round::kNearest}) {
      EXPECT_FALSE(double_to_int64(v, r, kMin, kMax, &out)) << v;
    }
  }
  EXPECT_EQ(out, 7);  // untouched
}

TEST(DoubleToInt, Int64Edges) {
  int64_t out = 0;
  // 2^63 is one past INT64_MAX; -2^63 is INT64_MIN exactly.
  EXPECT_FALSE(double_to_int64(9223372036854775808.0, Round::kDown, kMin, kMax, &out));
  EXPECT_FALSE(double_to_int64(1e300, Round::kDown, kMin, kMax, &out));
  EXPECT_FALSE(double_to_int64(-1e300, Round::kDown, kMin, kMax, &out));
  EXPECT_TRUE(double_to_int64(-9223372036854775808.0, Round::kDown, kMin, kMax, &out));
  EXPECT_EQ(out, INT64_MIN);
  // The largest double below 2^63.
  EXPECT_TRUE(double_to_int64(9223372036854774784.0, Round::kDown, kMin, kMax, &out));
  EXPECT_EQ(out, 9223372036854774784LL);
  EXPECT_TRUE(double_to_int64(4611686018427387904.0, Round::kUp, 0, kMax, &out));  // 2^62
  EXPECT_EQ(out, 4611686018427387904LL);
}

TEST(DoubleToInt, CallersRangeAfterRounding) {
  int64_t out = 0;
  EXPECT_FALSE(double_to_int64(-1, Round::kUp, 0, 100, &out));
  EXPECT_TRUE(double_to_int64(-0.5, Round::kUp, 0, 100, &out));  // ceil(-0.5) is 0
  EXPECT_EQ(out, 0);
  EXPECT_FALSE(double_to_int64(-0.5, Round::kDown, 0, 100, &out));  // floor is -1
  EXPECT_TRUE(double_to_int64(100, Round::kUp, 0, 100, &out));
  EXPECT_EQ(out, 100);
  EXPECT_FALSE(double_to_int64(100.2, Round::kUp, 0, 100, &out));  // 101
  EXPECT_TRUE(double_to_int64(100.2, Round::kDown, 0, 100, &out));
  EXPECT_EQ(out, 100);
}

TEST(DoubleToInt, IntVersion) {
  int out = 0;
  EXPECT_TRUE(double_to_int(2147483647.0, Round::kDown, INT_MIN, INT_MAX, &out));
  EXPECT_EQ(out, INT_MAX);
  EXPECT_FALSE(double_to_int(2147483648.0, Round::kDown, INT_MIN, INT_MAX, &out));
  EXPECT_FALSE(double_to_int(2147483647.5, Round::kUp, INT_MIN, INT_MAX, &out));
  EXPECT_TRUE(double_to_int(-3.7, Round::kTowardZero, -10, 10, &out));
  EXPECT_EQ(out, -3);
}

TEST(DoubleToInt, Clamped) {
  EXPECT_EQ(double_to_int64_clamped(std::nan(""), Round::kDown, 0, 10, 5), 5);
  EXPECT_EQ(double_to_int64_clamped(1e300, Round::kDown, 0, 10, 5), 10);
  EXPECT_EQ(double_to_int64_clamped(-1e300, Round::kDown, 0, 10, 5), 0);
  EXPECT_EQ(
      double_to_int64_clamped(std::numeric_limits<double>::infinity(), Round::kDown, kMin, kMax, 0),
      INT64_MAX);
  EXPECT_EQ(double_to_int64_clamped(-std::numeric_limits<double>::infinity(), Round::kDown, kMin,
                                    kMax, 0),
            INT64_MIN);
  EXPECT_EQ(double_to_int64_clamped(3, Round::kDown, 10, 20, 0), 10);  // below lo, positive
  EXPECT_EQ(double_to_int64_clamped(7.9, Round::kDown, 0, 10, 0), 7);
}

}  // namespace
}  // namespace kite::util
