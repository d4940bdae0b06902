// The agent's health counters, shared by its threads (relaxed atomics: each is a tally
// read by /metrics and the heartbeat, never used to synchronise anything).
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "wire/event_type.h"

namespace aegis::agent {

enum class InputKind { kKernel, kTrain, kCcl };
inline constexpr int kInputKinds = 3;
const char* InputKindName(InputKind k);

// Events queued are counted by the wire's one EventType (wire/event_type.h).
using wire::EventType;
inline constexpr int kEventTypes = static_cast<int>(wire::kEventTypes.size());

enum class SendError { kConnect, kServer, kAuth, kBackpressure, kTooLarge, kBadRequest };
inline constexpr int kSendErrors = 6;
const char* SendErrorName(SendError e);

struct AgentCounters {
  std::atomic<uint64_t> lines_read[kInputKinds] = {};
  std::atomic<uint64_t> bytes_read[kInputKinds] = {};
  std::atomic<uint64_t> events_queued[kEventTypes] = {};
  std::atomic<uint64_t> events_accepted{0};
  std::atomic<uint64_t> events_duplicate{0};
  std::atomic<uint64_t> events_rejected{0};
  std::atomic<uint64_t> events_dropped_too_large{0};
  std::atomic<uint64_t> events_dropped_bad_request{0};
  std::atomic<uint64_t> batches_sent{0};
  std::atomic<uint64_t> send_errors[kSendErrors] = {};
  std::atomic<double> last_send_ok{0};  // epoch seconds of the last 200
  std::atomic<uint64_t> rule_reloads_ok{0};
  std::atomic<uint64_t> rule_reloads_failed{0};
  std::atomic<uint64_t> cut_lines{0};
  std::atomic<uint64_t> ccl_datagrams{0};
  std::atomic<uint64_t> ccl_invalid{0};
  std::atomic<uint64_t> kmsg_lost{0};  // records overwritten in the ring before they were read
  std::atomic<uint64_t> queue_append_errors{0};
  std::atomic<bool> queue_blocked{false};  // the queue refuses events now: reading paused (/healthz says so)
  std::atomic<uint64_t> followed_files{0};
  std::atomic<bool> nvml_available{false};
  std::atomic<uint64_t> metric_samples{0};
  std::atomic<uint64_t> loop_passes{0};  // passes of the main loop begun (one that stops growing is stuck)

  void Add(std::atomic<uint64_t>& c, uint64_t n = 1) { c.fetch_add(n, std::memory_order_relaxed); }
};

}  // namespace aegis::agent
