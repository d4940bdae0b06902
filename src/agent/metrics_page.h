// The agent's /metrics page (Prometheus text format): its own health (aegis_agent_*),
// the standard process_* metrics of the agent process, and the node counters the
// NodeSampler read (aegis_node_*). Names follow Prometheus conventions: base units,
// _total for counters, _seconds / _bytes suffixes. Thread-safe (reads atomics and
// guarded state).
#pragma once
#include <string>

#include "agent/counters.h"
#include "agent/disk_queue.h"
#include "agent/prom_text.h"
#include "agent/source_registry.h"

namespace aegis::agent {

struct MetricsContext {
  const AgentCounters* counters = nullptr;
  const DiskQueue* queue = nullptr;
  uint64_t queue_limit_bytes = 0;
  const SourceList* sources = nullptr;  // may be null: per-source metrics and their own
  std::string node_name, instance, version;
  double started_at = 0;              // epoch
  Env* env = nullptr;                 // its wall clock ages the queue (null: Env::Default())
  std::string proc_self = "/proc/self";
};

std::string RenderMetrics(const MetricsContext& m);

}  // namespace aegis::agent
