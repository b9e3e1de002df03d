// The one checked conversion from double to integer: finite, rounded as the caller says, and
// within the caller's range, or a clear "no" (never the undefined behaviour of a bare cast).
#pragma once

#include <cmath>
#include <cstdint>

namespace kite::util {

/// How a double becomes a whole number.
enum class Round : uint8_t {
  kDown,        // floor: toward minus infinity
  kUp,          // ceil: toward plus infinity (a request of 0.5 CPU needs 1)
  kTowardZero,  // trunc: what a C cast does
  kNearest,     // half away from zero, as ClassAd round()
};

/// `v` rounded as `mode`, stored in `*out` when it is finite and lies in [lo, hi]. False (and
/// `*out` untouched) for NaN, infinities and values outside the range.
inline bool double_to_int64(double v, Round mode, int64_t lo, int64_t hi, int64_t* out) {
  if (!std::isfinite(v)) return false;
  double r = mode == Round::kDown      ? std::floor(v)
             : mode == Round::kUp      ? std::ceil(v)
             : mode == Round::kNearest ? std::round(v)
                                       : std::trunc(v);
  // [-2^63, 2^63) is exactly the doubles an int64_t holds; compare in doubles first, then in
  // integers against the caller's bounds (which a double may not represent exactly).
  if (!(r >= -9223372036854775808.0 && r < 9223372036854775808.0)) return false;
  int64_t i = static_cast<int64_t>(r);
  if (i < lo || i > hi) return false;
  *out = i;
  return true;
}

/// The same for an int.
inline bool double_to_int(double v, Round mode, int lo, int hi, int* out) {
  int64_t i;
  if (!double_to_int64(v, mode, lo, hi, &i)) return false;
  *out = static_cast<int>(i);
  return true;
}

/// For values that have a sensible saturation (times, counters): `v` rounded as `mode` and
/// clamped into [lo, hi]; NaN gives `if_nan`, +/-infinity the bound on its side.
inline int64_t double_to_int64_clamped(double v, Round mode, int64_t lo, int64_t hi,
                                       int64_t if_nan) {
  if (std::isnan(v)) return if_nan;
  int64_t i;
  if (double_to_int64(v, mode, lo, hi, &i)) return i;
  return v < static_cast<double>(lo) ? lo : hi;  // out of range: below lo or above hi
}

}  // namespace kite::util
