// Everything read from one bundle, ready for the stages of Algorithm 1: the topology, the
// job, facts per host, and every classified log event located on the topology (host,
// GPU, NIC, remote peer). Built by CollectIncident; the stages only read it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "bundle/address_book.h"
#include "bundle/model.h"
#include "ccl/record.h"
#include "engine/verdict.h"
#include "logs/event.h"
#include "metrics/series.h"
#include "match/matcher.h"

namespace aegis {

enum class SourceKind { kKernel, kTrain, kSwitch };

struct LocatedEvent {
  LogEvent ev;
  SourceKind source = SourceKind::kKernel;
  std::string host;  // the bundle folder's host (or switch name for switch logs)
  std::string file;  // path relative to the bundle
  int node = -1;     // topology node of `host`; -1 when unknown to the topology
  int gpu = -1;      // GPU index when the line names one (PCI, rank, NCCL device)
  int nic = -1;      // local NIC index when known
  Place peer;        // the remote endpoint the line names, when it resolves
  std::string peer_text;  // as written
};

struct ProbeResult {
  std::string src, dst;
  int size = 0;
  long long sent = 0, lost = 0;
  double rtt_p50 = NAN, rtt_p99 = NAN;
  size_t index = 0;  // position in probes.json
};

struct Incident {
  std::string dir;
  Topology topology;
  Job job;
  std::vector<int> job_nodes;      // topology nodes of job.hosts (known ones)
  std::vector<char> job_node_mask;  // by topology node: 1 when it is one of job_nodes
  std::map<std::string, Facts> facts;  // by host
  std::vector<LocatedEvent> events;    // all files, each file's events in line order
  std::vector<ProbeResult> probes;
  std::vector<CclRecord> ccl;  // newest snapshot of each (communicator, rank)
  std::vector<Series> metrics;  // metrics/*.json, or fetched from Prometheus
  std::vector<std::string> missing;
  std::vector<UnreadableFile> unreadable;
  uint64_t bytes_scanned = 0;

  bool IsJobNode(int node) const;
  // A node the diagnosis may name: one of the job's hosts, or any known node when the job
  // lists none that the topology knows.
  bool InScope(int node) const { return node >= 0 && (job_nodes.empty() || IsJobNode(node)); }
};

struct CollectOptions {
  int threads = 0;  // 0: one per core
};

// Reads the bundle at `dir`. Throws BundleError when it cannot be used at all.
Incident CollectIncident(const std::string& dir, const Matcher& matcher, const CollectOptions& options);

}  // namespace aegis
