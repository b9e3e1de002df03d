// CPU benchmarks behind the machine ad's Mips and KFlops: an integer kernel and a
// floating-point kernel, each run for a fixed time. They keep a CPU busy for that long:
// callers run them off any event loop (the agent runs them in a child process).
// HTCONDOR: the startd's "Mips" (Dhrystone-like) and "KFlops" (Linpack-like) attributes.
#pragma once

#include <cstdint>

namespace kite::hal {

/// Millions of integer operations per second, counted over about `ms` milliseconds.
int64_t benchmark_mips(int ms);
/// Thousands of floating-point operations per second, over about `ms` milliseconds.
int64_t benchmark_kflops(int ms);

}  // namespace kite::hal
