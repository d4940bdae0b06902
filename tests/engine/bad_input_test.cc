// Bad input never crashes and loses nothing: unusable bundles fail with a clear error,
// anything else yields a verdict from what remains and lists what could not be read.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bundle/bundle_reader.h"
#include "engine/engine.h"
#include "gen/scenarios.h"
#include "sources/bundle_source.h"
#include "test_util.h"

namespace aegis {
namespace {

using nlohmann::json;

std::string MakeBundle(const test::TempDir& dir, const std::string& scenario, uint64_t seed = 2) {
  gen::GenOptions o;
  o.scenario = scenario;
  o.seed = seed;
  o.hosts = 8;
  o.kernel_bytes = 4000;
  o.train_bytes = 8000;
  o.drop_files = false;
  gen::GenerateBundle(o, dir.path());
  json exp = json::parse(test::ReadFile(dir.Sub("expected.json")));
  return exp["isolate"].empty() ? std::string() : exp["isolate"][0]["host"].get<std::string>();
}

Verdict DiagnoseDir(const test::TempDir& dir) { return test::Diagnose(dir.path()); }

TEST(BadInput, UnusableBundlesFailWithClearErrors) {
  test::TempDir dir;
  Verdict v;
  EXPECT_TRUE(DiagnoseBundle(dir.Sub("nope"), test::ShippedMatcher(), {}, &v).IsNotFound());
  Status empty = DiagnoseBundle(dir.path(), test::ShippedMatcher(), {}, &v);  // no topology.json
  EXPECT_TRUE(empty.IsNotFound());
  EXPECT_NE(empty.message().find("topology.json"), std::string::npos);
  test::WriteFile(dir.Sub("topology.json"), "{\"nodes\": [");
  test::WriteFile(dir.Sub("job.json"), "{}");
  Status bad = DiagnoseBundle(dir.path(), test::ShippedMatcher(), {}, &v);
  EXPECT_TRUE(bad.IsInvalidArgument());
  EXPECT_NE(bad.message().find("topology.json"), std::string::npos);
}

TEST(BadInput, EmptyAndMissingLogsStillDecide) {
  test::TempDir dir;
  const std::string culprit = MakeBundle(dir, "xid79");
  // Empty every other host's files, delete some.
  for (const auto& d : std::filesystem::directory_iterator(dir.Sub("nodes"))) {
    if (d.path().filename() == culprit) continue;
    test::WriteFile((d.path() / "train.log").string(), "");
    std::filesystem::remove(d.path() / "kernel.log");
  }
  Verdict v = DiagnoseDir(dir);
  EXPECT_EQ(ToString(v.action), "isolate");
  ASSERT_EQ(v.isolate.size(), 1u);
  EXPECT_EQ(v.isolate[0].host, culprit);
  EXPECT_EQ(v.missing.size(), 7u);  // the deleted kernel logs
}

TEST(BadInput, GarbageHugeLinesInvalidUtf8AndTruncatedJson) {
  test::TempDir dir;
  const std::string culprit = MakeBundle(dir, "dbe");
  std::string garbage;
  for (int i = 0; i < (1 << 20); ++i) garbage.push_back(static_cast<char>((i * 131 + 7) % 256));
  std::string huge(10u << 20, 'x');
  int k = 0;
  for (const auto& d : std::filesystem::directory_iterator(dir.Sub("nodes"))) {
    if (d.path().filename() == culprit) {
      // The culprit's own kernel log: a 10 MB line and invalid UTF-8 before the evidence.
      std::string kernel = test::ReadFile((d.path() / "kernel.log").string());
      test::WriteFile((d.path() / "kernel.log").string(), huge + "\n\xff\xfe\xc0 bad bytes\n" + kernel);
      continue;
    }
    switch (k++ % 3) {
      case 0: test::WriteFile((d.path() / "train.log").string(), garbage); break;
      case 1: test::WriteFile((d.path() / "facts.json").string(), "{\"gpu\": {\"count\": 8"); break;
      default: test::WriteFile((d.path() / "kernel.log").string(), std::string("\0\0\0\n", 4) + huge);
    }
  }
  test::WriteFile(dir.Sub("probes.json"), "[{\"src\": \"10.1.0.1\", \"dst\"");
  Verdict v = DiagnoseDir(dir);
  EXPECT_EQ(ToString(v.action), "isolate");
  ASSERT_EQ(v.isolate.size(), 1u);
  EXPECT_EQ(v.isolate[0].host, culprit);
  bool facts = false, probes = false, cut = false;
  for (const auto& u : v.unreadable) {
    facts |= u.file.find("facts.json") != std::string::npos;
    probes |= u.file == "probes.json";
    cut |= u.reason.find("longer than") != std::string::npos;
  }
  EXPECT_TRUE(facts);
  EXPECT_TRUE(probes);
  EXPECT_TRUE(cut);
  json j = json::parse(VerdictToJson(v));  // valid JSON, valid UTF-8
  EXPECT_EQ(j["action"], "isolate");
}

TEST(BadInput, HostsUnknownToTopologyAreReadButNeverIsolated) {
  test::TempDir dir;
  MakeBundle(dir, "no_signal");
  test::WriteFile(dir.Sub("nodes/stranger-01/kernel.log"),
                  "[ 5.0] NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.\n");
  Verdict v = DiagnoseDir(dir);
  EXPECT_TRUE(v.isolate.empty());
  EXPECT_EQ(ToString(v.action), "offline");
  bool listed = false;
  for (const auto& u : v.unreadable) listed |= u.file == "nodes/stranger-01";
  EXPECT_TRUE(listed);
}

TEST(BadInput, JobHostsMissingFromTopology) {
  test::TempDir dir;
  MakeBundle(dir, "no_signal");
  json job = json::parse(test::ReadFile(dir.Sub("job.json")));
  job["hosts"].push_back("ghost-9");
  job["ranks"] = "not a list";
  test::WriteFile(dir.Sub("job.json"), job.dump());
  Verdict v = DiagnoseDir(dir);
  EXPECT_EQ(ToString(v.action), "offline");
  EXPECT_FALSE(v.unreadable.empty());
}


// A start time that is not a time is a problem of the bundle, said as such; without a
// window the verdict does not claim one, and a week-old critical line is trusted less.
TEST(BadInput, AnUnreadableStartTimeIsReportedAndTheVerdictHasNoWindow) {
  test::TempDir dir;
  const std::string culprit = MakeBundle(dir, "xid79");
  json job = json::parse(test::ReadFile(dir.Sub("job.json")));
  job["started_at"] = "2026/11/30 14:50";
  test::WriteFile(dir.Sub("job.json"), job.dump());
  Verdict v = DiagnoseDir(dir);
  bool reported = false;
  for (const auto& u : v.unreadable)
    reported |= u.file == "job.json" && u.reason.find("started_at") != std::string::npos &&
                u.reason.find("2026/11/30 14:50") != std::string::npos;
  EXPECT_TRUE(reported);
  EXPECT_EQ(ToString(v.action), "isolate");
  EXPECT_NE(v.confidence.level, Strength::kHigh);
  EXPECT_EQ(v.confidence.basis.find("within the job's time window"), std::string::npos) << v.confidence.basis;
  EXPECT_NE(v.confidence.basis.find("no time window"), std::string::npos) << v.confidence.basis;

  job["started_at"] = json::array({1, 2});
  test::WriteFile(dir.Sub("job.json"), job.dump());
  v = DiagnoseDir(dir);
  reported = false;
  for (const auto& u : v.unreadable) reported |= u.file == "job.json" && u.reason.find("started_at") != std::string::npos;
  EXPECT_TRUE(reported);
}

// A slow job with nothing to compare its hosts by (no probe counters, no metrics, no
// critical line) is none, with what was missing: never offline for every host.
TEST(BadInput, ASlowJobWithNothingToGoOnIsNeverSentOfflineWhole) {
  test::TempDir dir;
  MakeBundle(dir, "no_signal");
  json job = json::parse(test::ReadFile(dir.Sub("job.json")));
  job["state"] = "slow";
  test::WriteFile(dir.Sub("job.json"), job.dump());
  Verdict v = DiagnoseDir(dir);
  EXPECT_EQ(ToString(v.action), "none");
  EXPECT_TRUE(v.offline.empty());
  EXPECT_EQ(v.confidence.level, Strength::kLow);
  EXPECT_NE(v.summary.find("nothing to compare"), std::string::npos) << v.summary;
}

}  // namespace
}  // namespace aegis
