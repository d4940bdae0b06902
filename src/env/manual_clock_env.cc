#include "env/manual_clock_env.h"

namespace aegis {

ManualClockEnv::ManualClockEnv(double epoch_seconds, Env* files) : EnvWrapper(files), epoch_(epoch_seconds) {}

double ManualClockEnv::NowEpochSeconds() {
  std::lock_guard<std::mutex> lock(mu_);
  return epoch_;
}

double ManualClockEnv::NowMonotonicSeconds() {
  std::lock_guard<std::mutex> lock(mu_);
  return monotonic_;
}

void ManualClockEnv::SleepFor(double seconds) {
  std::unique_lock<std::mutex> lock(mu_);
  if (seconds <= 0) return;
  const double deadline = monotonic_ + seconds;
  ++sleepers_;
  cv_.notify_all();
  cv_.wait(lock, [&] { return monotonic_ >= deadline; });
  --sleepers_;
  cv_.notify_all();
}

void ManualClockEnv::Advance(double seconds) {
  if (!(seconds > 0)) return;
  std::lock_guard<std::mutex> lock(mu_);
  monotonic_ += seconds;
  epoch_ += seconds;
  cv_.notify_all();
}

void ManualClockEnv::SetEpochSeconds(double epoch_seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  epoch_ = epoch_seconds;
}

size_t ManualClockEnv::sleepers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sleepers_;
}

void ManualClockEnv::WaitForSleepers(size_t n) const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return sleepers_ >= n; });
}

}  // namespace aegis
