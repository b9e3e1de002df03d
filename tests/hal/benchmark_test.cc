// The Mips and KFlops kernels measure something: positive, plausible figures in a short run.
#include <gtest/gtest.h>

#include "hal/benchmark.h"

namespace kite::hal {
namespace {

TEST(Benchmark, MipsIsPlausible) {
  int64_t mips = benchmark_mips(50);
  // Any CPU this runs on (emulators and sanitizer builds included) does 10 million simple
  // integer operations a second; none does 10^12.
  EXPECT_GE(mips, 10);
  EXPECT_LE(mips, 1000000);
}

TEST(Benchmark, KFlopsIsPlausible) {
  int64_t kflops = benchmark_kflops(50);
  EXPECT_GE(kflops, 10000);
  EXPECT_LE(kflops, int64_t(1000000000));
}

}  // namespace
}  // namespace kite::hal
