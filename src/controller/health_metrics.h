// The controller's own health, exposed at GET /metrics in the Prometheus text format:
// events ingested / duplicated / rejected, requests refused for backpressure, incidents
// opened, decisions recorded, the verdict latency (from the report that completed an
// incident's picture, or its opening, to the recorded decision) as a histogram, whether
// this instance leads, and the decision loop's backlog. Lock-free counters; thread-safe.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace aegis::controller {

class HealthMetrics {
 public:
  std::atomic<uint64_t> events_accepted{0};
  std::atomic<uint64_t> events_duplicate{0};
  std::atomic<uint64_t> events_rejected{0};
  std::atomic<uint64_t> events_foreign{0};    // refused: about another node than the posting token's
  std::atomic<uint64_t> events_unknown_rule{0};  // refused: a rule the catalogue does not have
  std::atomic<uint64_t> events_reclassified{0};  // stored with the catalogue's class, not the agent's
  std::atomic<uint64_t> batches_foreign{0};   // batches refused (403): sent as another node
  std::atomic<uint64_t> batches{0};
  std::atomic<uint64_t> backpressure{0};
  std::atomic<uint64_t> events_decoded{0};   // event bodies decoded: at ingest, and by the loop when ingest had not
  std::atomic<uint64_t> events_fed{0};       // events the decision loop read back and used
  std::atomic<uint64_t> loop_passes{0};      // decision loop passes completed (leading or not)
  std::atomic<uint64_t> incidents_opened{0};
  std::atomic<uint64_t> decisions{0};
  std::atomic<uint64_t> decisions_lost{0};   // another controller had already decided
  std::atomic<uint64_t> decisions_held{0};
  std::atomic<uint64_t> store_errors{0};
  std::atomic<uint64_t> events_pruned{0};
  std::atomic<uint64_t> connections_cut{0};   // closed at --client-deadline     // deleted by retention (--event-retention-days)
  std::atomic<int64_t> live_jobs{0};
  std::atomic<int64_t> pending_incidents{0};
  std::atomic<int> leader{0};

  void ObserveVerdictLatency(double seconds);
  // The Prometheus text exposition of everything above.
  std::string Exposition() const;

  static constexpr std::array<double, 10> kBuckets{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

 private:
  std::array<std::atomic<uint64_t>, kBuckets.size() + 1> buckets_{};  // last: +Inf
  std::atomic<uint64_t> latency_count_{0};
  std::atomic<uint64_t> latency_sum_us_{0};
};

}  // namespace aegis::controller
