// Small hashing helpers shared by the name table (intern.cc) and the
// shared-expression table (expr_share.cc): bytes are read 8 at a time, so
// hashing a name or a string costs a few instructions per word, not per byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kite::classad::hash {

constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;

// Folds `v` into `h`; the shift brings the well-mixed high bits down to the
// low bits that index a power-of-two table.
constexpr uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * kMul;
  return h ^ (h >> 29);
}

inline uint64_t load64(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline uint64_t load32(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

// The last 1..8 bytes of a run as one word (all of them for n < 8, in an
// order that keeps different tails different for a given n).
inline uint64_t tail_word(const char* p, size_t n) {
  if (n >= 8) return load64(p + n - 8);
  if (n >= 4) return load32(p) | (load32(p + n - 4) << 32);
  if (n == 0) return 0;
  return static_cast<unsigned char>(p[0]) |
         (static_cast<uint64_t>(static_cast<unsigned char>(p[n >> 1])) << 8) |
         (static_cast<uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16);
}

// Sets bit 5 of the bytes of `w` that are ASCII 'A'..'Z' (lower-cases them)
// and leaves every other byte alone.
inline uint64_t fold_word(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  uint64_t x = w & (0x7f * kOnes);
  uint64_t ge_a = x + (0x80 - 'A') * kOnes;      // high bit: x >= 'A'
  uint64_t gt_z = x + (0x80 - 'Z' - 1) * kOnes;  // high bit: x > 'Z'
  uint64_t upper = ge_a & ~gt_z & ~w & (0x80 * kOnes);
  return w | (upper >> 2);
}

// Hash of n bytes; with `fold`, ASCII letters hash alike in either case.
inline uint64_t bytes(const char* p, size_t n, bool fold) {
  uint64_t h = (n + 1) * kMul;
  size_t len = n;
  while (n > 8) {
    uint64_t w = load64(p);
    h = mix(h, fold ? fold_word(w) : w);
    p += 8;
    n -= 8;
  }
  // The final 1..8 bytes (overlapping the previous word when len > 8).
  uint64_t w = len >= 8 ? load64(p + n - 8) : tail_word(p, n);
  return mix(h, fold ? fold_word(w) : w);
}

// Byte equality for short runs without a libc call.
inline bool equal(const char* a, const char* b, size_t n) {
  while (n > 8) {
    if (load64(a) != load64(b)) return false;
    a += 8;
    b += 8;
    n -= 8;
  }
  return tail_word(a, n) == tail_word(b, n);
}

}  // namespace kite::classad::hash
