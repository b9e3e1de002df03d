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

/// Routes the ClassAd time() function (and CurrentTime) to `clock`; null restores the real clock.
void clock_install(const Clock* clock);

/// Installs `clock` for as long as it lives and restores the real clock when it goes, also when
/// a test returns early on a failed ASSERT.
class ScopedClockInstall {
 public:
  explicit ScopedClockInstall(const Clock* clock) { clock_install(clock); }
  ~ScopedClockInstall() { clock_install(nullptr); }
  ScopedClockInstall(const ScopedClockInstall&) = delete;
  ScopedClockInstall& operator=(const ScopedClockInstall&) = delete;
};

}  // namespace kite::startd
