// The sender's own thread on the real clock: heartbeats on their period, alone when
// nothing else is queued, and a stop that does not wait out a back-off.
#include <gtest/gtest.h>

#include <chrono>

#include "agent/sender.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::Events;
using testing::FakeController;
using testing::OpenQueue;
using testing::ScratchDir;
using testing::SenderTestOptions;
using testing::UnusedPort;

TEST(Sender, HeartbeatsRideAlongAndGoAloneWhenIdle) {
  ScratchDir d;
  FakeController ctl;
  auto q = OpenQueue(d.path());
  AgentCounters counters;
  SenderOptions o = SenderTestOptions(ctl.url());
  o.heartbeat_s = 0.2;
  Sender s(o, q.get(), &counters, [] { return nlohmann::json{{"queue_events", 0}, {"version", "t"}}; });
  ASSERT_TRUE(s.Init().ok());
  s.Start();
  ASSERT_TRUE(q->Append(Events(3)).ok());
  ASSERT_TRUE(ctl.WaitFor([&] { return ctl.of_type("heartbeat").size() >= 3 && ctl.events().size() >= 6; }));
  s.Stop();
  auto hb = ctl.of_type("heartbeat");
  EXPECT_EQ(hb[0]["node"], "node-0007");
  EXPECT_EQ(hb[0]["agent"]["version"], "t");
  EXPECT_TRUE(hb[0]["at"].is_number());
  EXPECT_EQ(ctl.of_type("log").size(), 3u);
  EXPECT_EQ(q->stats().records, 0u);  // heartbeats are never queued
}

TEST(Sender, StopsPromptlyWhileBackingOff) {
  ScratchDir d;
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append(Events(1)).ok());
  AgentCounters counters;
  SenderOptions o = SenderTestOptions("http://127.0.0.1:" + std::to_string(UnusedPort()));
  o.backoff_min_s = 30;
  o.backoff_max_s = 30;
  Sender s(o, q.get(), &counters, nullptr);
  ASSERT_TRUE(s.Init().ok());
  s.Start();
  // Stopped once it has failed to connect and waits out its 30 s back-off.
  const auto failed = [&] { return counters.send_errors[static_cast<int>(SendError::kConnect)].load() > 0; };
  ASSERT_TRUE(testing::Progress().WaitUntil(failed, std::chrono::seconds(20)));
  const auto t0 = std::chrono::steady_clock::now();
  s.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(q->stats().records, 1u);
}

}  // namespace
}  // namespace aegis::agent
