// The startd's notion of time: a Clock interface the core reads, and a VirtualClock that tests
// and `kite policy simulate` advance by hand, so every timer fires at an exact second.
#pragma once

#include <cstdint>

namespace kite::startd {

/// Seconds since the epoch, from wherever the owner says.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t now() const = 0;
};

/// A clock that only moves when told to.
class VirtualClock final : public Clock {
 public:
  explicit VirtualClock(int64_t start = 0) : now_(start) {}
  int64_t now() const override { return now_; }
  void set(int64_t t) { now_ = t; }
  void advance(int64_t secs) { now_ += secs; }

 private:
  int64_t now_;
};

}  // namespace kite::startd
