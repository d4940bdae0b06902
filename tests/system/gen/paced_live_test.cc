// The live writer on the real clock (it paces itself on the wall clock, so this test waits
// on time by design): a short paced run writes the fault only after --fault-at, rotates
// the training logs, and leaves a bundle that reaches the offline bundle's verdict. The
// unpaced runs are tests/tools/gen/live_test.cc.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/verdict.h"
#include "gen/live.h"
#include "test_util.h"

namespace aegis {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json ReadJson(const std::string& path) { return json::parse(test::ReadFile(path)); }

TEST(Live, PacedRunWritesTheFaultAfterFaultAtAndReachesTheOfflineVerdict) {
  gen::GenOptions o;
  o.scenario = "xid79";
  o.seed = 4;
  o.hosts = 3;
  test::TempDir live_dir, offline_dir;
  gen::GenerateBundle(o, offline_dir.path());
  const json offline_expected = ReadJson(offline_dir.Sub("expected.json"));
  const std::string host = offline_expected["isolate"][0]["host"];

  gen::LiveOptions l;
  l.fault_at = 1.5;
  l.duration = 3;
  l.rate = 20;
  l.rotate_at = 0.7;
  std::atomic<bool> done{false};
  const auto t_start = std::chrono::steady_clock::now();
  std::thread writer([&] {
    gen::RunLive(o, l, live_dir.path());
    done = true;
  });
  bool saw_running = false, expected_early = false;
  double fault_seen_after = -1;
  const std::string kernel_log = live_dir.Sub("nodes/" + host + "/kernel.log");
  while (!done) {
    if (!saw_running && fs::exists(live_dir.Sub("job.json"))) {
      const json job = ReadJson(live_dir.Sub("job.json"));
      saw_running = job["state"] == "running" && !job.contains("ended_at");
    }
    if (fault_seen_after < 0 && fs::exists(kernel_log) &&
        test::ReadFile(kernel_log).find("GPU has fallen off the bus") != std::string::npos) {
      fault_seen_after = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
      expected_early = fs::exists(live_dir.Sub("expected.json"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // real time by design: the live writer paces itself on the wall clock
  }
  writer.join();
  EXPECT_TRUE(saw_running) << "job.json says running, without ended_at, while the job runs";
  ASSERT_GE(fault_seen_after, 0) << "the fault line never appeared while streaming";
  EXPECT_GE(fault_seen_after, l.fault_at);
  EXPECT_FALSE(expected_early) << "expected.json comes at the end";

  const json job = ReadJson(live_dir.Sub("job.json"));
  EXPECT_EQ(job["state"], "failed");
  EXPECT_TRUE(job.contains("ended_at"));
  const json live_expected = ReadJson(live_dir.Sub("expected.json"));
  for (const char* f : {"action", "cause", "stage", "isolate", "repair", "scenario", "seed", "hosts"})
    EXPECT_EQ(live_expected[f], offline_expected[f]) << f;
  for (int h = 1; h <= 3; ++h) {
    const std::string node = live_dir.Sub("nodes/node-000" + std::to_string(h));
    EXPECT_FALSE(test::ReadFile(node + "/train.log.1").empty()) << "rotated once";
    EXPECT_FALSE(test::ReadFile(node + "/train.log").empty()) << "and written on after the rotation";
  }

  // Read as a bundle, the streamed files reach the offline bundle's verdict.
  const json live_verdict = json::parse(VerdictToJson(test::Diagnose(live_dir.path())));
  const json offline_verdict = json::parse(VerdictToJson(test::Diagnose(offline_dir.path())));
  for (const char* f : {"action", "cause", "stage", "isolate", "repair"}) EXPECT_EQ(live_verdict[f], offline_verdict[f]) << f;
}

}  // namespace
}  // namespace aegis
