// Decisions on live data: events posted as agents post them (from generated incidents),
// then a job's end, a hang the counters show, or a straggler; each incident decided once,
// with the verdict `aegis diagnose` reaches on the same incident's bundle.
#include <gtest/gtest.h>

#include <set>

#include <fmt/format.h>

#include "controller/iso_time.h"
#include "env/manual_clock_env.h"
#include "logs/scanner.h"
#include "wire/log_event.h"
#include "test_controller.h"

namespace aegis::controller::test {
namespace {

using nlohmann::json;

std::string EndBody(const std::string& state, double ended_at) {
  return json{{"state", state}, {"ended_at", FormatIsoTime(ended_at)}}.dump();
}

// Moves the controller's clock and wakes its loop, which then decides at the new time.
void LetTimePass(ManualClockEnv& clock, TestController& c, double seconds) {
  clock.Advance(seconds);
  c.controller().loop().Wake();
}

std::string Metric(const TestController& c, const std::string& name) {
  const std::string body = c.Get("/metrics").body;
  const size_t at = body.find("\n" + name + " ");
  if (at == std::string::npos) return "";
  const size_t from = at + name.size() + 2;
  return body.substr(from, body.find('\n', from) - from);
}

class FailedJob : public ::testing::TestWithParam<const char*> {};

TEST_P(FailedJob, DecidedOnceWithTheRightVerdict) {
  gen::Bundle b = Generate(GetParam(), 3, 8);
  TestController c;
  PostIncident(c, b);
  HttpReply end = c.Post("/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  ASSERT_EQ(end.status, 200) << end.body;
  const std::string id = end.Json()["incident"];
  json inc = WaitDecided(c, id);
  ASSERT_FALSE(inc.is_null()) << "never decided";
  EXPECT_EQ(Decisive(inc["verdict"]), Decisive(b.expected)) << inc["verdict"].dump(2);
  EXPECT_EQ(inc["trigger"], "job_failed");
  EXPECT_EQ(inc["decided_by"], "test-controller");

  // Ending it again returns the same incident; nothing is decided twice.
  HttpReply again = c.Post("/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  EXPECT_EQ(again.Json()["incident"], id);
  store::Decision d;
  d.incident = id;
  d.verdict = "{}";
  d.decided_at = WallNow();
  d.decided_by = "someone-else";
  store::DecisionOutcome outcome;
  ASSERT_TRUE(c.controller().store().RecordDecision(d, &outcome).ok());
  EXPECT_FALSE(outcome.applied);
  EXPECT_EQ(outcome.decided_by, "test-controller");
  // A critical error opened an incident while the job ran (decided at once): one decision
  // per incident of the job.
  json incidents = c.Get("/api/v1/incidents?job=" + b.c.job_id).Json();
  ASSERT_TRUE(incidents.is_array());
  const std::string decisions = std::to_string(incidents.size());
  EXPECT_TRUE(WaitFor([&] { return Metric(c, "aegis_decisions_total") == decisions; })) << Metric(c, "aegis_decisions_total");
  std::set<std::string> ids;
  size_t drains = 0;
  for (const auto& i : incidents) {
    ids.insert(i["id"].get<std::string>());
    drains += i["actions"].size();
    if (i["id"] != id) {
      EXPECT_EQ(Decisive(i["verdict"])["isolate"], Decisive(inc["verdict"])["isolate"]) << "no contradiction";
    }
  }

  // Host states follow the verdict, with their reason and incident; each drained once.
  for (const auto& entry : inc["verdict"]["isolate"]) {
    json host = c.Get("/api/v1/hosts/" + entry["host"].get<std::string>()).Json();
    EXPECT_EQ(host["state"], "isolated");
    EXPECT_TRUE(ids.count(host["incident"].get<std::string>())) << host.dump();
    EXPECT_FALSE(host["reason"].get<std::string>().empty());
  }
  std::set<std::string> taken_out;
  for (const char* list : {"isolate", "repair"})
    for (const auto& entry : inc["verdict"][list]) taken_out.insert(entry["host"].get<std::string>());
  EXPECT_EQ(drains, taken_out.size());
}

INSTANTIATE_TEST_SUITE_P(Scenarios, FailedJob,
                         ::testing::Values("xid79", "user_exception", "nic_down", "config_mismatch", "pair"),
                         [](const auto& info) { return std::string(info.param); });

TEST(Decisions, EachEventIsDecodedOnceOnItsWayToTheVerdict) {
  gen::Bundle b = Generate("xid79", 3, 8);
  TestController c;
  ASSERT_TRUE(WaitFor([&] { return c.controller().leader(); }));  // a standby keeps nothing for a loop
  PostIncident(c, b);
  HttpReply end = c.Post("/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  json inc = WaitDecided(c, end.Json()["incident"]);
  ASSERT_FALSE(inc.is_null());
  EXPECT_EQ(Decisive(inc["verdict"]), Decisive(b.expected));
  HealthMetrics& h = c.controller().health();
  ASSERT_TRUE(WaitFor([&] { return h.events_fed.load() == h.events_accepted.load(); }));
  EXPECT_GT(h.events_accepted.load(), 50u);
  EXPECT_EQ(h.events_duplicate.load() + h.events_rejected.load(), 0u);
  EXPECT_EQ(h.events_decoded.load(), h.events_accepted.load()) << "decoded at ingest, and not again by the loop";

  // An event that this instance did not ingest (another controller did) is decoded by the
  // loop, once.
  store::Event e;
  e.id = "from-another-controller";
  e.node = b.N(0).host;
  e.type = wire::EventType::kHeartbeat;
  e.at = WallNow();
  e.body = json{{"id", e.id}, {"type", "heartbeat"}, {"node", e.node}, {"at", e.at}}.dump();
  store::AppendResult appended;
  ASSERT_TRUE(c.controller().store().AppendEvents({&e, 1}, &appended).ok());
  ASSERT_EQ(appended.added, 1u);
  const uint64_t accepted = h.events_accepted.load();
  c.controller().loop().Wake();
  ASSERT_TRUE(WaitFor([&] { return h.events_fed.load() == accepted + 1; }));
  EXPECT_EQ(h.events_decoded.load(), accepted + 1);
  const std::string metric = "aegis_events_decoded_total " + std::to_string(accepted + 1) + "\n";
  EXPECT_NE(c.Get("/metrics").body.find(metric), std::string::npos);
}

TEST(Decisions, WaitsForTheAgentsThenDecidesAtOnce) {
  ControllerOptions o = TestController::Defaults();
  o.settle_s = 60;
  TestController c(o);
  gen::Bundle b = Generate("xid79", 5, 6);
  // Every agent is known (a heartbeat from before the end) ...
  for (int i = 0; i < b.Hosts(); ++i)
    ASSERT_EQ(c.Post("/api/v1/events", HeartbeatPost(b.N(i).host, WallNow() - 60, "hb0-" + b.N(i).host).body.dump()).status, 200);
  PostIncident(c, b);
  HttpReply end = c.Post("/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  const std::string id = end.Json()["incident"];
  // ... so the decision waits until each has reported since the end.
  const double after_end = WallNow() + 1;
  for (int i = 0; i + 1 < b.Hosts(); ++i)
    ASSERT_EQ(c.Post("/api/v1/events", HeartbeatPost(b.N(i).host, after_end, "hb1-" + b.N(i).host).body.dump()).status, 200);
  ASSERT_TRUE(WaitForLoopPasses(c, 2));  // the loop has seen those reports and still waits
  EXPECT_TRUE(c.Get("/api/v1/incidents/" + id).Json()["decided_at"].is_null());
  // The last report completes the picture: decided by the loop's next passes, not after
  // the 60 s settle.
  const std::string last = b.N(b.Hosts() - 1).host;
  ASSERT_EQ(c.Post("/api/v1/events", HeartbeatPost(last, after_end, "hb1-" + last).body.dump()).status, 200);
  ASSERT_TRUE(WaitForLoopPasses(c, 2));
  json inc = c.Get("/api/v1/incidents/" + id).Json();
  ASSERT_FALSE(inc["decided_at"].is_null()) << inc.dump();
  EXPECT_EQ(Decisive(inc["verdict"]), Decisive(b.expected));
}

TEST(Decisions, ASilentAgentDelaysTheDecisionOnlyUntilTheSettleTime) {
  ControllerOptions o = TestController::Defaults();
  o.settle_s = 1.5;
  TestController c(o);
  gen::Bundle b = Generate("xid79", 6, 4);
  for (int i = 0; i < b.Hosts(); ++i)
    ASSERT_EQ(c.Post("/api/v1/events", HeartbeatPost(b.N(i).host, WallNow() - 60, "hb0-" + b.N(i).host).body.dump()).status, 200);
  PostIncident(c, b);
  HttpReply end = c.Post("/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  json inc = WaitDecided(c, end.Json()["incident"], std::chrono::seconds(10));
  ASSERT_FALSE(inc.is_null());
  const std::string missing = inc["verdict"]["missing"].dump();
  EXPECT_NE(missing.find("nodes/" + b.N(0).host), std::string::npos) << missing;
  EXPECT_EQ(Decisive(inc["verdict"]), Decisive(b.expected));
}

TEST(Decisions, HangFromCountersThatStopChanging) {
  ManualClockEnv clock(WallNow());  // before the controller: outlives it
  ControllerOptions o = TestController::Defaults();
  o.hang_after_s = 1;
  o.env = &clock;
  TestController c(o);
  gen::Bundle b = Generate("compute_hang", 2, 8);
  PostIncident(c, b);  // the snapshots arrive, then nothing changes any more
  ASSERT_TRUE(WaitForLoopPasses(c, 1));  // the loop has read them (at the same time on its clock)
  EXPECT_TRUE(c.Get("/api/v1/incidents").Json().empty()) << "no hang before --hang-after";
  LetTimePass(clock, c, 1.5);
  json incidents;
  ASSERT_TRUE(WaitFor([&] {
    incidents = c.Get("/api/v1/incidents").Json();
    return incidents.size() == 1 && !incidents[0]["decided_at"].is_null();
  }, std::chrono::seconds(20))) << incidents.dump();
  json inc = c.Get("/api/v1/incidents/" + incidents[0]["id"].get<std::string>()).Json();
  EXPECT_EQ(inc["trigger"], "ccl_stall");
  EXPECT_EQ(inc["verdict"]["kind"], "hang");
  EXPECT_EQ(Decisive(inc["verdict"]), Decisive(b.expected)) << inc["verdict"].dump(2);
  // The job itself is still running: the scheduler ends it, and no second incident opens.
  EXPECT_EQ(c.Get("/api/v1/jobs/" + b.c.job_id).Json()["state"], "running");
  // The counters stay still for more than --hang-after again, and the loop looks.
  LetTimePass(clock, c, 1.5);
  ASSERT_TRUE(WaitForLoopPasses(c, 2));
  EXPECT_EQ(c.Get("/api/v1/incidents").Json().size(), 1u);
}

TEST(Decisions, RunningJobWithoutCountersIsNoHang) {
  ManualClockEnv clock(WallNow());
  ControllerOptions o = TestController::Defaults();
  o.hang_after_s = 0.5;
  o.env = &clock;
  TestController c(o);
  gen::Bundle b = Generate("user_exception", 2, 4);  // no critical error either
  SimOptions sim;
  sim.include_ccl = false;
  PostIncident(c, b, sim);
  // Past --hang-after (0.5 s) three times over, and the loop has looked since.
  LetTimePass(clock, c, 1.5);
  ASSERT_TRUE(WaitForLoopPasses(c, 2));
  EXPECT_TRUE(c.Get("/api/v1/incidents").Json().empty());
}

TEST(Decisions, StragglerOfARunningJobOpensASlowIncident) {
  ManualClockEnv clock(WallNow());
  ControllerOptions o = TestController::Defaults();
  o.slow_check_s = 0.5;
  o.env = &clock;
  TestController c(o);
  gen::Bundle b = Generate("compute_straggler", 4, 8);
  PostIncident(c, b);
  LetTimePass(clock, c, 1);  // the slow check is due
  json incidents;
  ASSERT_TRUE(WaitFor([&] {
    incidents = c.Get("/api/v1/incidents").Json();
    return incidents.size() == 1 && !incidents[0]["decided_at"].is_null();
  }, std::chrono::seconds(20))) << incidents.dump();
  json inc = c.Get("/api/v1/incidents/" + incidents[0]["id"].get<std::string>()).Json();
  EXPECT_EQ(inc["trigger"], "slow");
  EXPECT_EQ(Decisive(inc["verdict"]), Decisive(b.expected)) << inc["verdict"].dump(2);
}

TEST(Decisions, IsolationsBeyondTheShareAreHeldForAPerson) {
  ControllerOptions o = TestController::Defaults();
  o.max_isolate_share = 0.05;  // of 8 hosts: one per hour
  TestController c(o);
  gen::Bundle first = Generate("xid79", 3, 8);
  PostIncident(c, first);
  HttpReply end = c.Post("/api/v1/jobs/" + first.c.job_id + "/end", EndBody("failed", first.c.end));
  json inc = WaitDecided(c, end.Json()["incident"]);
  ASSERT_FALSE(inc.is_null());
  const std::string isolated = inc["verdict"]["isolate"][0]["host"];
  EXPECT_EQ(c.Get("/api/v1/hosts/" + isolated).Json()["state"], "isolated") << "the first isolation goes ahead";
  // The next job, a day later by its own clock, on the same hosts: another GPU.
  gen::Bundle b;
  for (uint64_t seed = 4; seed < 40; ++seed) {
    gen::GenOptions g;
    g.scenario = "xid79";
    g.seed = seed;
    g.hosts = 8;
    g.kernel_bytes = 6000;
    g.train_bytes = 12000;
    g.timeline = gen::Timeline{first.c.start + 86400, first.c.fail + 86400, first.c.end + 86400, 1800};
    b = gen::BuildBundle(g);
    if (b.expected["isolate"][0]["host"] != isolated) break;
  }
  ASSERT_NE(b.expected["isolate"][0]["host"], isolated);
  b.c.job_id += "-next";
  PostIncident(c, b);
  end = c.Post("/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  inc = WaitDecided(c, end.Json()["incident"]);
  ASSERT_FALSE(inc.is_null());
  ASSERT_EQ(inc["verdict"]["action"], "isolate");
  EXPECT_TRUE(inc["actions"].empty());
  const std::string host = inc["verdict"]["isolate"][0]["host"];
  json h = c.Get("/api/v1/hosts/" + host).Json();
  EXPECT_EQ(h["state"], "held");
  EXPECT_NE(h["reason"].get<std::string>().find("--max-isolate-share"), std::string::npos) << h.dump();
  // A person confirms: the host is isolated and its drain recorded.
  HttpReply r = c.Post("/api/v1/hosts/" + host + "/state", R"({"state": "isolated", "reason": "confirmed"})");
  EXPECT_EQ(r.Json()["state"], "isolated");
}

TEST(Decisions, DryRunChangesStatesAndMarksEveryAction) {
  ControllerOptions o = TestController::Defaults();
  o.dry_run = true;
  o.actions = {{store::ActionBackend::kSlurm, ""}};
  TestController c(o);
  gen::Bundle b = Generate("xid79", 3, 8);
  PostIncident(c, b);
  HttpReply end = c.Post("/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  json inc = WaitDecided(c, end.Json()["incident"]);
  ASSERT_FALSE(inc.is_null());
  // The drain was recorded by whichever incident took the host out (the early one here).
  json actions = json::array();
  for (const auto& i : c.Get("/api/v1/incidents?job=" + b.c.job_id).Json())
    for (const auto& a : i["actions"]) actions.push_back(a);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0]["dry_run"], true);
  EXPECT_EQ(actions[0]["backend"], "slurm");
  EXPECT_EQ(actions[0]["result"], "recorded");
  EXPECT_EQ(c.Get("/api/v1/hosts/" + inc["verdict"]["isolate"][0]["host"].get<std::string>()).Json()["state"], "isolated");
}

TEST(Decisions, ARestartedControllerResumesWithoutDecidingAgain) {
  gen::Bundle b = Generate("xid79", 9, 6);
  auto first = std::make_unique<TestController>();
  PostIncident(*first, b);
  HttpReply end = first->Post("/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  const std::string id = end.Json()["incident"];
  json decided = WaitDecided(*first, id);
  ASSERT_FALSE(decided.is_null());
  first->Shutdown();
  ControllerOptions o = TestController::Defaults();
  o.db = "sqlite:" + first->dir() + "/aegis.db";
  o.name = "second";
  TestController second(o);
  ASSERT_TRUE(WaitFor([&] { return second.Get("/healthz").Json()["leader"] == true; }));
  ASSERT_TRUE(WaitForLoopPasses(second, 2));  // as leader it has read the incident back
  json inc = second.Get("/api/v1/incidents/" + id).Json();
  EXPECT_EQ(inc["decided_by"], "test-controller");
  EXPECT_EQ(inc["decided_at"], decided["decided_at"]);
  EXPECT_EQ(Metric(second, "aegis_decisions_total"), "0");
}

TEST(Decisions, UndecidedIncidentIsResumedAfterARestart) {
  gen::Bundle b = Generate("xid79", 10, 6);
  ControllerOptions o = TestController::Defaults();
  o.settle_s = 3600;  // the first controller waits for an agent that never reports
  auto first = std::make_unique<TestController>(o);
  const std::string silent = b.N(0).host;
  ASSERT_EQ(first->Post("/api/v1/events", HeartbeatPost(silent, WallNow() - 60, "hb-old").body.dump()).status, 200);
  PostIncident(*first, b);
  HttpReply end = first->Post("/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  const std::string id = end.Json()["incident"];
  ASSERT_TRUE(WaitForLoopPasses(*first, 2));  // it has seen the job's end and still waits
  ASSERT_TRUE(first->Get("/api/v1/incidents/" + id).Json()["decided_at"].is_null());
  first->Shutdown();
  // The next one rebuilds the job's picture from the store and decides it when the agent reports.
  o.db = "sqlite:" + first->dir() + "/aegis.db";
  o.name = "second";
  TestController second(o);
  ASSERT_EQ(second.Post("/api/v1/events", HeartbeatPost(silent, WallNow() + 1, "hb-new").body.dump()).status, 200);
  json inc = WaitDecided(second, id);
  ASSERT_FALSE(inc.is_null());
  EXPECT_EQ(inc["decided_by"], "second");
  EXPECT_EQ(Decisive(inc["verdict"]), Decisive(b.expected));
}

}  // namespace
}  // namespace aegis::controller::test

namespace aegis::controller::test {
namespace {

TEST(Decisions, ANextJobOnTheSameHostsIsDecidedOnItsOwnEvents) {
  TestController c;
  gen::Bundle first = Generate("xid79", 21, 8);
  PostIncident(c, first);
  HttpReply end = c.Post("/api/v1/jobs/" + first.c.job_id + "/end", EndBody("failed", first.c.end));
  ASSERT_FALSE(WaitDecided(c, end.Json()["incident"]).is_null());
  // The same cluster a day later, another fault.
  gen::GenOptions g;
  g.scenario = "nic_down";
  g.seed = 21;
  g.hosts = 8;
  g.kernel_bytes = 6000;
  g.train_bytes = 12000;
  g.timeline = gen::Timeline{first.c.start + 86400, first.c.fail + 86400, first.c.end + 86400, 1800};
  gen::Bundle second = gen::BuildBundle(g);
  second.c.job_id += "-second";
  PostIncident(c, second);
  end = c.Post("/api/v1/jobs/" + second.c.job_id + "/end", EndBody("failed", second.c.end));
  json inc = WaitDecided(c, end.Json()["incident"]);
  ASSERT_FALSE(inc.is_null());
  EXPECT_EQ(Decisive(inc["verdict"]), Decisive(second.expected)) << inc["verdict"].dump(2);
}

}  // namespace
}  // namespace aegis::controller::test

namespace aegis::controller::test {
namespace {

TEST(Decisions, ALowConfidenceIsolationIsHeldForAPerson) {
  TestController c;  // no share limit
  gen::Bundle b = Generate("xid79", 3, 8);
  ASSERT_EQ(c.Put("/api/v1/topology", TopologyText(b)).status, 200);
  ASSERT_EQ(c.Post("/api/v1/jobs", RunningJobText(b)).status, 201);
  // One rank reports one failed completion from one peer: a single reporter of a single
  // edge, weak evidence against the pair.
  const std::string peer_ip = b.N(5).nic_ip[2];
  const std::string line = fmt::format(
      "{} {}:41000:41010 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer {}<51234> with "
      "status=12 opcode=0 len=0 vendor err 129",
      gen::IsoTime(b.c.fail + 5), b.N(1).host, peer_ip);
  Scanner scanner(ShippedMatcher(), ScanOptions{});
  std::vector<LogEvent> events;
  scanner.ScanText(line + "\n", [&](LogEvent&& ev) { events.push_back(std::move(ev)); });
  ASSERT_EQ(events.size(), 1u);
  ASSERT_EQ(events[0].line_class, LineClass::kDist);
  json ev = wire::LogEventToWire({b.N(1).host, SourceKind::kTrain, "nodes/" + b.N(1).host + "/train.log", events[0]});
  ev["id"] = "dist-1";
  HttpReply r = c.Post("/api/v1/events", json{{"node", b.N(1).host}, {"agent", "a"}, {"events", {ev}}}.dump());
  ASSERT_EQ(r.Json()["accepted"], 1) << r.body;
  HttpReply end = c.Post("/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  json inc = WaitDecided(c, end.Json()["incident"]);
  ASSERT_FALSE(inc.is_null());
  ASSERT_EQ(inc["verdict"]["action"], "isolate") << inc["verdict"].dump(2);
  ASSERT_EQ(inc["verdict"]["confidence"]["level"], "low") << inc["verdict"].dump(2);
  EXPECT_TRUE(inc["actions"].empty());
  for (const auto& entry : inc["verdict"]["isolate"]) {
    json h = c.Get("/api/v1/hosts/" + entry["host"].get<std::string>()).Json();
    EXPECT_EQ(h["state"], "held");
    EXPECT_NE(h["reason"].get<std::string>().find("confidence is low"), std::string::npos) << h.dump();
  }
}

}  // namespace
}  // namespace aegis::controller::test

namespace aegis::controller::test {
namespace {

json XidLine(const std::string& id, const std::string& node, double ts) {
  return {{"id", id},       {"type", "log"}, {"node", node}, {"source", "kernel"}, {"file", "nodes/" + node + "/kernel.log"},
          {"line", 1},      {"ts", ts},      {"rule", "xid-79"}, {"class", "critical"}, {"component", "gpu"},
          {"xid", 79},      {"text", "NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus."}};
}

size_t StoredEvents(TestController& c, const std::string& node, wire::EventType type) {
  store::EventRange range;
  range.hosts = {node};
  range.types = {type};
  std::vector<store::Event> out;
  EXPECT_TRUE(c.controller().store().EventsInRange(range, &out).ok());
  return out.size();
}

TEST(Decisions, RetentionDeletesOldEventsButNeverAFollowedJobs) {
  ManualClockEnv clock(WallNow());
  ControllerOptions o = TestController::Defaults();
  o.env = &clock;
  o.event_retention_s = 3 * 86400.0;
  o.lookback_s = 60;
  TestController c(o);
  const double t0 = clock.NowEpochSeconds();
  auto post = [&](const std::string& node, const json& events) {
    HttpReply r = c.Post("/api/v1/events", json{{"node", node}, {"agent", "a"}, {"events", events}}.dump());
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_TRUE(r.Json()["rejected"].empty()) << r.body;
  };
  // An old line and heartbeat of node-1, which no job follows...
  post("node-1", json::array({XidLine("old", "node-1", t0), {{"id", "hb"}, {"type", "heartbeat"}, {"at", t0}}}));
  // ...and, two days later, a job on node-2 that runs for days, with a line of its first day.
  LetTimePass(clock, c, 2 * 86400.0);
  const double started = clock.NowEpochSeconds();
  ASSERT_EQ(c.Post("/api/v1/jobs", json{{"id", "long-job"}, {"hosts", {"node-2"}}, {"started_at", FormatIsoTime(started)}}.dump())
                .status,
            201);
  post("node-2", json::array({XidLine("day-one", "node-2", started + 10)}));
  // Four days on: past the retention for both lines, and past the hour between two prunes.
  LetTimePass(clock, c, 4 * 86400.0);
  ASSERT_TRUE(WaitFor([&] { return StoredEvents(c, "node-1", wire::EventType::kLog) == 0; }));
  EXPECT_EQ(StoredEvents(c, "node-1", wire::EventType::kHeartbeat), 0u);
  ASSERT_TRUE(WaitForLoopPasses(c, 1));
  EXPECT_EQ(StoredEvents(c, "node-2", wire::EventType::kLog), 1u) << "the running job's evidence is kept";
  EXPECT_EQ(Metric(c, "aegis_events_pruned_total"), "2");
  // The job ends well; the next prune may take its lines too.
  ASSERT_EQ(c.Post("/api/v1/jobs/long-job/end", EndBody("done", clock.NowEpochSeconds())).status, 200);
  ASSERT_TRUE(WaitForLoopPasses(c, 2));
  LetTimePass(clock, c, 3601);
  ASSERT_TRUE(WaitFor([&] { return StoredEvents(c, "node-2", wire::EventType::kLog) == 0; }));
}

}  // namespace
}  // namespace aegis::controller::test
