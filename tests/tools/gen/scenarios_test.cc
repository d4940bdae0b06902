// The scenario table and the bundle writer: every scenario writes a bundle the readers
// accept, with the verdict its table entry promises; the same seed writes the same bytes.
#include "gen/scenarios.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "bundle/bundle_reader.h"
#include "test_util.h"

namespace aegis {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::map<std::string, std::string> ReadTree(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = test::ReadFile(e.path().string());
  return out;
}

gen::GenOptions Small(const std::string& scenario, uint64_t seed, int hosts) {
  gen::GenOptions o;
  o.scenario = scenario;
  o.seed = seed;
  o.hosts = hosts;
  o.kernel_bytes = 3000;
  o.train_bytes = 6000;
  return o;
}

TEST(ScenarioTable, NamesAreUniqueAndDescribed) {
  std::set<std::string> names;
  ASSERT_EQ(gen::ScenarioNames().size(), gen::Scenarios().size());
  for (size_t i = 0; i < gen::Scenarios().size(); ++i) {
    const auto& s = gen::Scenarios()[i];
    EXPECT_EQ(gen::ScenarioNames()[i], s.name);
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_GT(std::string(s.description).size(), 20u) << s.name;
    EXPECT_NE(s.inject, nullptr);
    EXPECT_EQ(gen::FindScenario(s.name), &s);
  }
  for (const char* added : {"history_before_job", "untimed_after_stale", "incidental_edges", "noisy_straggler"})
    EXPECT_TRUE(names.count(added)) << added;
  EXPECT_EQ(gen::FindScenario("no_such_scenario"), nullptr);
  test::TempDir dir;
  EXPECT_THROW(gen::GenerateBundle(Small("no_such_scenario", 1, 4), dir.path()), std::invalid_argument);
}

TEST(ScenarioTable, SameSeedSameBytesOtherSeedOtherBundle) {
  test::TempDir a, b, c;
  for (const char* s : {"rootdiag", "compute_hang", "history_before_job", "ecn_surge"}) {
    SCOPED_TRACE(s);
    gen::GenerateBundle(Small(s, 5, 8), a.Sub(s));
    gen::GenerateBundle(Small(s, 5, 8), b.Sub(s));
    gen::GenerateBundle(Small(s, 6, 8), c.Sub(s));
    const auto first = ReadTree(a.Sub(s));
    EXPECT_EQ(first, ReadTree(b.Sub(s)));
    EXPECT_NE(first, ReadTree(c.Sub(s)));
  }
}

class EveryScenario : public ::testing::TestWithParam<std::string> {};

// The bundle is readable by the engine's own readers and expected.json says what the
// table promises, naming hosts that exist and whose files are there.
TEST_P(EveryScenario, WritesAReadableBundleWithItsExpectedVerdict) {
  const gen::ScenarioSpec& spec = *gen::FindScenario(GetParam());
  for (uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE(seed);
    test::TempDir dir;
    const size_t bytes = gen::GenerateBundle(Small(spec.name, seed, 8), dir.path());
    EXPECT_GT(bytes, 0u);

    test::CollectingReporter problems;
    Topology topo;
    Job job;
    ASSERT_TRUE(ParseTopology(test::ReadFile(dir.Sub("topology.json")), &topo, &problems).ok());
    ASSERT_TRUE(ParseJob(test::ReadFile(dir.Sub("job.json")), &job, &problems).ok());
    EXPECT_TRUE(problems.reports.empty());
    EXPECT_EQ(topo.nodes.size(), 8u);
    EXPECT_EQ(job.hosts.size(), 8u);
    EXPECT_LT(job.started_at, job.ended_at);
    const json raw_job = json::parse(test::ReadFile(dir.Sub("job.json")));
    const std::string state = raw_job["state"];
    switch (spec.kind) {
      case gen::ScenarioKind::kFailure:
        EXPECT_TRUE(state == "failed" || (spec.name == std::string("large_packet_loss") && state == "hung")) << state;
        break;
      case gen::ScenarioKind::kHang: EXPECT_EQ(state, "hung"); break;
      case gen::ScenarioKind::kDegradation: EXPECT_EQ(state, "slow"); break;
    }

    const json exp = json::parse(test::ReadFile(dir.Sub("expected.json")));
    for (const char* field : {"action", "cause", "stage"}) ASSERT_TRUE(exp[field].is_string()) << field;
    ASSERT_TRUE(exp["isolate"].is_array());
    ASSERT_TRUE(exp["repair"].is_array());
    EXPECT_EQ(exp["scenario"], spec.name);
    EXPECT_EQ(exp["seed"], seed);
    EXPECT_EQ(exp["kind"], gen::KindName(spec.kind));
    if (spec.expect.action) {
      EXPECT_EQ(exp["action"], spec.expect.action);
    }
    if (spec.expect.cause) {
      EXPECT_EQ(exp["cause"], spec.expect.cause);
    }
    if (spec.expect.stage) {
      EXPECT_EQ(exp["stage"], spec.expect.stage);
    }
    const std::string action = exp["action"];
    EXPECT_EQ(action == "isolate", !exp["isolate"].empty());
    EXPECT_EQ(action == "repair", !exp["repair"].empty());
    for (const char* list : {"isolate", "repair"})
      for (const auto& e : exp[list]) {
        const std::string host = e["host"];
        EXPECT_GE(topo.FindNode(host), 0) << host;
        // The evidence is there, unless the scenario is about a missing folder.
        if (spec.name != std::string("rootdiag_missing")) {
          EXPECT_TRUE(fs::is_directory(dir.Sub("nodes/" + host))) << host;
        }
      }
    for (const auto& e : fs::recursive_directory_iterator(dir.Sub("nodes")))
      if (e.path().filename() == "facts.json") {
        Facts facts;
        EXPECT_TRUE(ParseFacts(test::ReadFile(e.path().string()), &facts).ok());
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Generator, EveryScenario, ::testing::ValuesIn(gen::ScenarioNames()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace aegis
