// The agent's own log: one line per message on stderr (systemd puts it in the journal),
// "aegis agent: <message>". Messages that could repeat every second (a source that stays
// absent, a controller that stays down) go through LogOnce / a LogLimiter so a broken
// node does not flood its journal. Secrets (the bearer token) are never passed here.
// Thread-safe.
#pragma once
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

namespace aegis::agent {

// Where log lines go; tests replace it to look at what the agent said. Not thread-safe
// to set while the agent runs.
void SetLogSink(std::function<void(std::string_view)> sink);
void Log(std::string_view message);
// Logs `message` the first time `key` is seen in this process; false afterwards.
bool LogOnce(std::string_view key, std::string_view message);

// At most one line per `interval` for one kind of recurring problem; says how many were
// held back when it speaks again.
class LogLimiter {
 public:
  explicit LogLimiter(std::chrono::seconds interval) : interval_(interval) {}
  void Log(std::string_view message);

 private:
  std::mutex mu_;
  std::chrono::seconds interval_;
  std::chrono::steady_clock::time_point last_{};
  bool said_ = false;
  uint64_t held_ = 0;
};

}  // namespace aegis::agent
