// The benchmark kernels: small dependent loops the compiler cannot fold away, timed with the
// monotonic clock and checked against it every batch.
#include "hal/benchmark.h"

#include <time.h>

namespace kite::hal {
namespace {

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

constexpr int kBatch = 1 << 14;

}  // namespace

int64_t benchmark_mips(int ms) {
  // Per iteration: shift, xor, shift, xor, shift, xor (xorshift), add, and: 8 operations.
  constexpr int64_t kOpsPerIteration = 8;
  volatile uint64_t sink = 0;
  uint64_t x = 0x9e3779b97f4a7c15ull, acc = 0;
  int64_t start = now_ns(), end = start + int64_t(ms) * 1000000, iterations = 0, t = start;
  do {
    for (int i = 0; i < kBatch; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      acc = (acc + x) & 0xffffffffffffull;
    }
    iterations += kBatch;
    t = now_ns();
  } while (t < end);
  sink = acc;
  (void)sink;
  double us = static_cast<double>(t - start) / 1000.0;
  return us > 0 ? static_cast<int64_t>(static_cast<double>(iterations * kOpsPerIteration) / us) : 0;
}

int64_t benchmark_kflops(int ms) {
  // y = a * x + y / 2 over a small vector (after Linpack's daxpy): 3 operations per element.
  constexpr int kN = 256;
  double xv[kN], yv[kN];
  for (int i = 0; i < kN; ++i) {
    xv[i] = 1.0 + i * 1e-3;
    yv[i] = 0.5;
  }
  volatile double a_src = 0.999999, sink = 0;
  double a = a_src;
  int64_t start = now_ns(), end = start + int64_t(ms) * 1000000, flops = 0, t = start;
  do {
    for (int rep = 0; rep < kBatch / kN; ++rep) {
      for (int i = 0; i < kN; ++i) yv[i] = a * xv[i] + yv[i] * 0.5;
      flops += 3 * kN;  // multiply, multiply, add
    }
    t = now_ns();
  } while (t < end);
  sink = yv[kN / 2];
  (void)sink;
  double s = static_cast<double>(t - start) / 1e9;
  return s > 0 ? static_cast<int64_t>(static_cast<double>(flops) / s / 1000.0) : 0;
}

}  // namespace kite::hal
