// The defaults an evaluation without its own environment uses: the real
// clock and a random stream seeded per process.
#include "policy/classad/eval_env.h"

#include <sys/random.h>
#include <unistd.h>

#include <ctime>

namespace kite::classad {

int64_t real_clock_now() {
  return static_cast<int64_t>(std::time(nullptr));
}

RandomStream& process_random() {
  static RandomStream stream([] {
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof seed)) {
      // No kernel randomness yet: the time and the pid still differ per process.
      seed = static_cast<uint64_t>(std::time(nullptr)) * 0x9E3779B97F4A7C15ull ^
             static_cast<uint64_t>(getpid());
    }
    return seed;
  }());
  return stream;
}

}  // namespace kite::classad
