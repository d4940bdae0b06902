#include "controller/health_metrics.h"

#include <fmt/format.h>

#include <cmath>

namespace aegis::controller {

void HealthMetrics::ObserveVerdictLatency(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  size_t i = 0;
  while (i < kBuckets.size() && seconds > kBuckets[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  latency_count_.fetch_add(1, std::memory_order_relaxed);
  latency_sum_us_.fetch_add(static_cast<uint64_t>(seconds * 1e6), std::memory_order_relaxed);
}

std::string HealthMetrics::Exposition() const {
  std::string out;
  auto counter = [&](const char* name, const char* help, uint64_t v) {
    out += fmt::format("# HELP {} {}\n# TYPE {} counter\n{} {}\n", name, help, name, name, v);
  };
  auto gauge = [&](const char* name, const char* help, int64_t v) {
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n{} {}\n", name, help, name, name, v);
  };
  counter("aegis_events_ingested_total", "Events stored from agents' posts.", events_accepted.load());
  counter("aegis_events_duplicate_total", "Events posted again (same id), not stored twice.", events_duplicate.load());
  counter("aegis_events_rejected_total", "Events refused as invalid.", events_rejected.load());
  counter("aegis_events_foreign_total", "Events refused because a node's token posted them about another node.",
          events_foreign.load());
  counter("aegis_events_unknown_rule_total", "Events refused because their rule is not in the controller's catalogue.",
          events_unknown_rule.load());
  counter("aegis_events_reclassified_total",
          "Log events whose class, component or flags the controller's catalogue set otherwise than the agent had.",
          events_reclassified.load());
  counter("aegis_event_batches_foreign_total", "Event batches refused (403) because a node's token sent them as another node.",
          batches_foreign.load());
  counter("aegis_event_batches_total", "Event batches accepted.", batches.load());
  counter("aegis_backpressure_total", "Event posts answered 503 because the controller was busy.", backpressure.load());
  counter("aegis_events_decoded_total",
          "Event bodies decoded (once at ingest; again only for events another instance ingested or a rebuild reads).",
          events_decoded.load());
  counter("aegis_events_fed_total", "Events the decision loop fed into live incidents.", events_fed.load());
  counter("aegis_decision_loop_passes_total", "Passes of the decision loop (a loop that stops passing is stuck).",
          loop_passes.load());
  counter("aegis_incidents_opened_total", "Incidents opened by this instance.", incidents_opened.load());
  counter("aegis_events_pruned_total", "Events deleted by retention (--event-retention-days) while this instance led.",
          events_pruned.load());
  counter("aegis_connections_cut_total", "Connections closed because they were open longer than --client-deadline.",
          connections_cut.load());
  counter("aegis_decisions_total", "Decisions recorded by this instance.", decisions.load());
  counter("aegis_decisions_already_taken_total", "Decisions found already recorded by another instance.",
          decisions_lost.load());
  counter("aegis_decisions_held_total", "Decisions whose isolation was held for a person.", decisions_held.load());
  counter("aegis_store_errors_total", "Store calls that failed.", store_errors.load());
  gauge("aegis_live_jobs", "Jobs whose picture is kept in memory.", live_jobs.load());
  gauge("aegis_pending_incidents", "Incidents waiting for a decision.", pending_incidents.load());
  gauge("aegis_leader", "1 when this instance leads (decides), 0 on standby.", leader.load());
  out += "# HELP aegis_verdict_latency_seconds From the report that completed an incident's picture to its recorded decision.\n";
  out += "# TYPE aegis_verdict_latency_seconds histogram\n";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    cumulative += buckets_[i].load();
    out += fmt::format("aegis_verdict_latency_seconds_bucket{{le=\"{}\"}} {}\n", kBuckets[i], cumulative);
  }
  cumulative += buckets_[kBuckets.size()].load();
  out += fmt::format("aegis_verdict_latency_seconds_bucket{{le=\"+Inf\"}} {}\n", cumulative);
  out += fmt::format("aegis_verdict_latency_seconds_sum {}\n", static_cast<double>(latency_sum_us_.load()) / 1e6);
  out += fmt::format("aegis_verdict_latency_seconds_count {}\n", latency_count_.load());
  return out;
}

}  // namespace aegis::controller
