// `aegis agent`: the per-node agent. Follows the node's kernel log (/dev/kmsg, journald or
// a file), the job's log files, the CCL probe's socket and snapshot files, the RDMA
// counters, the GPUs (NVML, when present) and the node's facts; classifies log lines
// locally with the rule catalogue and ships events, not raw logs, to the controller
// through an on-disk queue (docs/agent.md).
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

#include "agent/counters.h"
#include "agent/sources/facts/facts.h"
#include "agent/sender.h"
#include "common/status.h"

namespace aegis::agent {

struct AgentConfig {
  std::string controller;                // http(s)://host:port
  std::string node;
  std::string kernel_log = "kmsg";       // kmsg | journald | none | a file
  std::vector<std::string> train_logs;   // globs
  std::string ccl_socket = "/run/aegis/ccl.sock";  // "" or none: off
  std::string ccl_dir;                   // "" : off
  std::string facts = "auto";            // auto | none | a facts.json file
  std::string state_dir = "/var/lib/aegis-agent";
  std::string metrics_listen = "127.0.0.1:9470";  // host:port ("" or none: off; port 0: any)
  std::string token;                     // bearer token
  std::string token_file;
  std::string ca_file;
  std::vector<std::string> rule_dirs;
  uint64_t queue_max_bytes = 1ull << 30;

  // Where the node's files are (tests point these at fake trees; containers at /host/...).
  FactsRoots roots;
  std::string kmsg_path = "/dev/kmsg";
  std::string boot_id_path = "/proc/sys/kernel/random/boot_id";
  std::string journalctl = "journalctl";
  std::string nvml_library = "libnvidia-ml.so.1";

  // Periods, seconds.
  double poll_s = 1;          // followed files
  double idle_flush_s = 1;    // a file idle this long: its last record is emitted
  double rotate_wait_s = 5;
  double glob_s = 10;         // globs expanded again
  double sample_s = 15;       // RDMA / GPU readings
  double metric_flush_s = 60; // metric events shipped
  double facts_s = 60;        // facts read again (shipped when they changed)
  double ccl_flush_s = 1;     // newest CCL record per (comm, rank) shipped
  double state_s = 1;         // positions persisted
  SenderOptions sender;       // controller, node, token... are filled from above
};

// Checks what a user gave (names the option on failure) and fills the defaults.
Status ValidateConfig(AgentConfig* config);

class Agent {
 public:
  explicit Agent(AgentConfig config);
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
