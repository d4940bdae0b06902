#include "agent/log.h"

#include <cstdio>

namespace aegis::agent {

namespace {

std::mutex& SinkMutex() {
  static std::mutex mu;
  return mu;
}

std::function<void(std::string_view)>& Sink() {
  static std::function<void(std::string_view)> sink;
  return sink;
}

}  // namespace

void SetLogSink(std::function<void(std::string_view)> sink) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  Sink() = std::move(sink);
}

void Log(std::string_view message) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  if (Sink()) {
    Sink()(message);
    return;
  }
  std::fprintf(stderr, "aegis agent: %.*s\n", static_cast<int>(message.size()), message.data());
}

bool LogOnce(std::string_view key, std::string_view message) {
  static std::mutex mu;
  static std::set<std::string, std::less<>> seen;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!seen.emplace(key).second) return false;
  }
  Log(message);
  return true;
}

void LogLimiter::Log(std::string_view message) {
  const auto now = std::chrono::steady_clock::now();
  uint64_t held = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (said_ && now - last_ < interval_) {
      ++held_;
      return;
    }
    said_ = true;
    last_ = now;
    held = held_;
    held_ = 0;
  }
  if (held == 0) {
    agent::Log(message);
  } else {
    agent::Log(std::string(message) + " (" + std::to_string(held) + " similar messages held back)");
  }
}

}  // namespace aegis::agent
