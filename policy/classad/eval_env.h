// What an evaluation reads from outside the ads: the current time (time(),
// CurrentTime, the local-time functions) and the random numbers random()
// draws. It reaches the evaluator through EvalContext; without one, the
// real clock and a random stream seeded once per process apply.
#pragma once

#include <cstdint>

namespace kite::classad {

// A xorshift64* stream of random bits.
class RandomStream {
 public:
  explicit RandomStream(uint64_t seed) : state_(seed ? seed : 0x9E3779B97F4A7C15ull) {}
  uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }

 private:
  uint64_t state_;
};

struct EvalEnv {
  // Seconds since the epoch read from `clock`; null: the real clock.
  int64_t (*now_fn)(const void* clock) = nullptr;
  const void* clock = nullptr;
  // The stream random() draws from; null: the process's own stream.
  RandomStream* random = nullptr;
};

// Seconds since the epoch by the real clock.
int64_t real_clock_now();
// The process's random stream, seeded from the kernel's randomness on first
// use, so every process (every node) draws its own sequence.
RandomStream& process_random();

}  // namespace kite::classad
