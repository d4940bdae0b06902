// The whole agent in-process on the real clock (its schedule: poll, idle flush, facts and
// heartbeat intervals of a fraction of a second), against the controller's test double on
// loopback.
#include "agent/agent.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <thread>

#include "env/fault_injection_env.h"
#include "exposition.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::AppendFile;
using testing::FakeController;
using testing::ScratchDir;
using testing::UnusedPort;
using testing::WriteFile;

const std::string kXid = "NVRM: Xid (PCI:0000:18:00): 79, pid=1, GPU has fallen off the bus.";
const std::string kPeer = "NCCL WARN socketProgress: Connection closed by remote peer node2<42830>";

AgentConfig Config(const ScratchDir& d, const std::string& controller) {
  AgentConfig c;
  c.controller = controller;
  c.node = "node-0007";
  c.kernel_log = "none";
  c.train_logs = {d / "logs/*.log"};
  c.ccl_socket = d / "ccl.sock";
  c.facts = "none";
  c.state_dir = d / "state";
  c.metrics_listen = "127.0.0.1:0";
  c.roots = {d / "proc", d / "sys", d.path()};
  c.nvml_library = "libnvidia-ml-absent.so.1";
  c.poll_s = 0.05;
  c.idle_flush_s = 0.2;
  c.glob_s = 0.2;
  c.state_s = 0.1;
  c.facts_s = 0.2;
  c.ccl_flush_s = 0.1;
  c.sender.heartbeat_s = 0.5;
  c.sender.backoff_min_s = 0.05;
  c.sender.backoff_max_s = 0.2;
  c.sender.connect_timeout_s = 1;
  EXPECT_TRUE(ValidateConfig(&c).ok());
  return c;
}

// Runs an agent on its own thread for the scope.
class Running {
 public:
  explicit Running(AgentConfig c) : agent_(WithProgress(std::move(c))) {
    Status s = agent_.Start();
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (s.ok()) thread_ = std::thread([this] { agent_.Run(); });
  }
  ~Running() {
    agent_.Stop();
    if (thread_.joinable()) thread_.join();
  }
  Agent& agent() { return agent_; }

 private:
  static AgentConfig WithProgress(AgentConfig c) {
    if (!c.progress) c.progress = &testing::Progress();
    return c;
  }
  Agent agent_;
  std::thread thread_;
};

// Waits up to 20 s for `done`, checked after every pass of a running agent's loop, every
// round of its sender and every request to the controller's double (testing::Progress).
bool WaitFor(const std::function<bool()>& done) { return testing::Progress().WaitUntil(done, std::chrono::seconds(20)); }

// Waits for `passes` more passes of the agent's loop: what a test needs before it asserts
// that something did NOT happen (a sleep alone proves nothing on a slow machine, where the
// loop may not have run).
bool WaitForLoopPasses(Running& r, int passes) {
  const uint64_t base = r.agent().counters().loop_passes.load();
  return WaitFor([&] { return r.agent().counters().loop_passes.load() >= base + static_cast<uint64_t>(passes); });
}

// A sample of the agent's /metrics (-1 when it cannot be read).
double MetricSample(Running& r, const std::string& sample) {
  httplib::Client http("127.0.0.1", r.agent().metrics_port());
  auto res = http.Get("/metrics");
  if (!res || res->status != 200) return -1;
  testing::Exposition e = testing::Exposition::Parse(res->body);
  return e.error.empty() && e.samples.count(sample) ? e.samples[sample] : -1;
}

size_t CountRule(const FakeController& ctl, const std::string& rule) {
  size_t n = 0;
  for (auto& e : ctl.of_type("log"))
    if (e["rule"] == rule) ++n;
  return n;
}

TEST(Agent, ShipsClassifiedLinesFactsAndHeartbeats) {
  ScratchDir d;
  FakeController ctl;
  WriteFile(d / "logs/rank0.log", "step 1\n" + kXid + "\nstep 2\n");
  WriteFile(d / "facts.json", R"({"gpu": {"driver_version": "570.86.15"}, "os": {"dev_shm_mb": 65536}})");
  AgentConfig c = Config(d, ctl.url());
  c.facts = d / "facts.json";
  Running r(c);
  ASSERT_TRUE(ctl.WaitFor([&] {
    return CountRule(ctl, "xid-79") == 1 && !ctl.of_type("facts").empty() && !ctl.of_type("heartbeat").empty();
  }));
  auto log = ctl.of_type("log")[0];
  EXPECT_EQ(log["node"], "node-0007");
  EXPECT_EQ(log["file"], "nodes/node-0007/train.log");
  EXPECT_EQ(log["class"], "critical");
  auto facts = ctl.of_type("facts")[0];
  EXPECT_EQ(facts["facts"]["gpu"]["driver_version"], "570.86.15");
  EXPECT_EQ(facts["id"].get<std::string>().rfind("node-0007:facts:", 0), 0u);
  auto hb = ctl.of_type("heartbeat")[0];
  EXPECT_EQ(hb["agent"]["instance"], r.agent().instance());
  EXPECT_TRUE(hb["agent"]["queue_events"].is_number());

  // /metrics over HTTP.
  httplib::Client http("127.0.0.1", r.agent().metrics_port());
  auto res = http.Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->get_header_value("Content-Type").find("text/plain; version=0.0.4"), std::string::npos);
  EXPECT_NE(res->body.find("aegis_agent_events_shipped_total "), std::string::npos);
  EXPECT_NE(res->body.find("aegis_agent_lines_read_total{source=\"train\"} 3"), std::string::npos) << res->body;

  // Facts unchanged: not sent again, though the agent has read them twice more since.
  const std::string facts_runs = "aegis_agent_source_runs_total{source=\"facts\"}";
  const double runs = MetricSample(r, facts_runs);
  ASSERT_GE(runs, 1);
  ASSERT_TRUE(WaitFor([&] { return MetricSample(r, facts_runs) >= runs + 2; }));
  // A heartbeat goes only with the batch that empties the queue: the second to arrive after
  // those reads was made after them, so nothing they queued is still on its way.
  const size_t heartbeats = ctl.of_type("heartbeat").size();
  ASSERT_TRUE(ctl.WaitFor([&] { return ctl.of_type("heartbeat").size() >= heartbeats + 2; }));
  EXPECT_EQ(ctl.of_type("facts").size(), 1u);
  WriteFile(d / "facts.json", R"({"gpu": {"driver_version": "570.124.06"}})");
  ASSERT_TRUE(ctl.WaitFor([&] { return ctl.of_type("facts").size() == 2; }));
}

// Each source the config names reports its passes on /metrics: runs, failed ones, and the
// duration of the last; a facts file that is not JSON fails every pass of "facts".
TEST(Agent, EachSourceReportsItsRunsAndErrorsOnMetrics) {
  ScratchDir d;
  FakeController ctl;
  WriteFile(d / "logs/rank0.log", kXid + "\n");
  WriteFile(d / "facts.json", "not json");
  AgentConfig c = Config(d, ctl.url());
  c.facts = d / "facts.json";
  Running r(c);
  httplib::Client http("127.0.0.1", r.agent().metrics_port());
  testing::Exposition e;
  const auto scrape = [&] {
    auto res = http.Get("/metrics");
    if (!res || res->status != 200) return false;
    e = testing::Exposition::Parse(res->body);
    if (!e.error.empty() || e.samples["aegis_agent_source_errors_total{source=\"facts\"}"] < 2) return false;
    // Each on its own schedule ("ccl", with a socket and no --ccl-dir, runs only when a
    // datagram comes: it is listed below, with no run counted yet).
    for (const char* source : {"train_logs", "node_sampler", "facts"})
      if (e.samples[std::string("aegis_agent_source_runs_total{source=\"") + source + "\"}"] < 1) return false;
    return true;
  };
  ASSERT_TRUE(WaitFor(scrape)) << e.error;
  for (const std::string source : {"train_logs", "ccl", "node_sampler", "facts"}) {
    SCOPED_TRACE(source);
    const std::string label = "{source=\"" + source + "\"}";
    EXPECT_EQ(e.samples.count("aegis_agent_source_runs_total" + label), 1u);
    EXPECT_GE(e.samples["aegis_agent_source_runs_total" + label], source == "ccl" ? 0 : 1);
    EXPECT_EQ(e.samples.count("aegis_agent_source_last_run_seconds" + label), 1u);
    EXPECT_GE(e.samples["aegis_agent_source_last_run_seconds" + label], 0);
  }
  EXPECT_EQ(e.samples["aegis_agent_source_errors_total{source=\"train_logs\"}"], 0);
  EXPECT_EQ(e.samples["aegis_agent_source_errors_total{source=\"node_sampler\"}"], 0);
  EXPECT_EQ(e.samples.count("aegis_agent_source_runs_total{source=\"kmsg\"}"), 0u);  // --kernel-log none
  EXPECT_EQ(e.type["aegis_agent_source_last_run_seconds"], "gauge");
  EXPECT_EQ(e.type["aegis_agent_nvml_available"], "gauge");
}

TEST(Agent, LinesWrittenWhileTheControllerIsDownArriveLaterOnce) {
  ScratchDir d;
  const int port = UnusedPort();
  WriteFile(d / "logs/rank0.log", kXid + "\n");
  {
    Running r(Config(d, "http://127.0.0.1:" + std::to_string(port)));
    const auto& counters = r.agent().counters();
    const auto train_lines = [&] { return counters.lines_read[static_cast<int>(InputKind::kTrain)].load(); };
    ASSERT_TRUE(WaitFor([&] { return train_lines() >= 1; }));
    AppendFile(d / "logs/rank0.log", kPeer + "\n");
    ASSERT_TRUE(WaitFor([&] {
      return train_lines() >= 2 && counters.send_errors[static_cast<int>(SendError::kConnect)].load() > 0;
    }));
  }  // stopped while the controller is still down: the events wait on disk
  AppendFile(d / "logs/rank0.log", kXid + "\n");  // written while no agent runs
  Running r(Config(d, "http://127.0.0.1:" + std::to_string(port)));
  ASSERT_TRUE(WaitFor([&] { return r.agent().counters().send_errors[static_cast<int>(SendError::kConnect)].load() > 0; }));
  FakeController ctl(port);  // the controller comes back
  ASSERT_TRUE(ctl.WaitFor([&] { return ctl.of_type("log").size() >= 3; }));
  ASSERT_TRUE(WaitForLoopPasses(r, 3));  // and nothing more comes
  EXPECT_EQ(ctl.of_type("log").size(), 3u);
  EXPECT_EQ(CountRule(ctl, "xid-79"), 2u);
  EXPECT_EQ(ctl.duplicates(), 0u);
}

TEST(Agent, RestartsResumeWithoutLossOrDuplicates) {
  ScratchDir d;
  FakeController ctl;
  WriteFile(d / "logs/a.log", kXid + "\n");
  {
    Running r(Config(d, ctl.url()));
    ASSERT_TRUE(ctl.WaitFor([&] { return ctl.of_type("log").size() == 1; }));
  }
  AppendFile(d / "logs/a.log", "noise\n" + kPeer + "\n");
  WriteFile(d / "logs/b.log", kXid + "\n");
  {
    Running r(Config(d, ctl.url()));
    ASSERT_TRUE(ctl.WaitFor([&] { return ctl.of_type("log").size() == 3; }));
    ASSERT_TRUE(WaitForLoopPasses(r, 3));  // and nothing more comes before it stops
  }
  EXPECT_EQ(ctl.of_type("log").size(), 3u);
  EXPECT_EQ(ctl.duplicates(), 0u) << ctl.duplicate_ids()[0];
  std::set<uint64_t> lines;
  for (auto& e : ctl.of_type("log")) lines.insert(e["line"].get<uint64_t>());
  EXPECT_EQ(lines.size(), 3u);  // one train.log numbering across files and restarts
}

TEST(Agent, ReloadedRulesApplyToNewLines) {
  ScratchDir d;
  FakeController ctl;
  WriteFile(d / "rules/site.yaml", R"(rules:
  - id: site-first
    class: critical
    component: power
    pattern: 'BMC: PSU(?P<psu>\d) lost input'
    reason: our BMC forwards PSU failures to the kernel log
    samples: ['BMC: PSU2 lost input']
)");
  WriteFile(d / "logs/a.log", "BMC: PSU1 lost input\n");
  AgentConfig c = Config(d, ctl.url());
  c.rule_dirs = {d / "rules"};
  Running r(c);
  ASSERT_TRUE(ctl.WaitFor([&] { return CountRule(ctl, "site-first") == 1; }));
  WriteFile(d / "rules/site2.yaml", R"(rules:
  - id: site-second
    class: critical
    component: gpu
    pattern: 'FAN(?P<fan>\d) stopped'
    reason: a stopped fan overheats the GPUs
    samples: ['FAN3 stopped']
)");
  r.agent().ReloadRules();
  ASSERT_TRUE(ctl.WaitFor([&] { return r.agent().counters().rule_reloads_ok.load() == 1; }));
  ASSERT_TRUE(WaitForLoopPasses(r, 2));  // the streams reach an idle point, where new rules apply
  AppendFile(d / "logs/a.log", "FAN3 stopped\n");
  ASSERT_TRUE(ctl.WaitFor([&] { return CountRule(ctl, "site-second") == 1; }));

  WriteFile(d / "rules/broken.yaml", "rules: [ {id: x, class: nonsense} ]\n");
  r.agent().ReloadRules();
  ASSERT_TRUE(ctl.WaitFor([&] { return r.agent().counters().rule_reloads_failed.load() == 1; }));
  AppendFile(d / "logs/a.log", "FAN4 stopped\n");  // the rules in use stay
  ASSERT_TRUE(ctl.WaitFor([&] { return CountRule(ctl, "site-second") == 2; }));
}

// A disk that refuses the queue's writes: /healthz says so (503) and the gauge is 1 while
// reading waits; once the disk takes writes again the line goes out and health is back.
TEST(Agent, HealthzSaysWhenTheQueueRefusesEvents) {
  ScratchDir d;
  FakeController ctl;
  WriteFile(d / "logs/rank0.log", "");
  FaultInjectionEnv disk;  // before the agent: outlives it
  AgentConfig c = Config(d, ctl.url());
  c.env = &disk;
  Running r(c);
  httplib::Client http("127.0.0.1", r.agent().metrics_port());
  const auto healthz = [&] {
    auto res = http.Get("/healthz");
    return res ? res->status : 0;
  };
  ASSERT_EQ(healthz(), 200);
  disk.SetSpaceLeft(0);
  AppendFile(d / "logs/rank0.log", kXid + "\n");
  ASSERT_TRUE(WaitFor([&] { return healthz() == 503; }));
  EXPECT_EQ(MetricSample(r, "aegis_agent_queue_blocked"), 1);
  EXPECT_TRUE(ctl.of_type("log").empty());
  disk.ClearFaults();
  ASSERT_TRUE(ctl.WaitFor([&] { return CountRule(ctl, "xid-79") == 1; }));
  EXPECT_EQ(healthz(), 200);
  EXPECT_EQ(MetricSample(r, "aegis_agent_queue_blocked"), 0);
}

TEST(Agent, AFileItWasToldToReadIsReportedMissingUntilItAppears) {
  ScratchDir d;
  FakeController ctl;
  AgentConfig c = Config(d, ctl.url());
  c.kernel_log = d / "kernel.log";  // not there yet
  Running r(c);
  httplib::Client http("127.0.0.1", r.agent().metrics_port());
  const auto healthz = [&] {
    auto res = http.Get("/healthz");
    return res && res->status == 200 ? res->body : std::string("no answer");
  };
  const std::string missing = "aegis_agent_input_missing{source=\"kernel_file\",input=\"" + (d / "kernel.log") + "\"}";
  ASSERT_TRUE(WaitFor([&] { return MetricSample(r, missing) == 1; })) << healthz();
  EXPECT_NE(healthz().find("missing kernel_file: " + (d / "kernel.log")), std::string::npos) << healthz();
  WriteFile(d / "kernel.log", kXid + "\n");
  ASSERT_TRUE(ctl.WaitFor([&] { return CountRule(ctl, "xid-79") == 1; }));
  ASSERT_TRUE(WaitFor([&] { return healthz() == "ok\n"; })) << healthz();
  EXPECT_EQ(MetricSample(r, missing), -1);
}

TEST(Agent, CclDatagramsBecomeCoalescedEvents) {
  ScratchDir d;
  FakeController ctl;
  Running r(Config(d, ctl.url()));
  int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, (d / "ccl.sock").c_str(), sizeof addr.sun_path - 1);
  for (int i = 0; i < 10; ++i) {
    const std::string rec = "{\"v\": 1, \"ts\": " + std::to_string(100 + i) +
                            ".000, \"host\": \"node-0007\", \"pid\": 7, \"gpu\": 0, \"comm\": \"c0\", \"rank\": 0, "
                            "\"coll\": {}, \"net\": [], \"recent\": []}";
    ASSERT_GT(::sendto(fd, rec.data(), rec.size(), 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  }
  ::close(fd);
  ASSERT_TRUE(ctl.WaitFor([&] {
    auto ccl = ctl.of_type("ccl");
    return !ccl.empty() && ccl.back()["record"]["ts"] == 109.0;
  }));
  EXPECT_LT(ctl.of_type("ccl").size(), 10u);  // coalesced
}

TEST(Agent, OneAgentPerStateDirectory) {
  ScratchDir d;
  FakeController ctl;
  Running r(Config(d, ctl.url()));
  AgentConfig c = Config(d, ctl.url());
  c.ccl_socket = "none";
  Agent second(c);
  Status s = second.Start();
  EXPECT_EQ(s.code(), Status::Code::kFailedPrecondition) << s.ToString();
}

TEST(Agent, ConfigValidationNamesTheOption) {
  AgentConfig c;
  EXPECT_NE(ValidateConfig(&c).message().find("--controller"), std::string::npos);
  c.controller = "http://127.0.0.1:8470";
  EXPECT_NE(ValidateConfig(&c).message().find("--node"), std::string::npos);
  c.node = "bad:name";
  EXPECT_FALSE(ValidateConfig(&c).ok());
  c.node = "node-0007";
  c.metrics_listen = "nowhere";
  EXPECT_NE(ValidateConfig(&c).message().find("--metrics-listen"), std::string::npos);
  c.metrics_listen = "127.0.0.1:9470";
  c.token_file = "/nonexistent/token";
  EXPECT_NE(ValidateConfig(&c).message().find("--token-file"), std::string::npos);
  c.token_file.clear();
  c.ca_file = "/etc/ssl/ca.pem";
  EXPECT_FALSE(ValidateConfig(&c).ok());  // https only
  c.ca_file.clear();
  EXPECT_TRUE(ValidateConfig(&c).ok());
  // The listening address is read by the parser every server shares (its own tests are
  // in tests/common); the agent names its flag when it refuses one.
  c.metrics_listen = ":9470";
  EXPECT_TRUE(ValidateConfig(&c).ok());
  c.metrics_listen = "::1:9470";
  Status st = ValidateConfig(&c);
  EXPECT_TRUE(st.IsInvalidArgument());
  EXPECT_NE(st.message().find("--metrics-listen"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace aegis::agent
