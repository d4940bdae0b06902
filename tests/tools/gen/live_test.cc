// Live streams: unpaced runs (the paced run's content, no waiting) match the offline
// expected.json for every scenario and are deterministic apart from their timestamps. The
// paced run, on the real clock, is tests/system/gen/paced_live_test.cc.
#include "gen/live.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/verdict.h"
#include "test_util.h"

namespace aegis {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kStart = 1796000000;  // 2026-11-30T00:53:20Z, a fixed start for unpaced runs

gen::GenOptions Options(const std::string& scenario, uint64_t seed, int hosts) {
  gen::GenOptions o;
  o.scenario = scenario;
  o.seed = seed;
  o.hosts = hosts;
  return o;
}

json ReadJson(const std::string& path) { return json::parse(test::ReadFile(path)); }

void ExpectSameVerdictFields(const json& a, const json& b) {
  for (const char* f : {"action", "cause", "stage", "isolate", "repair", "scenario", "seed", "hosts"})
    EXPECT_EQ(a[f], b[f]) << f;
}

std::map<std::string, std::string> ReadTree(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[fs::relative(e.path(), dir).string()] = test::ReadFile(e.path().string());
  return out;
}

class LiveScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(LiveScenario, UnpacedRunHasTheOfflineExpectedVerdict) {
  const gen::GenOptions o = Options(GetParam(), 2, 6);
  test::TempDir live_dir, offline_dir;
  gen::LiveOptions l;
  l.start = kStart;
  l.paced = false;
  l.fault_at = 20;
  l.duration = 60;
  l.rate = 1;
  EXPECT_GT(gen::RunLive(o, l, live_dir.path()), 0u);
  gen::GenerateBundle(o, offline_dir.path());
  ExpectSameVerdictFields(ReadJson(live_dir.Sub("expected.json")), ReadJson(offline_dir.Sub("expected.json")));
  const json job = ReadJson(live_dir.Sub("job.json"));
  // Nothing is dated after the job's end, so a paced run lasts --duration.
  gen::Bundle b = gen::BuildBundle(gen::LiveGenOptions(o, l, kStart));
  double last = 0;
  for (auto& n : b.nodes) {
    for (const auto& line : n.kernel.Sorted()) last = std::max(last, line.ts);
    for (const auto& line : n.train.Sorted()) last = std::max(last, line.ts);
    for (auto& [gpu, f] : n.ccl)
      for (const auto& line : f.Sorted()) last = std::max(last, line.ts);
  }
  for (auto& [name, f] : b.switches)
    for (const auto& line : f.Sorted()) last = std::max(last, line.ts);
  EXPECT_LE(last, kStart + l.duration);
  EXPECT_LE(job["started_at"].get<std::string>(), gen::IsoTime(kStart));
  EXPECT_EQ(job["ended_at"], gen::IsoTime(kStart + l.duration));
}

INSTANTIATE_TEST_SUITE_P(Generator, LiveScenario, ::testing::ValuesIn(gen::ScenarioNames()),
                         [](const auto& info) { return info.param; });

TEST(Live, DeterministicApartFromTimestamps) {
  test::TempDir a, b, c;
  gen::LiveOptions l;
  l.start = kStart;
  l.paced = false;
  l.rotate_at = 5;
  const gen::GenOptions o = Options("rootdiag", 9, 5);
  gen::RunLive(o, l, a.path());
  gen::RunLive(o, l, b.path());
  EXPECT_EQ(ReadTree(a.path()), ReadTree(b.path()));
  l.start = kStart + 3 * 3600 + 17.25;
  gen::RunLive(o, l, c.path());
  const auto first = ReadTree(a.path()), shifted = ReadTree(c.path());
  ASSERT_EQ(first.size(), shifted.size());
  for (const auto& [path, text] : first) {
    ASSERT_TRUE(shifted.count(path)) << path;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), std::count(shifted.at(path).begin(), shifted.at(path).end(), '\n'))
        << path;
  }
  EXPECT_EQ(first.at("expected.json"), shifted.at("expected.json"));
}

TEST(Live, ANextJobInTheSameDirectoryRunsOnTheSameCluster) {
  test::TempDir dir;
  gen::LiveOptions l;
  l.start = kStart;
  l.paced = false;
  gen::RunLive(Options("user_exception", 7, 4), l, dir.path());
  const json first = ReadJson(dir.Sub("job.json"));
  const auto before = ReadTree(dir.path());
  l.start = kStart + 600;
  gen::RunLive(Options("xid79", 7, 4), l, dir.path());
  const json second = ReadJson(dir.Sub("job.json"));
  EXPECT_EQ(second["id"], first["id"].get<std::string>() + "-2") << "a job id of its own";
  EXPECT_EQ(second["hosts"], first["hosts"]);
  EXPECT_EQ(test::ReadFile(dir.Sub("jobs")), first["id"].get<std::string>() + "\n" + second["id"].get<std::string>() + "\n");
  // Every node's logs go on: the first job's lines are still there, before the second's.
  const auto after = ReadTree(dir.path());
  for (const auto& [path, text] : before)
    if (path.find("/kernel.log") != std::string::npos || path.find("/train.log") != std::string::npos) {
      ASSERT_TRUE(after.count(path)) << path;
      EXPECT_EQ(after.at(path).compare(0, text.size(), text), 0) << path;
      EXPECT_GT(after.at(path).size(), text.size()) << path;
    }
  EXPECT_EQ(ReadJson(dir.Sub("expected.json"))["action"], "isolate");
}

TEST(Live, RejectsOptionsThatCannotRun) {
  test::TempDir dir;
  gen::LiveOptions l;
  l.paced = false;
  l.fault_at = 10;
  l.duration = 5;
  EXPECT_THROW(gen::RunLive(Options("xid79", 1, 3), l, dir.path()), std::invalid_argument);
  l.duration = 20;
  EXPECT_THROW(gen::RunLive(Options("no_such", 1, 3), l, dir.path()), std::invalid_argument);
}

}  // namespace
}  // namespace aegis
