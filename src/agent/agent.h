// `aegis agent`: the per-node agent. Its inputs are sources (source.h), one folder each
// under sources/, built by name from the config through the registry
// (source_registry.h): the kernel log (/dev/kmsg, journald or a file), the job's log
// files, the CCL probe's socket and snapshot files, the RDMA counters and GPUs, the node's
// facts. Log lines are classified locally with the rule catalogue; events, not raw logs,
// go to the controller through an on-disk queue (docs/agent.md).
//
// Threads: the loop (Run(): every source, one poll() with a timeout of at most a second,
// so an idle agent wakes about once a second), the sender (Sender), and the metrics
// server (an httplib::Server with one worker). Order of durability in the loop: events
// are appended to the queue (fdatasync) before the positions of the sources that made
// them are persisted (state.json, at most once a second), so a crash re-reads lines at
// worst, and their events carry the same ids. Stop() and ReloadRules() only set a flag and
// write to an eventfd: they may be called from a signal handler.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "agent/agent_config.h"
#include "agent/counters.h"
#include "agent/sender.h"
#include "common/status.h"

namespace aegis::agent {


// Checks what a user gave (names the option on failure) and fills the defaults.
Status ValidateConfig(AgentConfig* config);

class SourceRegistry;

class Agent {
 public:
  // `registry`: where the sources come from (null: SourceRegistry::Builtin()); it
  // outlives Start().
  explicit Agent(AgentConfig config, const SourceRegistry* registry = nullptr);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Opens the state directory, the queue and every source, starts the sender and the
  // metrics server. FailedPrecondition when another agent holds the state directory,
  // InvalidArgument for broken rules, IOError when the state cannot be used.
  Status Start();
  // The loop, until Stop(); then the sources are flushed, their positions persisted, and
  // the sender stopped.
  void Run();
  void Stop();         // async-signal-safe
  void ReloadRules();  // async-signal-safe

  int metrics_port() const { return metrics_port_; }
  const AgentCounters& counters() const { return counters_; }
  std::string MetricsText() const;
  const std::string& instance() const { return instance_; }

 private:
  struct Impl;
  AgentConfig config_;
  const SourceRegistry* registry_;
  AgentCounters counters_;
  std::string instance_;
  int metrics_port_ = 0;
  int wake_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<double> covered_at_{0};  // epoch: every line read before it is queued (heartbeats)
  std::atomic<bool> reload_{false};
  std::unique_ptr<Impl> impl_;
};

}  // namespace aegis::agent
