// The configuration language's per-process random source (see random.h): a splitmix64 sequence
// whose seed comes from getrandom(2) (falling back to /dev/urandom, then to the process id).
#include "policy/config/random.h"

#include <sys/random.h>
#include <unistd.h>

#include <cstdio>

namespace kite::config {
namespace {

struct Generator {
  bool seeded = false;
  uint64_t state = 0;
};

Generator& generator() {
  static Generator g;
  return g;
}

uint64_t entropy_seed() {
  uint64_t s = 0;
  if (getrandom(&s, sizeof s, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof s)) return s;
  if (FILE* f = std::fopen("/dev/urandom", "rb")) {
    size_t n = std::fread(&s, sizeof s, 1, f);
    std::fclose(f);
    if (n == 1) return s;
  }
  // Last resort: differs between processes, if not between boots.
  return (static_cast<uint64_t>(getpid()) << 32) ^ reinterpret_cast<uintptr_t>(&s);
}

}  // namespace

uint64_t random_next() {
  Generator& g = generator();
  if (!g.seeded) random_seed(entropy_seed());
  uint64_t z = (g.state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t random_below(uint64_t n) {
  if (n == 0) return random_next();              // the whole 64-bit range
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // reject the incomplete last block
  uint64_t r;
  do {
    r = random_next();
  } while (r >= limit);
  return r % n;
}

void random_seed(uint64_t seed) {
  Generator& g = generator();
  g.state = seed;
  g.seeded = true;
}

}  // namespace kite::config
