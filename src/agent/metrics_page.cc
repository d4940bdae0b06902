#include "agent/metrics_page.h"

#include <unistd.h>

#include "agent/fs_util.h"
#include "common/text.h"

namespace aegis::agent {

namespace {

void ProcessMetrics(const std::string& proc_self, PromText* p) {
  std::string stat;
  if (ReadSysFile(proc_self + "/stat", &stat, 4096)) {
    // Fields after the command (which may hold spaces) in parentheses.
    const size_t close = stat.rfind(')');
    if (close != std::string::npos) {
      auto f = Split(std::string_view(stat).substr(close + 2), ' ');
      // f[0] is field 3 (state); utime 14, stime 15, starttime 22, rss 24.
      if (f.size() > 22) {
        const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
        const auto ut = ParseInt(f[11]), st = ParseInt(f[12]), rss = ParseInt(f[21]);
        if (ut && st && tick > 0) {
          p->Family("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.");
          p->Sample("process_cpu_seconds_total", {}, static_cast<double>(*ut + *st) / tick);
        }
        if (rss) {
          p->Family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
          p->Sample("process_resident_memory_bytes", {}, static_cast<uint64_t>(*rss) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)));
        }
      }
    }
  }
  const auto fds = ListDir(proc_self + "/fd");
  if (!fds.empty()) {
    p->Family("process_open_fds", "gauge", "Number of open file descriptors.");
    p->Sample("process_open_fds", {}, static_cast<uint64_t>(fds.size()));
  }
}

uint64_t Get(const std::atomic<uint64_t>& a) { return a.load(std::memory_order_relaxed); }

}  // namespace

std::string RenderMetrics(const MetricsContext& m) {
  PromText p;
  const AgentCounters& c = *m.counters;
  const double now = (m.env ? m.env : Env::Default())->NowEpochSeconds();
  p.Family("aegis_agent_info", "gauge", "The agent: version, node and instance id (value 1).");
  p.Sample("aegis_agent_info", {{"version", m.version}, {"node", m.node_name}, {"instance", m.instance}}, uint64_t{1});
  p.Family("aegis_agent_start_time_seconds", "gauge", "When the agent started, seconds since the epoch.");
  p.Sample("aegis_agent_start_time_seconds", {}, m.started_at);

  p.Family("aegis_agent_lines_read_total", "counter", "Lines read per input (kernel log, job logs, CCL records).");
  for (int k = 0; k < kInputKinds; ++k)
    p.Sample("aegis_agent_lines_read_total", {{"source", InputKindName(static_cast<InputKind>(k))}}, Get(c.lines_read[k]));
  p.Family("aegis_agent_read_bytes_total", "counter", "Bytes read per input.");
  for (int k = 0; k < kInputKinds; ++k)
    p.Sample("aegis_agent_read_bytes_total", {{"source", InputKindName(static_cast<InputKind>(k))}}, Get(c.bytes_read[k]));
  p.Family("aegis_agent_cut_lines_total", "counter", "Log lines longer than 1 MiB, cut (their head is still matched).");
  p.Sample("aegis_agent_cut_lines_total", {}, Get(c.cut_lines));
  p.Family("aegis_agent_followed_files", "gauge", "Files followed now (kernel log file, job logs, CCL snapshot files).");
  p.Sample("aegis_agent_followed_files", {}, Get(c.followed_files));
  p.Family("aegis_agent_kmsg_lost_records_total", "counter", "Kernel log records overwritten in the ring buffer before they were read.");
  p.Sample("aegis_agent_kmsg_lost_records_total", {}, Get(c.kmsg_lost));
  p.Family("aegis_agent_ccl_datagrams_total", "counter", "Datagrams received on the CCL probe socket.");
  p.Sample("aegis_agent_ccl_datagrams_total", {}, Get(c.ccl_datagrams));
  p.Family("aegis_agent_ccl_invalid_records_total", "counter", "CCL records that were not valid probe records (skipped).");
  p.Sample("aegis_agent_ccl_invalid_records_total", {}, Get(c.ccl_invalid));
  p.Family("aegis_agent_metric_samples_total", "counter", "Node counter readings taken (RDMA, GPU).");
  p.Sample("aegis_agent_metric_samples_total", {}, Get(c.metric_samples));
  p.Family("aegis_agent_nvml_available", "gauge", "1 when NVML was loaded and GPU readings are taken.");
  p.Sample("aegis_agent_nvml_available", {}, uint64_t{c.nvml_available.load() ? 1u : 0u});

  p.Family("aegis_agent_events_queued_total", "counter", "Events put into the on-disk queue, per type.");
  for (int t = 0; t < kEventTypes; ++t) {
    const EventType type = wire::kEventTypes[static_cast<size_t>(t)];
    if (type == EventType::kHeartbeat || type == EventType::kProbe) continue;  // never queued by the agent
    p.Sample("aegis_agent_events_queued_total", {{"type", std::string(wire::ToString(type))}}, Get(c.events_queued[t]));
  }
  p.Family("aegis_agent_events_shipped_total", "counter", "Events the controller accepted (duplicates included).");
  p.Sample("aegis_agent_events_shipped_total", {}, Get(c.events_accepted));
  p.Family("aegis_agent_events_duplicate_total", "counter", "Events the controller already had (a resend).");
  p.Sample("aegis_agent_events_duplicate_total", {}, Get(c.events_duplicate));
  p.Family("aegis_agent_events_rejected_total", "counter", "Events the controller rejected (logged, not resent).");
  p.Sample("aegis_agent_events_rejected_total", {}, Get(c.events_rejected));
  p.Family("aegis_agent_events_dropped_total", "counter", "Events dropped by the agent, per reason.");
  const DiskQueueStats qs = m.queue ? m.queue->stats() : DiskQueueStats();
  p.Sample("aegis_agent_events_dropped_total", {{"reason", "queue_full"}}, qs.dropped_records);
  p.Sample("aegis_agent_events_dropped_total", {{"reason", "queue_damaged"}}, qs.corrupt_records);
  p.Sample("aegis_agent_events_dropped_total", {{"reason", "too_large"}}, Get(c.events_dropped_too_large));

  p.Family("aegis_agent_queue_events", "gauge", "Events in the on-disk queue, not yet accepted by the controller.");
  p.Sample("aegis_agent_queue_events", {}, qs.records);
  p.Family("aegis_agent_queue_bytes", "gauge", "Bytes of the on-disk queue not yet accepted.");
  p.Sample("aegis_agent_queue_bytes", {}, qs.bytes);
  p.Family("aegis_agent_queue_limit_bytes", "gauge", "Bound of the on-disk queue; past it the oldest events are dropped.");
  p.Sample("aegis_agent_queue_limit_bytes", {}, m.queue_limit_bytes);
  p.Family("aegis_agent_queue_oldest_age_seconds", "gauge", "Age of the oldest queued event (0 when the queue is empty): the shipping lag.");
  p.Sample("aegis_agent_queue_oldest_age_seconds", {}, qs.OldestAgeSeconds(now));
  p.Family("aegis_agent_queue_append_errors_total", "counter", "Failed writes to the on-disk queue (retried).");
  p.Sample("aegis_agent_queue_append_errors_total", {}, Get(c.queue_append_errors));
  p.Family("aegis_agent_queue_blocked", "gauge", "1 while the on-disk queue refuses events (full or failing disk): reading is paused.");
  p.Sample("aegis_agent_queue_blocked", {}, uint64_t{c.queue_blocked.load(std::memory_order_relaxed) ? 1u : 0u});

  p.Family("aegis_agent_send_batches_total", "counter", "Requests sent to the controller.");
  p.Sample("aegis_agent_send_batches_total", {}, Get(c.batches_sent));
  p.Family("aegis_agent_send_errors_total", "counter", "Requests that failed, per reason (all retried but too_large splits).");
  for (int e = 0; e < kSendErrors; ++e)
    p.Sample("aegis_agent_send_errors_total", {{"reason", SendErrorName(static_cast<SendError>(e))}}, Get(c.send_errors[e]));
  p.Family("aegis_agent_last_successful_send_timestamp_seconds", "gauge", "When the controller last accepted a request (0: never).");
  p.Sample("aegis_agent_last_successful_send_timestamp_seconds", {}, c.last_send_ok.load(std::memory_order_relaxed));

  p.Family("aegis_agent_rule_reloads_total", "counter", "Rule reloads (SIGHUP), per result.");
  p.Sample("aegis_agent_rule_reloads_total", {{"result", "ok"}}, Get(c.rule_reloads_ok));
  p.Sample("aegis_agent_rule_reloads_total", {{"result", "error"}}, Get(c.rule_reloads_failed));
  p.Family("aegis_agent_loop_passes_total", "counter", "Passes of the agent's main loop (one that stops growing is stuck).");
  p.Sample("aegis_agent_loop_passes_total", {}, Get(c.loop_passes));

  ProcessMetrics(m.proc_self, &p);
  if (m.sources) m.sources->Render(&p);
  return p.str();
}

}  // namespace aegis::agent
