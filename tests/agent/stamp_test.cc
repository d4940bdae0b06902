// What the agent stamps on its events (read_at, job) and how it follows the controller's
// scope: tags from the job it was told of, reports while a job runs, flushes on request.
#include <gtest/gtest.h>

#include <thread>

#include "agent/agent.h"
#include "agent/event_output.h"
#include "agent/fs_util.h"
#include "agent/sender.h"
#include "agent/tracked_stream.h"
#include "env/manual_clock_env.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::AppendFile;
using testing::FakeController;
using testing::ScratchDir;
using testing::WriteFile;

const std::string kXid = "NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.";
const std::string kUser = "RuntimeError: shape '[8, 4096, 32, 128]' is invalid for input of size 67108864";

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

// The whole agent: told of a job, it tags what it reads with it; asked to flush, it emits
// the record it holds back at once (not after its idle time) and sends a heartbeat covering
// the flush time, long before its own heartbeat period, whatever its clock says.
TEST(Stamps, TheAgentFlushesWhenAskedAndTagsItsLines) {
  ScratchDir d;
  FakeController ctl;
  AgentConfig c;
  c.controller = ctl.url();
  c.node = "node-0007";
  c.kernel_log = "none";
  c.train_logs = {d / "logs/*.log"};
  c.ccl_socket = "none";
  c.facts = "none";
  c.state_dir = d / "state";
  c.metrics_listen = "none";
  c.nvml_library = "libnvidia-ml-absent.so.1";
  c.poll_s = 0.05;
  c.idle_flush_s = 60;  // a held-back record would wait a minute without the flush
  c.glob_s = 0.1;
  c.state_s = 0.1;
  c.sender.heartbeat_s = 3600;  // one at start, then only when asked
  c.sender.backoff_min_s = 0.05;
  c.progress = &testing::Progress();
  ASSERT_TRUE(ValidateConfig(&c).ok());
  ctl.set_scope({{"job", "job-9"}, {"since", Env::Default()->NowEpochSeconds() - 60}, {"report_s", 0.1}, {"flush", nullptr}});
  WriteFile(d / "logs/rank0.log", "");
  Agent agent(c);
  ASSERT_TRUE(agent.Start().ok());
  std::thread loop([&] { agent.Run(); });
  EXPECT_TRUE(ctl.WaitFor([&] { return !ctl.of_type("heartbeat").empty(); }, 5));
  AppendFile(d / "logs/rank0.log", kUser + "\n");
  const auto& read = agent.counters().lines_read[static_cast<int>(InputKind::kTrain)];
  EXPECT_TRUE(ctl.WaitFor([&] { return read.load() >= 1; }, 5));
  EXPECT_TRUE(ctl.of_type("log").empty()) << "held back for continuation lines";
  // The controller's clock runs 30 s ahead of this host's: the flush covers its time anyway
  // (the agent heard of it only after it).
  const double flush_at = Env::Default()->NowEpochSeconds() + 30;
  ctl.set_scope({{"job", "job-9"}, {"since", flush_at - 90}, {"report_s", 0.1}, {"flush", flush_at}});
  EXPECT_TRUE(ctl.WaitFor([&] {
    for (const auto& hb : ctl.of_type("heartbeat"))
      if (hb["at"].get<double>() >= flush_at) return true;
    return false;
  }, 5));
  const auto logs = ctl.of_type("log");
  ASSERT_EQ(logs.size(), 1u) << "sent before the heartbeat that covers it";
  EXPECT_EQ(logs[0]["job"], "job-9");
  EXPECT_LT(logs[0]["read_at"].get<double>(), flush_at);
  agent.Stop();
  loop.join();
}

}  // namespace
}  // namespace aegis::agent
