// Scenario generator, the in-memory bundle: everything an incident bundle holds (the
// bundle spec: topology and job, per-node kernel and training logs, facts and CCL
// snapshots, switch logs, probes, metrics) plus the verdict a correct diagnosis reaches.
// Scenarios only add to it; BundleWriter puts it on disk at once, the live streamer line
// by line as a running cluster would. Files a collection lost are flags, not deletions, so
// every writer leaves out the same ones.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gen/cluster.h"

namespace aegis::gen {

constexpr int kPidBase = 41000;  // the training process of GPU g has pid kPidBase + g

struct NodeData {
  LogFile kernel, train;
  nlohmann::json facts;
  std::map<int, LogFile> ccl;  // per GPU: the probe's snapshot file of that GPU's process
  // Progress lines of the training noise carry a time only before this (see TrainNoise).
  double timed_noise_until = 1e300;
  bool has_folder = true, has_kernel = true, has_train = true, has_facts = true;
};

struct Bundle {
  Cluster c;
  std::string state = "failed";  // job.json's state once the job ended
  std::vector<NodeData> nodes;
  std::map<std::string, LogFile> switches;       // switches/NAME.log
  nlohmann::json probes = nlohmann::json::array();  // probes.json when not empty
  std::map<std::string, std::string> metrics;    // metrics/NAME.json bodies
  nlohmann::json expected = nlohmann::json::object();

  const GenNode& N(int i) const { return c.nodes[static_cast<size_t>(i)]; }
  NodeData& Node(int i) { return nodes[static_cast<size_t>(i)]; }
  int Hosts() const { return static_cast<int>(c.nodes.size()); }
};

// "2026-11-30T10:11:12Z"
std::string IsoTime(double epoch_seconds);
nlohmann::json TopologyJson(const Cluster& c);
// job.json; `running` leaves out ended_at and says "running" (a job still going).
nlohmann::json JobJson(const Bundle& b, bool running);
// The facts of a healthy node (ConfigCheck's vocabulary).
nlohmann::json HealthyFacts(int gpus);
// nodes/HOST/ccl/HOST-PID.jsonl of one GPU's process, relative to the bundle.
std::string CclPath(const GenNode& n, int gpu);

}  // namespace aegis::gen
