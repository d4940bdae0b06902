// The cluster and the job as topology.json and job.json describe them (docs/formats.md, "Incident bundle").
// Plain data; readers in bundle_reader.h fill it.
#pragma once
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "common/vocabulary.h"

namespace aegis {

struct GpuInfo {
  int index = 0;
  std::string pci;  // as the kernel prints it, e.g. "0000:18:00.0"
  std::string uuid;
};

struct NicInfo {
  std::string name;                   // "mlx5_0"
  std::string ip;
  int rail = -1;
  std::vector<std::string> switches;  // one, or two with dual-ToR
  std::vector<std::string> ports;     // the switch port of each
};

struct NodeInfo {
  std::string host;
  std::string pod;
  std::string mgmt_ip;
  std::vector<GpuInfo> gpus;
  std::vector<NicInfo> nics;
};

struct SwitchInfo {
  std::string name;
  int tier = 0;
  std::string pod;
  std::vector<std::string> uplinks;
};

struct Topology {
  std::vector<NodeInfo> nodes;
  std::vector<SwitchInfo> switches;
  // index of the node with this exact host name, or -1
  int FindNode(const std::string& host) const;
  std::map<std::string, int> by_host;  // filled by the reader
};

struct RankInfo {
  int rank = 0;
  std::string host;
  int gpu = -1;
};

struct Job {
  std::string id;
  JobState state = JobState::kFailed;
  double started_at = NAN;
  double ended_at = NAN;
  std::vector<std::string> hosts;
  std::vector<RankInfo> ranks;   // explicit placement; empty: the default rank layout
  std::vector<double> iteration_seconds;
  // Per host, a later start of the job's window than started_at: a person returned the
  // host to service while the job ran, so what it logged before is history.
  std::map<std::string, double, std::less<>> not_before;
};

// Flattened facts.json of one host: dotted keys to values as text.
using Facts = std::map<std::string, std::string>;

}  // namespace aegis
