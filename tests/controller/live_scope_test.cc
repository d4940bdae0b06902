// Live incidents that see only their job and are decided while it runs, driven step by
// step: the controller in this process on a fake clock, events ingested as agents post
// them, the decision loop run one pass at a time (DecisionLoop::RunOnce). No HTTP server,
// no loop thread, no sleeping.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "controller/api_bodies.h"
#include "controller/bundle_export.h"
#include "env/manual_clock_env.h"
#include "logs/scanner.h"
#include "wire/log_event.h"
#include "test_controller.h"

namespace aegis::controller::test {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr double kT0 = 1796000000;  // 2026-12-01

// A controller with the default options (settle 10 s, --max-isolate-share 0.05, ...) but
// a fake clock and slow checks off.
class Live {
 public:
  explicit Live(ControllerOptions o = Options(), std::shared_ptr<store::test::ScratchDir> dir = nullptr)
      : dir_(dir ? std::move(dir) : std::make_shared<store::test::ScratchDir>()) {
    o.env = &clock_;
    o.db = "sqlite:" + dir_->path() + "/aegis.db";
    Status s = Controller::Open(o, &c_);
    if (!s.ok()) ADD_FAILURE() << s.ToString();
  }
  static ControllerOptions Options() {
    ControllerOptions o;
    o.name = "live-test";
    o.slow_check_s = 0;
    o.sqlite_sync_full = false;
    return o;
  }

  // The controller's clock, moved by the test.
  double now() { return clock_.NowEpochSeconds(); }
  void set_now(double t) { clock_.SetEpochSeconds(t); }
  Controller& c() { return *c_; }
  const std::shared_ptr<store::test::ScratchDir>& dir() const { return dir_; }

  void Topology(const gen::Bundle& b) { ASSERT_TRUE(c_->PutTopology(TopologyText(b)).ok()); }
  void StartJob(const std::string& body) {
    JobStart start;
    ASSERT_TRUE(ParseJobStart(body, now(), &start).ok()) << body;
    bool created = false;
    ASSERT_TRUE(c_->StartJob(start, &created).ok());
  }
  void StartJob(const std::string& id, const std::vector<std::string>& hosts, double started_at) {
    StartJob(json{{"id", id}, {"hosts", hosts}, {"started_at", started_at}}.dump());
  }
  IngestResult Post(const json& body) {
    EventBatch batch;
    EXPECT_TRUE(ParseEventBatch(body.dump(), {}, &batch).ok()) << body.dump();
    IngestResult r;
    EXPECT_TRUE(c_->Ingest(batch, &r).ok());
    EXPECT_TRUE(r.rejected.empty()) << (r.rejected.empty() ? "" : r.rejected[0].reason);
    return r;
  }
  void PostAll(gen::Bundle& b, const SimOptions& sim = {}) {
    for (const AgentPost& p : PostsFromBundle(b, ShippedMatcher(), sim)) Post(p.body);
  }
  IngestResult PostEvents(const std::string& node, json events) {
    return Post(json{{"node", node}, {"agent", "agent-" + node}, {"events", std::move(events)}});
  }
  void Heartbeat(const std::string& node, double at) {
    PostEvents(node, json::array({json{{"id", fmt::format("{}:hb:{}", node, n_++)}, {"type", "heartbeat"}, {"at", at}, {"agent", json::object()}}}));
  }
  std::string End(const std::string& job, const std::string& state = "failed") {
    JobEnd end;
    end.state = *ParseJobState(state);
    end.ended_at = now();
    EndJobResult out;
    EXPECT_TRUE(c_->EndJob(job, end, &out).ok());
    return out.incident;
  }
  void Run() { c_->loop().RunOnce(); }
  store::IncidentRecord Incident(const std::string& id) {
    store::IncidentRecord inc;
    EXPECT_TRUE(c_->store().GetIncident(id, &inc).ok()) << id;
    return inc;
  }
  json Verdict(const std::string& id) { return json::parse(Incident(id).verdict, nullptr, false); }
  std::vector<store::IncidentRecord> Incidents(const std::string& job) {
    store::IncidentFilter f;
    f.job = job;
    std::vector<store::IncidentRecord> out;
    EXPECT_TRUE(c_->store().ListIncidents(f, &out).ok());
    return out;
  }
  store::HostRecord Host(const std::string& host) {
    store::HostRecord h;
    EXPECT_TRUE(c_->store().GetHost(host, &h).ok()) << host;
    return h;
  }
  // A person's change of a host's state.
  void SetState(const std::string& host, store::HostState state) {
    HostStateRequest r;
    r.state = state;
    r.reason = "by hand";
    store::HostRecord out;
    bool changed = false;
    ASSERT_TRUE(c_->SetHostState(host, r, Caller{kScopeOperator, "alice", ""}, &out, &changed).ok());
    ASSERT_TRUE(changed);
  }
  void Return(const std::string& host) { SetState(host, store::HostState::kInService); }

 private:
  ManualClockEnv clock_{kT0};  // before c_: outlives the controller
  std::shared_ptr<store::test::ScratchDir> dir_;
  std::unique_ptr<Controller> c_;
  int n_ = 0;
};

// One classified line as an agent ships it: read at `read_at`, tagged with `job` ("": none).
json LineEvent(const std::string& host, SourceKind kind, const std::string& text, const std::string& id, double read_at,
               const std::string& job) {
  Scanner scanner(ShippedMatcher(), ScanOptions{});
  std::vector<LogEvent> events;
  scanner.ScanText(text + "\n", [&](LogEvent&& ev) { events.push_back(std::move(ev)); });
  EXPECT_EQ(events.size(), 1u) << text;
  if (events.empty()) return json::object();
  const std::string file = "nodes/" + host + (kind == SourceKind::kKernel ? "/kernel.log" : "/train.log");
  json ev = wire::LogEventToWire({host, kind, file, std::move(events[0])});
  ev["id"] = id;
  ev["read_at"] = read_at;
  if (!job.empty()) ev["job"] = job;
  return ev;
}

const std::string kXid79 = "NVRM: Xid (PCI:0000:18:00): 79, pid=1, name=python3, GPU has fallen off the bus.";
const std::string kUserError = "RuntimeError: shape '[8, 4096, 32, 128]' is invalid for input of size 67108864";

std::vector<std::string> Hosts(const gen::Bundle& b) {
  std::vector<std::string> out;
  for (int i = 0; i < b.Hosts(); ++i) out.push_back(b.N(i).host);
  return out;
}

gen::Bundle Timed(const std::string& scenario, uint64_t seed, int hosts, double start, double fail, double end,
                  const std::string& id_suffix) {
  gen::GenOptions g;
  g.scenario = scenario;
  g.seed = seed;
  g.hosts = hosts;
  g.kernel_bytes = 6000;
  g.train_bytes = 12000;
  g.timeline = gen::Timeline{start, fail, end, 1800};
  gen::Bundle b = gen::BuildBundle(g);
  b.c.job_id += id_suffix;
  return b;
}

TEST(JobScope, PlacesEventsByTheirStamp) {
  Job job;
  job.id = "job-b";
  job.started_at = 1000;
  wire::DecodedEvent e;
  e.type = wire::EventType::kLog;
  e.node = "n1";
  e.log.source = SourceKind::kTrain;
  auto in = [&](double read_at, const std::string& tag) {
    e.read_at = read_at;
    e.job = tag;
    return InJobScope(e, 5000, job);
  };
  EXPECT_FALSE(in(900, ""));        // read well before the start: another time's
  EXPECT_TRUE(in(999, ""));         // within the clocks' tolerance
  EXPECT_TRUE(in(1500, ""));
  EXPECT_FALSE(in(1001, "job-a"));  // the agent read it for the previous job
  EXPECT_TRUE(in(1003, "job-a"));   // clearly after the start: the agent had not heard yet
  EXPECT_TRUE(in(999, "job-b"));    // the agent knew this job ran
  e.read_at = NAN;
  e.job.clear();
  EXPECT_FALSE(InJobScope(e, 900, job));  // unstamped: placed by when it was received
  EXPECT_TRUE(InJobScope(e, 1200, job));
  // A person returned n1 to service at 2000: what it logged before is history, even tagged.
  job.not_before["n1"] = 2000;
  EXPECT_FALSE(in(1500, "job-b"));
  EXPECT_TRUE(in(2100, "job-b"));
  EXPECT_TRUE(in(1500, "") == false);
  e.node = "n2";
  EXPECT_TRUE(in(1500, ""));
  // Once the job ended, what was read clearly after its end is the next job's.
  job.ended_at = 3000;
  EXPECT_FALSE(in(3500, ""));
  EXPECT_FALSE(in(3500, "job-c"));
  EXPECT_TRUE(in(3500, "job-b"));
  // Unstamped, it is placed by when it arrived: one that arrived after the end as reported
  // but before the controller was told of it (an end reported late, with an earlier time)
  // came while the job ran; one that arrived after that is the next job's.
  e.read_at = NAN;
  e.job.clear();
  EXPECT_FALSE(InJobScope(e, 4000, job));
  EXPECT_TRUE(InJobScope(e, 4000, job, {}, /*end_known_at=*/4100));
  EXPECT_FALSE(InJobScope(e, 4200, job, {}, 4100));
  e.read_at = 3500;  // stamped by the agent: its own clock says when, whenever it arrived
  EXPECT_FALSE(InJobScope(e, 4000, job, {}, 4100));
  // Facts, metrics, probes and switch logs are not placed.
  e.type = wire::EventType::kMetric;
  EXPECT_TRUE(in(10, ""));
}

TEST(JobScope, ReturnsDuringTheJobOnly) {
  Job job;
  job.hosts = {"n1", "n2"};
  job.started_at = 1000;
  job.ended_at = 5000;
  std::vector<store::HistoryEntry> h(5);
  h[0] = {"n1", 900, store::HostState::kIsolated, store::HostState::kInService, "", "", store::ChangedBy::kPerson, "a"};
  h[1] = {"n1", 1500, store::HostState::kIsolated, store::HostState::kInService, "", "", store::ChangedBy::kPerson, "a"};
  h[2] = {"n2", 1600, store::HostState::kInService, store::HostState::kIsolated, "", "", store::ChangedBy::kPerson, "a"};
  h[3] = {"n3", 1700, store::HostState::kHeld, store::HostState::kInService, "", "", store::ChangedBy::kPerson, "a"};
  h[4] = {"n2", 6000, store::HostState::kIsolated, store::HostState::kInService, "", "", store::ChangedBy::kPerson, "a"};
  auto nb = ReturnsDuring(job, h);
  ASSERT_EQ(nb.size(), 1u);
  EXPECT_EQ(nb["n1"], 1500);
  job.not_before = nb;
  EXPECT_EQ(WindowOpening(job, "n1"), 1500);
  EXPECT_EQ(WindowOpening(job, "n2"), 1000);
}

// The user's report: a Python exception an earlier job printed decided the next job's
// NIC fault as the user's. Each job now sees only what its hosts logged while it ran.
TEST(LiveScope, AnEarlierJobsUserErrorDoesNotDecideTheNextJob) {
  for (const bool tagged : {true, false}) {
    SCOPED_TRACE(tagged ? "agents tag lines with their job" : "untagged: placed by when they were read");
    Live live;
    SimOptions sim;
    sim.tag_job = tagged;
    gen::Bundle a = Timed("user_exception", 7, 8, kT0, kT0 + 600, kT0 + 900, "-a");
    live.Topology(a);
    live.set_now(a.c.start);
    live.StartJob(RunningJobText(a));
    live.set_now(a.c.end);
    live.PostAll(a, sim);
    const std::string inc_a = live.End(a.c.job_id);
    live.Run();
    EXPECT_EQ(live.Verdict(inc_a)["stage"], "user_error") << live.Verdict(inc_a).dump(2);

    // The next job on the same hosts ten minutes later: completion errors naming one peer.
    gen::Bundle b = Timed("rootdiag", 7, 8, a.c.end + 600, a.c.end + 1200, a.c.end + 1500, "-b");
    live.set_now(b.c.start);
    live.StartJob(RunningJobText(b));
    live.set_now(b.c.end);
    live.PostAll(b, sim);
    const std::string inc_b = live.End(b.c.job_id);
    live.Run();
    json v = live.Verdict(inc_b);
    EXPECT_EQ(Decisive(v), Decisive(b.expected)) << v.dump(2);
    EXPECT_NE(v["stage"], "user_error");

    // Its export holds the job's window, not the hosts' past: no line of the first job.
    ordered_json doc;
    ASSERT_TRUE(ExportBundle(live.c().store(), *live.c().rules().Current(), inc_b, ExportOptions{}, &doc).ok());
    for (const auto& [path, text] : doc["files"].items())
      EXPECT_EQ(text.get<std::string>().find("RuntimeError"), std::string::npos) << path;
  }
}

// An Xid a job logged minutes before the next job started, on a host a person has since
// returned to service, is not blamed again.
TEST(LiveScope, AnXidOfThePreviousJobIsNotBlamedAfterTheHostWasReturned) {
  Live live;
  gen::Bundle a = Timed("xid79", 9, 8, kT0, kT0 + 600, kT0 + 660, "-a");
  live.Topology(a);
  live.set_now(a.c.start);
  live.StartJob(RunningJobText(a));
  live.set_now(a.c.fail + 5);
  live.PostAll(a);
  live.Run();  // the early incident
  live.set_now(a.c.end);
  const std::string inc_a = live.End(a.c.job_id);
  live.Run();
  const std::string host = live.Verdict(inc_a)["isolate"][0]["host"];
  ASSERT_EQ(live.Host(host).state, store::HostState::kIsolated);
  live.set_now(a.c.end + 30);
  live.Return(host);
  // The next job starts two minutes after the Xid (well within the 5 minutes of clock skew
  // a line's own time is allowed) and fails by the user's fault.
  gen::Bundle b = Timed("user_exception", 9, 8, a.c.end + 60, a.c.end + 300, a.c.end + 400, "-b");
  live.set_now(b.c.start);
  live.StartJob(RunningJobText(b));
  live.set_now(b.c.end);
  live.PostAll(b);
  const std::string inc_b = live.End(b.c.job_id);
  live.Run();
  json v = live.Verdict(inc_b);
  EXPECT_EQ(v["stage"], "user_error") << v.dump(2);
  EXPECT_EQ(live.Host(host).state, store::HostState::kInService);
}

// A GPU falls off the bus in a running job: isolated at once; the job's end repeats the
// isolation and records nothing twice.
TEST(LiveScope, ACriticalErrorIsDecidedWhileTheJobRunsAndTheJobsEndAgrees) {
  Live live;
  gen::Bundle topo = Timed("xid79", 3, 8, kT0, kT0 + 60, kT0 + 120, "");
  live.Topology(topo);
  const std::vector<std::string> hosts = Hosts(topo);
  live.StartJob("job-x", hosts, kT0);
  live.set_now(kT0 + 30);
  live.PostEvents(hosts[2], json::array({LineEvent(hosts[2], SourceKind::kKernel, kXid79, "x1", kT0 + 30, "job-x")}));
  live.Run();
  std::vector<store::IncidentRecord> incs = live.Incidents("job-x");
  ASSERT_EQ(incs.size(), 1u);
  EXPECT_EQ(incs[0].trigger, store::Trigger::kCriticalError);
  ASSERT_TRUE(incs[0].decided()) << "decided in the same pass";
  const std::string early = incs[0].id;
  json v = live.Verdict(early);
  EXPECT_EQ(v["stage"], "critical_error");
  EXPECT_EQ(v["isolate"][0]["host"], hosts[2]);
  EXPECT_EQ(live.Host(hosts[2]).state, store::HostState::kIsolated) << "the first isolation of 8 hosts goes ahead";
  EXPECT_EQ(live.Incident(early).actions.size(), 1u);
  store::JobRecord job;
  ASSERT_TRUE(live.c().store().GetJob("job-x", &job).ok());
  EXPECT_EQ(job.state, store::JobState::kRunning);
  // More lines on that host do not open a second early incident.
  live.set_now(kT0 + 40);
  live.PostEvents(hosts[2], json::array({LineEvent(hosts[2], SourceKind::kKernel, kXid79, "x2", kT0 + 40, "job-x")}));
  live.Run();
  EXPECT_EQ(live.Incidents("job-x").size(), 1u);

  // The job then ends failed: its incident names the same host, already isolated.
  live.set_now(kT0 + 100);
  const std::string end = live.End("job-x");
  live.Run();
  store::IncidentRecord last = live.Incident(end);
  ASSERT_TRUE(last.decided());
  json w = json::parse(last.verdict);
  EXPECT_EQ(w["action"], "isolate");
  EXPECT_EQ(w["isolate"], v["isolate"]);
  EXPECT_TRUE(last.actions.empty()) << "no second drain";
  EXPECT_EQ(live.Host(hosts[2]).incident, early);
}

// A person returns the early incident's host while the job still runs: its earlier lines
// are history for the job's end, which does not isolate it again.
TEST(LiveScope, AHostReturnedDuringTheJobIsNotIsolatedAgainByItsEnd) {
  Live live;
  gen::Bundle topo = Timed("xid79", 3, 8, kT0, kT0 + 60, kT0 + 120, "");
  live.Topology(topo);
  const std::vector<std::string> hosts = Hosts(topo);
  live.StartJob("job-r", hosts, kT0);
  live.set_now(kT0 + 30);
  live.PostEvents(hosts[5], json::array({LineEvent(hosts[5], SourceKind::kKernel, kXid79, "r1", kT0 + 30, "job-r")}));
  live.Run();
  ASSERT_EQ(live.Host(hosts[5]).state, store::HostState::kIsolated);
  live.set_now(kT0 + 200);
  live.Return(hosts[5]);
  live.Run();
  // Later the job fails by its own fault.
  live.set_now(kT0 + 250);
  live.PostEvents(hosts[0], json::array({LineEvent(hosts[0], SourceKind::kTrain, kUserError, "r2", kT0 + 250, "job-r")}));
  live.set_now(kT0 + 300);
  const std::string end = live.End("job-r");
  live.Run();
  store::IncidentRecord inc = live.Incident(end);
  ASSERT_TRUE(inc.decided());
  json v = json::parse(inc.verdict);
  EXPECT_EQ(v["stage"], "user_error") << v.dump(2);
  EXPECT_EQ(live.Host(hosts[5]).state, store::HostState::kInService);
}

// `missing` names only agents that are silent: one still posting is waited for.
TEST(LiveScope, OnlySilentAgentsAreMissing) {
  Live live;
  gen::Bundle b = Timed("xid79", 6, 4, kT0, kT0 + 600, kT0 + 660, "");
  live.Topology(b);
  live.set_now(b.c.start);
  live.StartJob(RunningJobText(b));
  const std::vector<std::string> hosts = Hosts(b);
  live.set_now(b.c.end - 30);
  for (const auto& h : hosts) live.Heartbeat(h, live.now());  // every agent is known
  live.set_now(b.c.end);
  live.PostAll(b);
  const std::string id = live.End(b.c.job_id);
  live.Run();
  EXPECT_FALSE(live.Incident(id).decided());
  live.set_now(b.c.end + 1);
  live.Heartbeat(hosts[0], b.c.end + 0.5);
  live.Heartbeat(hosts[3], b.c.end + 0.5);
  live.set_now(b.c.end + 9);
  live.PostEvents(hosts[1], json::array());  // alive, still sending what it read
  live.set_now(b.c.end + 10.5);                 // past --settle (10 s)
  live.Run();
  EXPECT_FALSE(live.Incident(id).decided()) << "waits for the agent that is still posting";
  live.set_now(b.c.end + 11);
  live.Heartbeat(hosts[1], b.c.end + 10.8);
  live.Run();
  ASSERT_TRUE(live.Incident(id).decided());
  const std::string missing = live.Verdict(id)["missing"].dump();
  EXPECT_NE(missing.find("nodes/" + hosts[2]), std::string::npos) << missing;
  for (int i : {0, 1, 3}) EXPECT_EQ(missing.find("nodes/" + hosts[static_cast<size_t>(i)]), std::string::npos) << missing;
}

// The answer to an agent's post: its node's job, how often to report, what to flush for.
TEST(LiveScope, TheAnswerTellsTheAgentItsJobAndWhenToFlush) {
  Live live;
  gen::Bundle b = Timed("xid79", 6, 4, kT0, kT0 + 600, kT0 + 660, "");
  live.Topology(b);
  const std::string node = b.N(1).host;
  NodeScope s = live.PostEvents(node, json::array()).scope;
  EXPECT_TRUE(s.job.empty());
  EXPECT_TRUE(std::isnan(s.report_s));
  live.StartJob("job-s", Hosts(b), kT0 + 5);
  live.set_now(kT0 + 10);
  s = live.PostEvents(node, json::array()).scope;
  EXPECT_EQ(s.job, "job-s");
  EXPECT_EQ(s.since, kT0 + 5);
  EXPECT_EQ(s.report_s, 1);
  EXPECT_TRUE(std::isnan(s.flush));
  // A person returned the host during the job: the window opens at the return.
  live.set_now(kT0 + 15);
  live.SetState(node, store::HostState::kIsolated);
  live.set_now(kT0 + 20);
  live.Return(node);
  EXPECT_EQ(live.PostEvents(node, json::array()).scope.since, kT0 + 20);
  live.Heartbeat(node, kT0);  // its agent is known
  live.set_now(kT0 + 30);
  const std::string id = live.End("job-s");
  s = live.PostEvents(node, json::array()).scope;
  EXPECT_TRUE(s.job.empty());
  EXPECT_EQ(s.flush, live.Incident(id).opened_at);
  EXPECT_EQ(s.report_s, 1);
  live.Heartbeat(node, kT0 + 30.5);
  live.Run();
  ASSERT_TRUE(live.Incident(id).decided());
  s = live.PostEvents(node, json::array()).scope;
  EXPECT_TRUE(std::isnan(s.flush));
  EXPECT_TRUE(std::isnan(s.report_s));
}

// The limit counts decisions' isolations over the window, from the store: a restarted
// controller holds the same; a person can still return hosts; later it allows again.
TEST(LiveScope, TheIsolationLimitCountsAWindowAndSurvivesARestart) {
  auto live = std::make_unique<Live>();
  gen::Bundle topo = Timed("xid79", 3, 8, kT0, kT0 + 60, kT0 + 120, "");
  live->Topology(topo);
  const std::vector<std::string> hosts = Hosts(topo);
  int job = 0;
  auto fault_on = [&](Live& l, size_t host) {
    const std::string id = fmt::format("job-{}", ++job);
    l.StartJob(id, hosts, l.now());
    l.set_now(l.now() + 10);
    l.PostEvents(hosts[host], json::array({LineEvent(hosts[host], SourceKind::kKernel, kXid79, id + "-x", l.now(), id)}));
    l.Run();
    std::vector<store::IncidentRecord> incs = l.Incidents(id);
    EXPECT_EQ(incs.size(), 1u);
    l.set_now(l.now() + 10);
    l.End(id, "done");
    l.Run();
    return incs.empty() ? store::IncidentRecord() : incs[0];
  };
  EXPECT_EQ(fault_on(*live, 1).actions.size(), 1u);
  EXPECT_EQ(live->Host(hosts[1]).state, store::HostState::kIsolated);
  live->set_now(live->now() + 600);
  EXPECT_TRUE(fault_on(*live, 2).actions.empty());
  EXPECT_EQ(live->Host(hosts[2]).state, store::HostState::kHeld);
  EXPECT_NE(live->Host(hosts[2]).reason.find("--max-isolate-share"), std::string::npos) << live->Host(hosts[2]).reason;
  // While the limit holds, people still return hosts to service.
  live->Return(hosts[1]);
  live->Return(hosts[2]);

  // A controller started again on the store counts the same isolations.
  auto dir = live->dir();
  const double now = live->now() + 600;
  live.reset();
  Live again(Live::Options(), dir);
  again.set_now(now);
  EXPECT_TRUE(fault_on(again, 3).actions.empty());
  EXPECT_EQ(again.Host(hosts[3]).state, store::HostState::kHeld);
  // An hour after the first isolation it counts no more.
  again.set_now(kT0 + 3700);
  EXPECT_EQ(fault_on(again, 4).actions.size(), 1u);
  EXPECT_EQ(again.Host(hosts[4]).state, store::HostState::kIsolated);
}

}  // namespace
}  // namespace aegis::controller::test
