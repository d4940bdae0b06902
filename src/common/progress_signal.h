// ProgressSignal: a component given one (AgentConfig::progress, ControllerOptions::progress)
// notifies it after each step it takes (a pass of its loop, an attempt to send), so that a
// test waits for a condition about that component, checked again after every step, instead
// of polling it on a timer. Production passes none (null): nothing is notified.
//
// Lifetime: must outlive every component given it. Threads: thread-safe; Notify is cheap
// (a lock, a counter, a wake) and called at most once per step, never per line or event.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace aegis {

class ProgressSignal {
 public:
  void Notify() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++steps_;
    }
    cv_.notify_all();
  }

  // True once `holds` returns true: it is checked now and after every Notify. False when
  // `timeout` passes first (a bound on a failing test, not a time anything waits for).
  // `holds` runs on the caller's thread, without this signal's lock.
  bool WaitUntil(const std::function<bool()>& holds, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const uint64_t seen = steps();
      if (holds()) return true;
      std::unique_lock<std::mutex> lock(mu_);
      if (!cv_.wait_until(lock, deadline, [&] { return steps_ != seen; })) {
        lock.unlock();
        return holds();
      }
    }
  }

  uint64_t steps() const {
    std::lock_guard<std::mutex> lock(mu_);
    return steps_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t steps_ = 0;
};

}  // namespace aegis
