// What the agent stamps on its events (read_at, job) and how its sender follows the
// controller's scope: tags from the job it was told of, reports while a job runs. The whole
// agent flushing on request, on the real clock, is tests/system/agent/agent_flush_test.cc.
#include <gtest/gtest.h>

#include "agent/event_output.h"
#include "agent/sender.h"
#include "agent/tracked_stream.h"
#include "env/manual_clock_env.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::FakeController;
using testing::ScratchDir;
using testing::WriteFile;

const std::string kXid = "NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.";

TEST(Stamps, AHeldBackRecordKeepsTheTimeItsFirstLineWasRead) {
  ScratchDir d;
  VirtualLines lines(d / "lines");
  ASSERT_TRUE(lines.Load().ok());
  std::vector<TrackedEvent> got;
  TrackedLogStream s(testing::BuiltinRules()->Current(), &lines, Checkpoint());
  auto sink = [&](TrackedEvent&& t) { got.push_back(std::move(t)); };
  s.FeedBytes(kXid + "\n", sink, 100);  // held back: continuation lines may follow
  EXPECT_TRUE(got.empty());
  s.FeedBytes("step 1 done\n", sink, 200);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].read_at, 100);
  // A line begun in one read and ended in the next was read at the first; the lines the
  // second read begins, at the second.
  s.FeedBytes("Runtime", sink, 300);
  s.FeedBytes("Error: boom\n" + kXid + "\n", sink, 400);
  s.IdleFlush(sink);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1].read_at, 300);
  EXPECT_EQ(got[2].read_at, 400);
}

TEST(Stamps, EventsAreTaggedWithTheJobOfTheirReadTime) {
  AgentCounters counters;
  ManualClockEnv clock(100);
  EventOutput out(&counters, /*coalesce_logs=*/false, &clock);
  auto last = [&] { return nlohmann::json::parse(out.events().back()); };
  out.Add(EventType::kLog, R"({"id":"a","type":"log"})", 90);
  EXPECT_EQ(last()["read_at"], 90);
  EXPECT_FALSE(last().contains("job"));
  out.Add(EventType::kFacts, R"({"id":"f","type":"facts"})");  // now
  EXPECT_EQ(last()["read_at"], 100);
  // Told at 100 that job-1 runs since 50: lines read from 50 on are its.
  out.SetScope("job-1", 50);
  out.Add(EventType::kLog, R"({"id":"b"})", 40);
  EXPECT_FALSE(last().contains("job"));
  out.Add(EventType::kLog, R"({"id":"c"})", 60);
  EXPECT_EQ(last()["job"], "job-1");
  // The end is known when heard of.
  clock.SetEpochSeconds(200);
  out.SetScope("", NAN);
  EXPECT_EQ(out.JobAt(150), "job-1");
  EXPECT_EQ(out.JobAt(250), "");
  // A next job since 180 (heard at 300) takes over from its start.
  clock.SetEpochSeconds(300);
  out.SetScope("job-2", 180);
  EXPECT_EQ(out.JobAt(170), "job-1");
  EXPECT_EQ(out.JobAt(190), "job-2");
  // A window that opens later than now (clocks apart) is taken from now.
  out.SetScope("job-3", 900);
  EXPECT_EQ(out.JobAt(300), "job-3");
  std::string empty = "{}";
  StampEvent(&empty, 1.5, "j");
  EXPECT_EQ(nlohmann::json::parse(empty), (nlohmann::json{{"read_at", 1.5}, {"job", "j"}}));
}

TEST(Stamps, TheAnswersScopeIsFollowed) {
  ScratchDir d;
  FakeController ctl;
  std::unique_ptr<DiskQueue> q;
  ASSERT_TRUE(DiskQueue::Open(d.path(), {}, &q).ok());
  AgentCounters counters;
  ManualClockEnv clock(1796000123);
  SenderOptions o;
  o.controller = ctl.url();
  o.node = "node-0007";
  o.agent_id = "agent-1";
  o.heartbeat_s = 0;  // none by period: only when asked
  o.env = &clock;
  Sender s(o, q.get(), &counters, nullptr);
  std::vector<ControllerScope> seen;
  s.set_on_scope([&](const ControllerScope& sc) { seen.push_back(sc); });
  s.set_coverage([] { return 1796000123.0; });
  ASSERT_TRUE(s.Init().ok());
  EXPECT_LT(s.RunOnce(), 0);  // nothing to send, nothing asked

  ctl.set_scope({{"job", "job-7"}, {"since", 1796000000.5}, {"report_s", 1}, {"flush", nullptr}});
  ASSERT_TRUE(q->Append({R"({"id":"node-0007:t:1","type":"log"})"}).ok());
  EXPECT_EQ(s.RunOnce(), 0);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].job, "job-7");
  EXPECT_EQ(seen[0].since, 1796000000.5);
  EXPECT_EQ(seen[0].report_s, 1);
  EXPECT_TRUE(std::isnan(seen[0].flush));
  // While the job runs: a post every report_s, empty when nothing is queued.
  EXPECT_LT(s.RunOnce(), 0);
  clock.Advance(1);
  const size_t before = ctl.requests();
  EXPECT_EQ(s.RunOnce(), 0);
  EXPECT_EQ(ctl.requests(), before + 1);
  EXPECT_EQ(ctl.batch_sizes().back(), 0u);
  // Asked to flush: the agent calls HeartbeatNow once it has; the heartbeat goes at once.
  s.HeartbeatNow();
  EXPECT_EQ(s.RunOnce(), 0);
  ASSERT_EQ(ctl.of_type("heartbeat").size(), 1u);
  EXPECT_EQ(ctl.of_type("heartbeat")[0]["at"], 1796000123.0);
  EXPECT_EQ(s.acked_heartbeat_at(), 1796000123.0);
  // No job any more: back to posting only what there is.
  ctl.set_scope({{"job", nullptr}, {"since", nullptr}, {"report_s", nullptr}, {"flush", nullptr}});
  clock.Advance(1);
  EXPECT_EQ(s.RunOnce(), 0);
  clock.Advance(5);
  EXPECT_LT(s.RunOnce(), 0);
  EXPECT_TRUE(seen.back().job.empty());
  // An id that is not one the controller issues is not used as a tag.
  nlohmann::json bad = {{"scope", {{"job", "a b/c"}}}};
  ControllerScope parsed;
  ASSERT_TRUE(ParseControllerScope(bad, &parsed));
  EXPECT_TRUE(parsed.job.empty());
  EXPECT_FALSE(ParseControllerScope(nlohmann::json{{"accepted", 1}}, &parsed));
}

}  // namespace
}  // namespace aegis::agent
