#include "agent/sender.h"

#include <gtest/gtest.h>

#include <set>

#include "env/fault_injection_env.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::Events;
using testing::FakeController;
using testing::OpenQueue;
using testing::ScratchDir;
using testing::UnusedPort;

SenderOptions Options(const std::string& url) { return testing::SenderTestOptions(url); }

TEST(ControllerUrl, Parses) {
  ControllerUrl u;
  ASSERT_TRUE(ParseControllerUrl("http://127.0.0.1:8470", &u).ok());
  EXPECT_EQ(u.SchemeHostPort(), "http://127.0.0.1:8470");
  ASSERT_TRUE(ParseControllerUrl("https://ctl.example/aegis/", &u).ok());
  EXPECT_EQ(u.port, 443);
  EXPECT_EQ(u.prefix, "/aegis");
  ASSERT_TRUE(ParseControllerUrl("http://[::1]:9000", &u).ok());
  EXPECT_EQ(u.host, "[::1]");
  EXPECT_EQ(u.port, 9000);
  EXPECT_FALSE(ParseControllerUrl("ftp://x", &u).ok());
  EXPECT_FALSE(ParseControllerUrl("http://:80", &u).ok());
  EXPECT_FALSE(ParseControllerUrl("http://h:0", &u).ok());
  EXPECT_FALSE(ParseControllerUrl("http://h:99999", &u).ok());
}

TEST(RetryAfter, SecondsAndHttpDates) {
  EXPECT_EQ(ParseRetryAfter("7", 0), 7.0);
  EXPECT_EQ(ParseRetryAfter(" 0 ", 0), 0.0);
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412470.0), 10.0);
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", 1445412490.0), 0.0);
  EXPECT_FALSE(ParseRetryAfter("soon", 0).has_value());
  EXPECT_FALSE(ParseRetryAfter("-3", 0).has_value());
}

TEST(Sender, AQueueThatCannotBeReadSendsNothingAndBacksOff) {
  ScratchDir d;
  FakeController ctl;
  FaultInjectionEnv faults;
  DiskQueueOptions qo;
  qo.env = &faults;
  std::unique_ptr<DiskQueue> q;
  ASSERT_TRUE(DiskQueue::Open(d.path(), qo, &q).ok());
  ASSERT_TRUE(q->Append(Events(3)).ok());
  AgentCounters counters;
  SenderOptions o = Options(ctl.url());
  o.heartbeat_s = 1e-9;  // a heartbeat is due: it must not go out over unread records
  Sender s(o, q.get(), &counters, nullptr);
  ASSERT_TRUE(s.Init().ok());
  faults.FailReads(1);
  EXPECT_GT(s.RunOnce(), 0);  // a backoff, not "nothing to send"
  EXPECT_EQ(faults.injected().reads, 1u);
  EXPECT_EQ(ctl.requests(), 0u);
  EXPECT_EQ(q->stats().records, 3u);
  EXPECT_EQ(s.RunOnce(), 0);  // the disk answers again: all of it goes, with the heartbeat
  EXPECT_EQ(ctl.requests(), 1u);
  size_t logs = 0, heartbeats = 0;
  for (const auto& e : ctl.events()) (e["type"] == "heartbeat" ? heartbeats : logs)++;
  EXPECT_EQ(logs, 3u);
  EXPECT_EQ(heartbeats, 1u);
  EXPECT_EQ(q->stats().records, 0u);
}

TEST(Sender, DeliversInOrderWithTheEnvelopeAndToken) {
  ScratchDir d;
  FakeController ctl;
  ctl.set_token("s3cret");
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append(Events(10)).ok());
  AgentCounters counters;
  SenderOptions o = Options(ctl.url());
  o.token = "s3cret";
  Sender s(o, q.get(), &counters, nullptr);
  ASSERT_TRUE(s.Init().ok());
  EXPECT_EQ(s.RunOnce(), 0);
  EXPECT_LT(s.RunOnce(), 0);  // nothing left
  auto evs = ctl.events();
  ASSERT_EQ(evs.size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(evs[static_cast<size_t>(i)]["i"], i);
  EXPECT_EQ(ctl.authorizations()[0], "Bearer s3cret");
  EXPECT_EQ(q->stats().records, 0u);
  EXPECT_EQ(counters.events_accepted.load(), 10u);
  EXPECT_GT(counters.last_send_ok.load(), 0);
}

TEST(Sender, RetriesWhileTheControllerIsDownThenDeliversOnce) {
  ScratchDir d;
  const int port = UnusedPort();
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append(Events(5)).ok());
  AgentCounters counters;
  Sender s(Options("http://127.0.0.1:" + std::to_string(port)), q.get(), &counters, nullptr);
  ASSERT_TRUE(s.Init().ok());
  double w1 = s.RunOnce(), w2 = s.RunOnce(), w3 = s.RunOnce();
  EXPECT_GT(w1, 0);
  EXPECT_GE(w3, w1);  // backing off (capped)
  (void)w2;
  EXPECT_EQ(counters.send_errors[static_cast<int>(SendError::kConnect)].load(), 3u);
  EXPECT_EQ(q->stats().records, 5u);  // nothing lost
  // The controller comes up (on another port here: a new sender with the same queue).
  FakeController ctl;
  Sender s2(Options(ctl.url()), q.get(), &counters, nullptr);
  ASSERT_TRUE(s2.Init().ok());
  EXPECT_EQ(s2.RunOnce(), 0);
  EXPECT_EQ(ctl.events().size(), 5u);
  EXPECT_EQ(q->stats().records, 0u);
}

TEST(Sender, SeveralControllersTheNextIsTriedAtOnceAndKept) {
  ScratchDir d;
  const std::string down = "http://127.0.0.1:" + std::to_string(UnusedPort());
  FakeController busy, up;
  busy.Script({{503, "30"}});  // a busy (or database-less) instance
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append(Events(3)).ok());
  AgentCounters counters;
  Sender s(Options(down + ", " + busy.url() + "," + up.url()), q.get(), &counters, nullptr);
  ASSERT_TRUE(s.Init().ok());
  EXPECT_EQ(s.RunOnce(), 0) << "the first does not answer: the next at once";
  EXPECT_EQ(s.RunOnce(), 0) << "the second is busy: the next at once, not its Retry-After";
  EXPECT_EQ(s.RunOnce(), 0);
  EXPECT_EQ(up.events().size(), 3u);
  EXPECT_TRUE(busy.events().empty());
  ASSERT_TRUE(q->Append(Events(2, 3)).ok());
  EXPECT_EQ(s.RunOnce(), 0);
  EXPECT_EQ(up.events().size(), 5u) << "it stays with the one that answered";
  // Every one fails in a row: then it waits.
  Sender all_down(Options(down + "," + down), q.get(), &counters, nullptr);
  ASSERT_TRUE(all_down.Init().ok());
  ASSERT_TRUE(q->Append(Events(1, 5)).ok());
  EXPECT_EQ(all_down.RunOnce(), 0);
  EXPECT_GT(all_down.RunOnce(), 0);
  // A list with a bad URL in it is refused whole.
  Sender bad(Options(up.url() + ",ftp://x"), q.get(), &counters, nullptr);
  EXPECT_TRUE(bad.Init().IsInvalidArgument());
}

TEST(Sender, BackpressureWaitsRetryAfter) {
  ScratchDir d;
  FakeController ctl;
  ctl.Script({{429, "3"}, {503, "1"}, {503, ""}});
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append(Events(4)).ok());
  AgentCounters counters;
  Sender s(Options(ctl.url()), q.get(), &counters, nullptr);
  ASSERT_TRUE(s.Init().ok());
  EXPECT_DOUBLE_EQ(s.RunOnce(), 3.0);
  EXPECT_DOUBLE_EQ(s.RunOnce(), 1.0);
  const double w = s.RunOnce();  // no Retry-After: backoff
  EXPECT_GT(w, 0);
  EXPECT_LT(w, 1);
  EXPECT_EQ(q->stats().records, 4u);
  EXPECT_EQ(s.RunOnce(), 0);
  EXPECT_EQ(ctl.events().size(), 4u);
  EXPECT_EQ(counters.send_errors[static_cast<int>(SendError::kBackpressure)].load(), 3u);
}

TEST(Sender, SplitsBatchesOn413AndDropsOnlyASingleEventTooLarge) {
  ScratchDir d;
  FakeController ctl;
  ctl.set_max_events(3);
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append(Events(20)).ok());
  AgentCounters counters;
  Sender s(Options(ctl.url()), q.get(), &counters, nullptr);
  ASSERT_TRUE(s.Init().ok());
  for (int i = 0; i < 40 && q->stats().records > 0; ++i) ASSERT_GE(s.RunOnce(), 0);
  EXPECT_EQ(q->stats().records, 0u);
  auto evs = ctl.events();
  ASSERT_EQ(evs.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(evs[static_cast<size_t>(i)]["i"], i);  // order kept
  for (size_t n : ctl.batch_sizes()) EXPECT_LE(n, 3u);
  EXPECT_GT(counters.send_errors[static_cast<int>(SendError::kTooLarge)].load(), 0u);
  EXPECT_EQ(counters.events_dropped_too_large.load(), 0u);

  // One event the controller refuses even alone: dropped, counted, the next one goes.
  ctl.Script({{413, ""}});
  ASSERT_TRUE(q->Append(Events(2, 100)).ok());
  SenderOptions one = Options(ctl.url());
  one.max_events = 1;
  Sender s1(one, q.get(), &counters, nullptr);
  ASSERT_TRUE(s1.Init().ok());
  EXPECT_EQ(s1.RunOnce(), 0);
  EXPECT_EQ(counters.events_dropped_too_large.load(), 1u);
  EXPECT_EQ(s1.RunOnce(), 0);
  EXPECT_EQ(ctl.events().back()["i"], 101);
}

TEST(Sender, AnEventLargerThanAnyBodyIsDroppedWithoutSending) {
  ScratchDir d;
  FakeController ctl;
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append({nlohmann::json{{"id", "big"}, {"pad", std::string(5000, 'x')}}.dump()}).ok());
  ASSERT_TRUE(q->Append(Events(1)).ok());
  AgentCounters counters;
  SenderOptions o = Options(ctl.url());
  o.max_body_bytes = 4096;
  Sender s(o, q.get(), &counters, nullptr);
  ASSERT_TRUE(s.Init().ok());
  EXPECT_EQ(s.RunOnce(), 0);
  EXPECT_EQ(ctl.requests(), 0u);
  EXPECT_EQ(counters.events_dropped_too_large.load(), 1u);
  EXPECT_EQ(s.RunOnce(), 0);
  EXPECT_EQ(ctl.events().size(), 1u);
}

TEST(Sender, BadTokenIsRetriedNeverDroppedAndTheTokenFileReadAgain) {
  ScratchDir d;
  FakeController ctl;
  ctl.set_token("new-token");
  testing::WriteFile(d / "token", "old-token\n");
  auto q = OpenQueue(d / "q");
  ASSERT_TRUE(q->Append(Events(3)).ok());
  AgentCounters counters;
  SenderOptions o = Options(ctl.url());
  o.token = "old-token";
  o.token_file = d / "token";
  Sender s(o, q.get(), &counters, nullptr);
  ASSERT_TRUE(s.Init().ok());
  EXPECT_GT(s.RunOnce(), 0);
  EXPECT_GT(s.RunOnce(), 0);
  EXPECT_EQ(q->stats().records, 3u);
  EXPECT_EQ(counters.send_errors[static_cast<int>(SendError::kAuth)].load(), 2u);
  testing::WriteFile(d / "token", "new-token\n");  // the operator rotates the token
  EXPECT_GT(s.RunOnce(), 0);                        // refused once more, then read again
  EXPECT_EQ(s.RunOnce(), 0);
  EXPECT_EQ(ctl.events().size(), 3u);
}

TEST(Sender, ResendAfterALostAnswerIsHarmless) {
  ScratchDir d;
  FakeController ctl;
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append(Events(6)).ok());
  AgentCounters counters;
  // The controller stored the batch but its answer was lost (a 502 from a proxy): the
  // batch goes again with the same ids, and the controller counts duplicates.
  Sender s(Options(ctl.url()), q.get(), &counters, nullptr);
  ASSERT_TRUE(s.Init().ok());
  ASSERT_EQ(s.RunOnce(), 0);
  ASSERT_TRUE(q->Append(Events(6)).ok());  // the same six events queued again
  ASSERT_EQ(s.RunOnce(), 0);
  EXPECT_EQ(ctl.events().size(), 6u);
  EXPECT_EQ(ctl.duplicates(), 6u);
  EXPECT_EQ(counters.events_duplicate.load(), 6u);
}

TEST(Sender, OtherClientErrorsAreRetriedNotDropped) {
  ScratchDir d;
  FakeController ctl;
  ctl.Script({{400, ""}, {404, ""}, {500, ""}});
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append(Events(2)).ok());
  AgentCounters counters;
  Sender s(Options(ctl.url()), q.get(), &counters, nullptr);
  ASSERT_TRUE(s.Init().ok());
  EXPECT_GT(s.RunOnce(), 0);
  EXPECT_GT(s.RunOnce(), 0);
  EXPECT_GT(s.RunOnce(), 0);
  EXPECT_EQ(q->stats().records, 2u);
  EXPECT_EQ(s.RunOnce(), 0);
  EXPECT_EQ(ctl.events().size(), 2u);
  EXPECT_EQ(counters.send_errors[static_cast<int>(SendError::kBadRequest)].load(), 2u);
  EXPECT_EQ(counters.send_errors[static_cast<int>(SendError::kServer)].load(), 1u);
}

TEST(Sender, AHeartbeatGoesOnlyWithTheBatchThatEmptiesTheQueue) {
  ScratchDir d;
  FakeController ctl;
  auto q = OpenQueue(d.path());
  ASSERT_TRUE(q->Append(Events(12)).ok());
  AgentCounters counters;
  SenderOptions o = Options(ctl.url());
  o.heartbeat_s = 0.001;
  o.max_events = 5;
  Sender s(o, q.get(), &counters, nullptr);
  s.set_coverage([] { return 1764497000.5; });
  ASSERT_TRUE(s.Init().ok());
  ASSERT_EQ(s.RunOnce(), 0);
  ASSERT_EQ(s.RunOnce(), 0);
  EXPECT_TRUE(ctl.of_type("heartbeat").empty());  // 2 events still behind: no promise yet
  ASSERT_EQ(s.RunOnce(), 0);
  auto hb = ctl.of_type("heartbeat");
  ASSERT_EQ(hb.size(), 1u);
  EXPECT_EQ(hb[0]["at"], 1764497000.5);  // the loop's coverage, not the clock
  EXPECT_EQ(ctl.of_type("log").size(), 12u);
}

}  // namespace
}  // namespace aegis::agent
