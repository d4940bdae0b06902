// An incident: everything known about one job's failure, ready for the stages of the
// algorithm: the topology, the job, facts per host, every classified log event located on
// the topology (host, GPU, NIC, remote peer) and placed against the job's time window,
// CCL counter records, metric series and network probes. Built by an IncidentBuilder
// (incident_builder.h) from any source, in any order; the stages only read it.
#pragma once
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bundle/address_book.h"
#include "bundle/model.h"
#include "ccl/record.h"
#include "engine/verdict.h"
#include "logs/event.h"
#include "metrics/series.h"

namespace aegis {

enum class SourceKind { kKernel, kTrain, kSwitch };

struct LocatedEvent {
  LogEvent ev;
  SourceKind source = SourceKind::kKernel;
  std::string host;  // the node the log came from (or the switch, for switch logs)
  std::string file;  // path relative to the bundle (nodes/HOST/kernel.log, ...)
  int node = -1;     // topology node of `host`; -1 when unknown to the topology
  int gpu = -1;      // GPU index when the line names one (PCI, rank, NCCL device)
  int nic = -1;      // local NIC index when known
  Place peer;        // the remote endpoint the line names, when it resolves
  std::string peer_text;  // as written
  // Outside the job's time window (job_window.h): history to show, never a cause.
  bool history = false;
};

struct ProbeResult {
  std::string src, dst;
  int size = 0;
  long long sent = 0, lost = 0;
  double rtt_p50 = NAN, rtt_p99 = NAN;
  size_t index = 0;  // position in probes.json
};

// Not copyable or movable: `book` refers to `topology` and `job` where they are.
struct Incident {
  Incident() = default;
  Incident(const Incident&) = delete;
  Incident& operator=(const Incident&) = delete;

  Topology topology;
  Job job;
  std::vector<int> job_nodes;       // topology nodes of job.hosts (known ones)
  std::vector<char> job_node_mask;  // by topology node: 1 when it is one of job_nodes
  std::map<std::string, Facts> facts;  // by host
  std::vector<LocatedEvent> events;    // by file, each file's events in line order
  std::vector<ProbeResult> probes;
  std::vector<CclRecord> ccl;    // newest record of each (communicator, rank)
  std::vector<Series> metrics;
  std::vector<std::string> missing;         // expected inputs that were not there
  std::vector<UnreadableFile> unreadable;   // inputs read in part or not at all, and why
  std::map<std::string, size_t> dropped_events;  // by file: events beyond the per-file cap
  uint64_t bytes_scanned = 0;
  std::unique_ptr<AddressBook> book;  // names in logs -> places of `topology` and `job`

  bool IsJobNode(int node) const {
    return node >= 0 && static_cast<size_t>(node) < job_node_mask.size() && job_node_mask[static_cast<size_t>(node)];
  }
  // A node the diagnosis may name: one of the job's hosts, or any known node when the job
  // lists none that the topology knows.
  bool InScope(int node) const { return node >= 0 && (job_nodes.empty() || IsJobNode(node)); }
  // An event that may be a cause: on the job's time window, from a node in scope (or,
  // for lines that name no node, from anywhere).
  bool MayCause(const LocatedEvent& e) const { return !e.history && (e.node < 0 || InScope(e.node)); }
};

}  // namespace aegis
