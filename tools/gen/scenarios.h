// Scenario generator, part 2: the failure scenarios of issue 2, each injecting its fault
// (and the cascade it causes on every other rank) into a noisy synthetic bundle, and
// recording the verdict a correct diagnosis must reach in expected.json.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gen/cluster.h"

namespace aegis::gen {

struct GenOptions {
  std::string scenario = "xid79";
  uint64_t seed = 1;
  int hosts = 16;
  int gpus = 8;
  size_t kernel_bytes = 20000;  // noise per kernel.log
  size_t train_bytes = 40000;   // noise per train.log
  bool drop_files = true;       // drop a few random files of healthy hosts
};

// Writes the bundle (and expected.json) into `dir`; returns the bytes of logs written.
size_t GenerateBundle(const GenOptions& options, const std::string& dir);

const std::vector<std::string>& ScenarioNames();

}  // namespace aegis::gen
