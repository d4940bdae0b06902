// Scenario generator, the table of scenarios: each a name, the kind of incident it is
// (the job's state), one line saying what goes wrong, the function that injects the fault
// (and the cascade it causes on every other rank) into a noisy synthetic bundle, and the
// verdict it expects. BuildBundle makes the in-memory bundle; GenerateBundle also writes
// it with expected.json, the verdict a correct diagnosis must reach.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gen/bundle.h"
#include "gen/scene.h"

namespace aegis::gen {

enum class ScenarioKind { kFailure, kHang, kDegradation };
const char* KindName(ScenarioKind kind);  // failure / hang / degradation

// The expected verdict's action, cause and stage; null where the seed picks a variant
// whose verdict differs (the injector records the exact verdict either way).
struct ExpectedShape {
  const char* action = nullptr;
  const char* cause = nullptr;
  const char* stage = nullptr;
};

struct ScenarioSpec {
  const char* name;
  ScenarioKind kind;
  const char* description;
  void (*inject)(Scene&);
  ExpectedShape expect;
};

const std::vector<ScenarioSpec>& Scenarios();
const ScenarioSpec* FindScenario(std::string_view name);  // null when unknown
const std::vector<std::string>& ScenarioNames();           // the table's names, in order

// A timeline other than the generator's own (a day in 2026, the fault 10 to 60 minutes in,
// ranks timing out 10 minutes later): the live stream's.
struct Timeline {
  double start = 0, fail = 0, end = 0;
  double history = 1800;  // kernel-log chatter before the start
};

struct GenOptions {
  std::string scenario = "xid79";
  uint64_t seed = 1;
  int hosts = 16;
  int gpus = 8;
  size_t kernel_bytes = 20000;  // noise per kernel.log
  size_t train_bytes = 40000;   // noise per train.log
  bool drop_files = true;       // drop a few random files of healthy hosts
  std::optional<Timeline> timeline;
};

// The bundle of a scenario, noise included, in memory. Throws std::invalid_argument for
// an unknown scenario.
Bundle BuildBundle(const GenOptions& options);

// Writes the bundle (and expected.json) into `dir`; returns the bytes of logs written.
size_t GenerateBundle(const GenOptions& options, const std::string& dir);

}  // namespace aegis::gen
