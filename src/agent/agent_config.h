// The agent's configuration, as `aegis agent` fills it from its options (ValidateConfig in
// agent.h checks it): what the loop and every source (source.h) read. A plain value,
// copied into the Agent and read-only after Start().
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "agent/sender.h"
#include "env/env.h"

namespace aegis::agent {

// Where the node's /proc, /sys and /dev/shm are (tests point these at fake trees;
// containers at /host/...).
struct FactsRoots {
  std::string proc = "/proc";
  std::string sys = "/sys";
  std::string dev_shm = "/dev/shm";
};

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
  // Clocks and files (not owned; outlives the Agent); null: Env::Default(). Tests give a
  // ManualClockEnv to move the loop's, the sources' and the sender's clocks by hand.
  Env* env = nullptr;
  // Notified after each pass of the loop (and given to the sender): tests wait on it for a
  // condition about the agent (common/progress_signal.h). Null in production.
  ProgressSignal* progress = nullptr;
  SenderOptions sender;       // controller, node, token... are filled from above (env too)
};

// An option that turns an input or listener off: "", "none" or "off".
inline bool IsOff(const std::string& v) { return v.empty() || v == "none" || v == "off"; }

}  // namespace aegis::agent
