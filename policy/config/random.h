// The random source behind $RANDOM_INTEGER and $RANDOM_CHOICE: one generator per process,
// seeded from the kernel's entropy on first use so that every node (every process) draws its
// own values, as HTCondor's do; tests inject a seed for a reproducible sequence.
#pragma once

#include <cstdint>

namespace kite::config {

/// The next 64 random bits of this process's generator.
uint64_t random_next();
/// A value in [0, n) (n > 0), without the bias of a plain modulo.
uint64_t random_below(uint64_t n);
/// Restarts the generator from `seed`: the same seed gives the same sequence.
void random_seed(uint64_t seed);

}  // namespace kite::config
