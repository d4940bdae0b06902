// ManualClockEnv: an Env whose clocks stand still until the test moves them (Advance,
// SetEpochSeconds); files are those of the Env it wraps. SleepFor blocks until the
// monotonic clock has been advanced past the sleeper's deadline, so code under test never
// really sleeps and a test decides exactly when each timeout fires.
//
// Lifetime: must outlive the threads that sleep on it. Threads: thread-safe; Advance wakes
// every sleeper whose deadline it reaches. WaitForSleepers lets a test wait (on a
// condition variable, no polling) until the code under test has gone to sleep, so that an
// Advance is not made before the sleep it is meant to end.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <mutex>

#include "env/env.h"

namespace aegis {

class ManualClockEnv final : public EnvWrapper {
 public:
  // Starts at wall time `epoch_seconds`, monotonic time 0; files from `files` (not owned).
  explicit ManualClockEnv(double epoch_seconds, Env* files = Env::Default());

  double NowEpochSeconds() override;
  double NowMonotonicSeconds() override;
  void SleepFor(double seconds) override;

  // Moves both clocks forward by `seconds` (> 0) and wakes the sleepers it reaches.
  void Advance(double seconds);
  // Sets the wall clock alone (it may go back, as a system's clock may be set back); the
  // monotonic clock and the sleepers are unaffected.
  void SetEpochSeconds(double epoch_seconds);
  // Threads inside SleepFor now.
  size_t sleepers() const;
  // Blocks until at least n threads are inside SleepFor.
  void WaitForSleepers(size_t n) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;  // clock moved, or a sleeper came or went
  double epoch_ = 0;
  double monotonic_ = 0;
  size_t sleepers_ = 0;
};

}  // namespace aegis
