// The real `aegis controller` process: killed with SIGKILL in the middle of ingest and
// between an incident's opening and its decision, restarted on the same SQLite file; and
// two of them on one real PostgreSQL, where one leads, the other stands by and takes over
// when the leader dies. Nothing acknowledged is lost, nothing is decided twice.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <thread>

#include "child_process.h"
#include "controller/iso_time.h"
#include "pg_server.h"
#include "store/store.h"
#include "test_controller.h"

namespace aegis::controller::test {
namespace {

using nlohmann::json;
using store::test::ChildProcess;

// Another process's state is read over HTTP, so it is polled: every 20 ms until `done`
// holds or `timeout` passed.
bool PollUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling another process
  }
  return done();
}

// Waits until the loop whose pass count `count` reads (negative: not readable yet) has
// completed `passes` passes that began once `after` had passed from now: a test asserts that
// something did NOT happen only after this. `after` is for what needs the controller's
// clock, the real one here, to move (a hang threshold); zero otherwise.
bool WaitForPasses(const std::function<long long()>& count, int passes, std::chrono::milliseconds after) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<long long> base;  // the count once `after` has passed
  return PollUntil(
      [&] {
        if (std::chrono::steady_clock::now() - start < after) return false;
        const long long n = count();
        if (n < 0) return false;
        if (!base) base = n;
        return n >= *base + passes;
      },
      after + std::chrono::seconds(20));
}

class ControllerProcess {
 public:
  // Starts `aegis controller` with these arguments (plus --listen 127.0.0.1:0) and waits
  // for the line that names its port.
  bool Start(std::vector<std::string> args) {
    std::vector<std::string> argv = {AEGIS_BIN, "controller", "--listen", "127.0.0.1:0"};
    argv.insert(argv.end(), args.begin(), args.end());
    if (!child_.Start(argv)) return false;
    std::string line;
    while (child_.ReadLine(&line, std::chrono::seconds(60))) {
      const std::string key = "listening on http://127.0.0.1:";
      if (const size_t at = line.find(key); at != std::string::npos) {
        port_ = std::atoi(line.c_str() + at + key.size());
        return port_ > 0;
      }
    }
    return false;
  }
  void Kill() {
    child_.Kill(SIGKILL);
    child_.Wait();
  }
  int port() const { return port_; }
  bool Leader() const { return Http(port_, "GET", "/healthz").Json().value("leader", false); }
  // Passes of its decision loop so far (/metrics); -1 when it does not answer.
  long long LoopPasses() const {
    const std::string body = Http(port_, "GET", "/metrics").body;
    const std::string name = "\naegis_decision_loop_passes_total ";
    const size_t at = body.find(name);
    return at == std::string::npos ? -1 : std::atoll(body.c_str() + at + name.size());
  }
  // WaitForPasses on this process's count.
  bool WaitForLoopPasses(int passes, std::chrono::milliseconds after = std::chrono::milliseconds(0)) const {
    return WaitForPasses([this] { return LoopPasses(); }, passes, after);
  }

 private:
  ChildProcess child_;
  int port_ = 0;
};

std::string EndBody(const std::string& state, double ended_at) {
  return json{{"state", state}, {"ended_at", FormatIsoTime(ended_at)}}.dump();
}

std::string WriteTopology(const std::string& dir, const gen::Bundle& b) {
  const std::string path = dir + "/topology.json";
  std::ofstream(path) << TopologyText(b);
  return path;
}

json Incident(int port, const std::string& id) { return Http(port, "GET", "/api/v1/incidents/" + id).Json(); }

bool WaitDecidedAt(int port, const std::string& id, std::chrono::seconds timeout = std::chrono::seconds(30)) {
  return PollUntil([&] { return Incident(port, id).value("decided_at", json()).is_string(); }, timeout);
}

// Rows of a host's history written by decisions of the incidents of `incident`'s job (its
// end, and one a critical error opened while it ran).
size_t DecisionRows(store::Store& s, const std::string& host, const std::string& incident) {
  store::IncidentRecord inc;
  EXPECT_TRUE(s.GetIncident(incident, &inc).ok());
  store::IncidentFilter filter;
  filter.job = inc.job;
  std::vector<store::IncidentRecord> of_job;
  EXPECT_TRUE(s.ListIncidents(filter, &of_job).ok());
  std::set<std::string> ids;
  for (const auto& i : of_job) ids.insert(i.id);
  std::vector<store::HistoryEntry> history;
  EXPECT_TRUE(s.HostHistory(host, 100, &history).ok());
  size_t n = 0;
  for (const auto& e : history) n += e.by == store::ChangedBy::kDecision && ids.count(e.incident);
  return n;
}

TEST(Process, KilledMidIngestLosesNothingAndNeverDecidesTwice) {
  store::test::ScratchDir dir;
  gen::GenOptions g;
  g.scenario = "xid79";
  g.seed = 11;
  g.hosts = 16;
  g.kernel_bytes = 40000;
  g.train_bytes = 80000;
  gen::Bundle b = gen::BuildBundle(g);
  SimOptions sim;
  sim.batch_events = 5;
  std::vector<AgentPost> posts = PostsFromBundle(b, ShippedMatcher(), sim);
  ASSERT_GT(posts.size(), 20u);
  const std::string db = "sqlite:" + dir.path() + "/aegis.db";
  const std::vector<std::string> args = {"--db", db, "--topology", WriteTopology(dir.path(), b), "--settle", "0",
                                         "--max-isolate-share", "1", "--slow-check", "0"};
  auto first = std::make_unique<ControllerProcess>();
  ASSERT_TRUE(first->Start(args));
  std::atomic<int> port{first->port()};
  ASSERT_EQ(Http(port, "POST", "/api/v1/jobs", RunningJobText(b)).status, 201);

  // An agent's behaviour: send each batch until it is acknowledged, whatever happens.
  std::set<std::string> acked;
  std::atomic<size_t> sent{0};
  std::thread agent([&] {
    for (const AgentPost& p : posts) {
      for (;;) {
        HttpReply r = Http(port, "POST", "/api/v1/events", p.body.dump());
        if (r.status == 200) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // an agent's back-off while the controller is down
      }
      for (const auto& e : p.body["events"]) acked.insert(e["id"].get<std::string>());
      ++sent;
    }
  });
  ASSERT_TRUE(PollUntil([&] { return sent.load() >= posts.size() / 3; }));
  first->Kill();  // mid-ingest
  auto second = std::make_unique<ControllerProcess>();
  ASSERT_TRUE(second->Start(args));
  port = second->port();
  agent.join();

  std::unique_ptr<store::Store> s;
  ASSERT_TRUE(store::Store::Open(db, &s).ok());
  std::set<std::string> stored;
  for (int64_t after = 0;;) {
    std::vector<store::Event> page;
    ASSERT_TRUE(s->EventsAfter(after, 5000, &page).ok());
    if (page.empty()) break;
    for (const auto& e : page) stored.insert(e.id);
    after = page.back().seq;
  }
  EXPECT_EQ(stored, acked);  // every acknowledged event, each once

  // The job fails: decided once; a kill after the decision changes nothing.
  HttpReply end = Http(port, "POST", "/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  ASSERT_EQ(end.status, 200) << end.body;
  const std::string id = end.Json()["incident"];
  ASSERT_TRUE(WaitDecidedAt(port, id));
  json decided = Incident(port, id);
  EXPECT_EQ(Decisive(decided["verdict"]), Decisive(b.expected));
  second->Kill();
  auto third = std::make_unique<ControllerProcess>();
  ASSERT_TRUE(third->Start(args));
  ASSERT_TRUE(PollUntil([&] { return third->Leader(); }));
  ASSERT_TRUE(third->WaitForLoopPasses(2));  // as leader it has read the decided incident back
  json after = Incident(third->port(), id);
  EXPECT_EQ(after["decided_at"], decided["decided_at"]);
  EXPECT_EQ(after["decided_by"], decided["decided_by"]);
  const std::string host = decided["verdict"]["isolate"][0]["host"];
  EXPECT_EQ(DecisionRows(*s, host, id), 1u);
  third->Kill();
}

TEST(Process, KilledBetweenOpeningAndDecidingResumesAndDecidesOnce) {
  store::test::ScratchDir dir;
  gen::Bundle b = Generate("nic_down", 12, 8);
  const std::string db = "sqlite:" + dir.path() + "/aegis.db";
  std::vector<std::string> args = {"--db", db, "--topology", WriteTopology(dir.path(), b), "--max-isolate-share", "1",
                                   "--slow-check", "0", "--settle", "3600"};
  auto first = std::make_unique<ControllerProcess>();
  ASSERT_TRUE(first->Start(args));
  const int p1 = first->port();
  // One agent is known and silent: the first controller waits for it.
  ASSERT_EQ(Http(p1, "POST", "/api/v1/events", HeartbeatPost(b.N(0).host, WallNow() - 60, "hb").body.dump()).status, 200);
  ASSERT_EQ(Http(p1, "POST", "/api/v1/jobs", RunningJobText(b)).status, 201);
  for (const AgentPost& p : PostsFromBundle(b, ShippedMatcher())) ASSERT_EQ(Http(p1, "POST", "/api/v1/events", p.body.dump()).status, 200);
  HttpReply end = Http(p1, "POST", "/api/v1/jobs/" + b.c.job_id + "/end", EndBody("failed", b.c.end));
  const std::string id = end.Json()["incident"];
  ASSERT_TRUE(first->WaitForLoopPasses(2));  // it has seen the job's end and still waits
  ASSERT_TRUE(Incident(p1, id)["decided_at"].is_null());
  first->Kill();
  args.back() = "1";  // the next one waits a second at most
  auto second = std::make_unique<ControllerProcess>();
  ASSERT_TRUE(second->Start(args));
  ASSERT_TRUE(WaitDecidedAt(second->port(), id));
  json inc = Incident(second->port(), id);
  EXPECT_EQ(Decisive(inc["verdict"]), Decisive(b.expected));
  std::unique_ptr<store::Store> s;
  ASSERT_TRUE(store::Store::Open(db, &s).ok());
  for (const auto& entry : inc["verdict"]["isolate"]) EXPECT_EQ(DecisionRows(*s, entry["host"], id), 1u);
  second->Kill();
}

TEST(Process, TwoControllersOnOnePostgreSQL) {
  if (store::test::PgServer::BinDir().empty()) GTEST_SKIP() << "PostgreSQL is not installed";
  std::string why;
  store::test::PgServer* pg = store::test::SharedPgServer(&why);
  ASSERT_NE(pg, nullptr) << why;
  std::string name, url;
  ASSERT_TRUE(pg->CreateDatabase(&name, &url).ok());
  store::test::ScratchDir dir;
  gen::Bundle b1 = Generate("xid79", 21, 8);
  // The same cluster (seed), another fault, a day later (a job's picture is its own time).
  gen::GenOptions g;
  g.scenario = "nic_down";
  g.seed = 21;
  g.hosts = 8;
  g.timeline = gen::Timeline{b1.c.start + 86400, b1.c.fail + 86400, b1.c.end + 86400, 1800};
  gen::Bundle b2 = gen::BuildBundle(g);
  b2.c.job_id += "-second";
  const std::string topology = WriteTopology(dir.path(), b1);
  auto args = [&](const std::string& who) {
    return std::vector<std::string>{"--db", url, "--topology", topology, "--settle", "0", "--max-isolate-share", "1",
                                    "--slow-check", "0", "--name", who};
  };
  ControllerProcess a, b;
  ASSERT_TRUE(a.Start(args("ctl-a")));
  ASSERT_TRUE(b.Start(args("ctl-b")));
  ASSERT_TRUE(PollUntil([&] { return a.Leader() || b.Leader(); }));
  // Real time: a standby tries to lead once a second; both loops have run past a try.
  ASSERT_TRUE(a.WaitForLoopPasses(2, std::chrono::milliseconds(1500)));
  ASSERT_TRUE(b.WaitForLoopPasses(2));
  ASSERT_NE(a.Leader(), b.Leader()) << "exactly one leads";
  ControllerProcess& leader = a.Leader() ? a : b;
  ControllerProcess& standby = a.Leader() ? b : a;
  const std::string leader_name = a.Leader() ? "ctl-a" : "ctl-b";
  const std::string standby_name = a.Leader() ? "ctl-b" : "ctl-a";

  // Everything sent to the standby is stored; the leader decides.
  auto run_job = [&](ControllerProcess& via, gen::Bundle& bundle) {
    EXPECT_EQ(Http(via.port(), "POST", "/api/v1/jobs", RunningJobText(bundle)).status, 201);
    for (const AgentPost& p : PostsFromBundle(bundle, ShippedMatcher()))
      EXPECT_EQ(Http(via.port(), "POST", "/api/v1/events", p.body.dump()).status, 200);
    HttpReply end = Http(via.port(), "POST", "/api/v1/jobs/" + bundle.c.job_id + "/end", EndBody("failed", bundle.c.end));
    return end.Json()["incident"].get<std::string>();
  };
  const std::string first = run_job(standby, b1);
  ASSERT_TRUE(WaitDecidedAt(standby.port(), first));
  json inc1 = Incident(standby.port(), first);
  EXPECT_EQ(inc1["decided_by"], leader_name);
  EXPECT_EQ(Decisive(inc1["verdict"]), Decisive(b1.expected));
  EXPECT_NE(Http(standby.port(), "GET", "/metrics").body.find("aegis_decisions_total 0\n"), std::string::npos);
  EXPECT_FALSE(standby.Leader());

  // The leader dies; the standby takes over and decides what comes next.
  leader.Kill();
  ASSERT_TRUE(PollUntil([&] { return standby.Leader(); }, std::chrono::seconds(30)));
  const std::string second = run_job(standby, b2);
  ASSERT_TRUE(WaitDecidedAt(standby.port(), second));
  json inc2 = Incident(standby.port(), second);
  EXPECT_EQ(inc2["decided_by"], standby_name);
  EXPECT_EQ(Decisive(inc2["verdict"]), Decisive(b2.expected));
  // The first incident was not decided again by the new leader.
  EXPECT_EQ(Incident(standby.port(), first)["decided_at"], inc1["decided_at"]);
  std::unique_ptr<store::Store> s;
  ASSERT_TRUE(store::Store::Open(url, &s).ok());
  for (const auto& entry : inc1["verdict"]["isolate"]) EXPECT_EQ(DecisionRows(*s, entry["host"], first), 1u);
  for (const auto& entry : inc2["verdict"]["isolate"]) EXPECT_LE(DecisionRows(*s, entry["host"], second), 1u);
  s.reset();

  // The database goes away: /healthz says so (503, not leading) instead of "ok", and says
  // ok again once it is back.
  ASSERT_TRUE(pg->Admin("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS false").ok());
  ASSERT_TRUE(pg->Admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "'").ok());
  HttpReply health = Http(standby.port(), "GET", "/healthz");
  EXPECT_EQ(health.status, 503) << health.body;
  EXPECT_EQ(health.Json()["status"], "store_unreachable") << health.body;
  EXPECT_EQ(health.Json()["leader"], false) << health.body;
  ASSERT_TRUE(pg->Admin("ALTER DATABASE " + name + " WITH ALLOW_CONNECTIONS true").ok());
  EXPECT_TRUE(PollUntil([&] { return Http(standby.port(), "GET", "/healthz").status == 200; }, std::chrono::seconds(30)))
      << Http(standby.port(), "GET", "/healthz").body;
  standby.Kill();
  (void)pg->DropDatabase(name);
}

}  // namespace
}  // namespace aegis::controller::test
