// Scenario generator, what a fault injector works with: the bundle being built, the
// scenario's own random stream (one per scenario and seed, so scenarios do not disturb
// each other), helpers that print lines the way each source prints them, and the
// expected verdict it records.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gen/bundle.h"

namespace aegis::gen {

class Scene {
 public:
  Scene(Bundle& bundle, uint64_t seed, uint64_t stream) : b(bundle), seed(seed), rng(stream) {}

  Bundle& b;
  const uint64_t seed;
  std::mt19937_64 rng;
  std::set<int> keep;  // hosts whose files the scenario needs (never lost at random)

  int Rand(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }
  bool Coin() { return rng() % 2 != 0; }
  double Jitter(double max) { return static_cast<double>(rng() % 1000000) / 1000000.0 * max; }
  int Hosts() const { return b.Hosts(); }
  int Gpus() const { return b.c.gpus; }
  const GenNode& N(int i) const { return b.N(i); }
  // A host other than those excluded (which must leave one).
  int Other(std::initializer_list<int> excluded);
  // Up to `count` distinct hosts outside `excluded`, fewer when the cluster is smaller.
  std::vector<int> Pick(int count, const std::set<int>& excluded);
  // The time `seconds` (scenario seconds, see Cluster::Scaled) after the fault.
  double At(double seconds) const { return b.c.fail + b.c.Scaled(seconds); }

  void Kernel(int node, double ts, const std::string& msg);
  // A line of rank (node, gpu) behind the node's launcher prefix.
  void Train(int node, int gpu, double ts, const std::string& msg);
  // The same, after NCCL's own "host:pid:tid [dev] " header.
  void NcclWarn(int node, int gpu, double ts, const std::string& msg);

  // The verdict a correct diagnosis reaches.
  void Expect(const char* action, const char* cause, const char* stage);
  void ExpectIsolate(int node, const std::string& component, const std::string& device);
  void ExpectRepair(nlohmann::json repair);
  // Which variant of a scenario this seed produced, for people reading expected.json.
  void Variant(const std::string& text) { b.expected["variant"] = text; }
};

}  // namespace aegis::gen
