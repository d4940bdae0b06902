// The HTTP API against the real server on a loopback port: scopes, limits, validation,
// idempotent ingest, the jobs lifecycle, host changes by a person, the status document.
#include <gtest/gtest.h>

#include <httplib.h>
#include <sys/stat.h>

#include <fstream>
#include <set>
#include <tuple>
#include <vector>

#include "test_controller.h"

namespace aegis::controller::test {
namespace {

using nlohmann::json;

const std::string kAgent = "agent-token-0123456789";
const std::string kOperator = "operator-token-0123456";
const std::string kRead = "read-token-0123456789a";

// A token file as the controller wants it: readable by its owner only.
std::string PrivateFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  chmod(path.c_str(), 0600);
  return path;
}

ControllerOptions WithTokens(const std::string& dir) {
  ControllerOptions o = TestController::Defaults();
  o.token_file = PrivateFile(dir + "/tokens", "agent@node-1 " + kAgent + "\noperator " + kOperator + " alice\nread " +
                                                  kRead + " dashboards\n");
  return o;
}

double Metric(const TestController& c, const std::string& name) {
  const std::string body = c.Get("/metrics").body;
  const size_t at = body.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(body.substr(at + name.size() + 2));
}

json Heartbeat(const std::string& node, const std::string& id) {
  return {{"node", node}, {"agent", "a-" + node}, {"events", {{{"id", id}, {"type", "heartbeat"}, {"at", 1764497523.0}}}}};
}

const char* kTopology = R"({"nodes": [{"host": "node-1"}, {"host": "node-2"}, {"host": "node-3"}]})";
const char* kJob = R"({"id": "job-1", "state": "running", "started_at": "2026-11-30T10:00:00Z", "hosts": ["node-1", "node-2"]})";

TEST(HttpApi, ScopesOfEveryCaller) {
  store::test::ScratchDir dir;
  TestController c(WithTokens(dir.path()));
  // No token, a wrong token: 401.
  EXPECT_EQ(c.Get("/api/v1/status").status, 401);
  EXPECT_EQ(c.Get("/api/v1/status", "wrong-token-0123456789").status, 401);
  EXPECT_EQ(c.Post("/api/v1/events", Heartbeat("node-1", "h1").dump()).status, 401);
  // Agents post events and nothing else.
  EXPECT_EQ(c.Post("/api/v1/events", Heartbeat("node-1", "h1").dump(), kAgent).status, 200);
  EXPECT_EQ(c.Get("/api/v1/status", kAgent).status, 403);
  EXPECT_EQ(c.Post("/api/v1/jobs", kJob, kAgent).status, 403);
  EXPECT_EQ(c.Put("/api/v1/topology", kTopology, kAgent).status, 403);
  // Read-only: reads.
  EXPECT_EQ(c.Get("/api/v1/status", kRead).status, 200);
  EXPECT_EQ(c.Get("/api/v1/hosts", kRead).status, 200);
  EXPECT_EQ(c.Get("/api/v1/incidents", kRead).status, 200);
  EXPECT_EQ(c.Put("/api/v1/topology", kTopology, kRead).status, 403);
  EXPECT_EQ(c.Post("/api/v1/jobs", kJob, kRead).status, 403);
  EXPECT_EQ(c.Post("/api/v1/events", Heartbeat("node-1", "h2").dump(), kRead).status, 403);
  // People: everything but posting events.
  EXPECT_EQ(c.Put("/api/v1/topology", kTopology, kOperator).status, 200);
  EXPECT_EQ(c.Get("/api/v1/topology", kOperator).status, 200);
  EXPECT_EQ(c.Post("/api/v1/jobs", kJob, kOperator).status, 201);
  EXPECT_EQ(c.Post("/api/v1/hosts/node-3/state", R"({"state": "held", "reason": "suspect"})", kOperator).status, 200);
  EXPECT_EQ(c.Post("/api/v1/events", Heartbeat("node-1", "h3").dump(), kOperator).status, 403);
  // Health and metrics need no token.
  EXPECT_EQ(c.Get("/healthz").status, 200);
  EXPECT_EQ(c.Get("/metrics").status, 200);
  // The person's name is the actor of the change.
  json host = c.Get("/api/v1/hosts/node-3", kRead).Json();
  ASSERT_EQ(host["history"].size(), 1u);
  EXPECT_EQ(host["history"][0]["actor"], "alice");
  EXPECT_EQ(host["history"][0]["by"], "person");
}

TEST(HttpApi, AnAgentSpeaksForItsOwnNodeOnly) {
  store::test::ScratchDir dir;
  TestController c(WithTokens(dir.path()));
  // A batch from another node: refused whole.
  HttpReply other = c.Post("/api/v1/events", Heartbeat("node-2", "h1").dump(), kAgent);
  EXPECT_EQ(other.status, 403) << other.body;
  EXPECT_NE(other.body.find("node-1"), std::string::npos) << other.body;
  // Its own batch carrying lines about another node, or a switch's, or another file:
  // those events are refused one by one, the rest is taken.
  auto log = [](const std::string& id, const std::string& node, const std::string& source, const std::string& file) {
    return json{{"id", id},      {"type", "log"},       {"node", node},       {"source", source},
                {"file", file},  {"line", 3},           {"ts", 1764497523.0}, {"rule", "xid-79"},
                {"class", "critical"}, {"component", "gpu"}, {"xid", 79},
                {"text", "NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus."}};
  };
  json batch = {{"node", "node-1"},
                {"agent", "a-node-1"},
                {"events",
                 {log("own", "node-1", "kernel", "nodes/node-1/kernel.log"),
                  log("spoof", "node-2", "kernel", "nodes/node-2/kernel.log"),
                  log("file", "node-1", "kernel", "nodes/node-2/kernel.log"),
                  log("switch", "node-1", "switch", "switches/sw-1.log"),
                  {{"id", "probe"}, {"type", "probe"}, {"src", "node-2"}, {"dst", "node-1"}, {"size", 4096}, {"sent", 10}, {"lost", 10}}}}};
  HttpReply r = c.Post("/api/v1/events", batch.dump(), kAgent);
  ASSERT_EQ(r.status, 200) << r.body;
  json j = r.Json();
  EXPECT_EQ(j["accepted"], 1) << r.body;
  ASSERT_EQ(j["rejected"].size(), 4u) << r.body;
  std::set<std::string> refused;
  for (const auto& x : j["rejected"]) refused.insert(x["id"].get<std::string>());
  EXPECT_EQ(refused, (std::set<std::string>{"spoof", "file", "switch", "probe"}));
  EXPECT_EQ(Metric(c, "aegis_events_foreign_total"), 4);
  EXPECT_EQ(Metric(c, "aegis_event_batches_foreign_total"), 1);
}

TEST(HttpApi, TheCatalogueDecidesAnEventsClass) {
  TestController c;
  json own = {{"id", "e1"},   {"type", "log"}, {"node", "node-1"}, {"source", "kernel"},
              {"file", "nodes/node-1/kernel.log"}, {"line", 3}, {"ts", 1764497523.0}, {"rule", "xid-79"},
              {"class", "hint"}, {"component", "host"}, {"xid", 79},
              {"text", "NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus."}};
  json unknown = own;
  unknown["id"] = "e2";
  unknown["rule"] = "my-own-rule";
  json batch = {{"node", "node-1"}, {"agent", "a"}, {"events", {own, unknown}}};
  HttpReply r = c.Post("/api/v1/events", batch.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.Json()["rejected"].size(), 1u) << r.body;
  EXPECT_EQ(r.Json()["rejected"][0]["id"], "e2");
  EXPECT_NE(r.body.find("my-own-rule"), std::string::npos) << r.body;
  EXPECT_EQ(Metric(c, "aegis_events_reclassified_total"), 1);
  EXPECT_EQ(Metric(c, "aegis_events_unknown_rule_total"), 1);
}

TEST(HttpApi, TokenFilesThatWouldLetOthersInAreRefusedAtStart) {
  store::test::ScratchDir dir;
  ControllerOptions o = TestController::Defaults();
  o.db = "sqlite:" + dir.path() + "/aegis.db";
  o.token_file = PrivateFile(dir.path() + "/tokens", "agent " + kAgent + " collectors\n");
  std::unique_ptr<Controller> ctl;
  Status s = Controller::Open(o, &ctl);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("--allow-shared-agent-token"), std::string::npos) << s.message();
  o.allow_shared_agent_token = true;
  EXPECT_TRUE(Controller::Open(o, &ctl).ok());
  ctl.reset();
  chmod(o.token_file.c_str(), 0644);
  s = Controller::Open(o, &ctl);
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
}

TEST(HttpApi, ARevokedTokenIsRefusedAfterReload) {
  store::test::ScratchDir dir;
  ControllerOptions o = WithTokens(dir.path());
  TestController c(o);
  EXPECT_EQ(c.Post("/api/v1/events", Heartbeat("node-1", "h1").dump(), kAgent).status, 200);
  PrivateFile(o.token_file, "operator " + kOperator + " alice\n");
  ASSERT_TRUE(c.controller().ReloadTokens().ok());
  EXPECT_EQ(c.Post("/api/v1/events", Heartbeat("node-1", "h2").dump(), kAgent).status, 401);
  EXPECT_EQ(c.Get("/api/v1/status", kOperator).status, 200);
  // A file the controller refuses leaves the tokens it has.
  PrivateFile(o.token_file, "# nothing\n");
  EXPECT_FALSE(c.controller().ReloadTokens().ok());
  EXPECT_EQ(c.Get("/api/v1/status", kOperator).status, 200);
}

TEST(HttpApi, AJobOnAHostOutOfServiceStartsAndSaysSo) {
  TestController c;
  ASSERT_EQ(c.Put("/api/v1/topology", kTopology).status, 200);
  ASSERT_EQ(c.Post("/api/v1/hosts/node-2/state", R"({"state": "isolated", "reason": "bad GPU"})").status, 200);
  HttpReply r = c.Post("/api/v1/jobs", kJob);  // on node-1 and node-2
  ASSERT_EQ(r.status, 201) << r.body;
  const json out = r.Json()["hosts_not_in_service"];
  ASSERT_EQ(out.size(), 1u) << r.body;
  EXPECT_EQ(out[0]["host"], "node-2");
  EXPECT_EQ(out[0]["state"], "isolated");
  json other = json::parse(kJob);
  other["id"] = "job-2";
  other["hosts"] = {"node-1", "node-3"};
  r = c.Post("/api/v1/jobs", other.dump());
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_TRUE(r.Json()["hosts_not_in_service"].empty()) << r.body;
}

TEST(HttpApi, FormBodiesAre415) {
  TestController c;
  httplib::Client client("127.0.0.1", c.port());
  auto r = client.Post("/api/v1/jobs", "id=job-1&state=running", "application/x-www-form-urlencoded");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415);
  httplib::MultipartFormDataItems items = {{"id", "job-1", "", ""}};
  auto m = client.Post("/api/v1/jobs", items);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 415);
  EXPECT_EQ(c.Get("/healthz").status, 200);
}

TEST(HttpApi, ASecondServerOnTheSamePortFailsToStart) {
  TestController c;
  HttpApi second(&c.controller());
  Status s = second.Start("127.0.0.1", c.port());
  EXPECT_EQ(s.code(), Status::Code::kIOError) << "two controllers would share the port's connections: " << s.ToString();
  EXPECT_EQ(c.Get("/healthz").status, 200);
}

TEST(HttpApi, BodiesOverTheLimitAre413) {
  TestController c;
  std::string big = R"({"node": "node-1", "agent": "a", "events": [], "pad": ")" + std::string(5u << 20, 'x') + "\"}";
  HttpReply r = c.Post("/api/v1/events", big);
  EXPECT_EQ(r.status, 413);
  // Just under the limit is read (and this one is valid).
  std::string fits = R"({"node": "node-1", "agent": "a", "events": [], "pad": ")" + std::string((4u << 20) - 100, 'x') + "\"}";
  EXPECT_EQ(c.Post("/api/v1/events", fits).status, 200);
}

// One request must not take the controller down: a body nested 50,000 deep (100 KB,
// under every size limit) overflowed the stack of the thread that parsed it. Every
// endpoint that takes a body refuses it, and the controller answers the next request.
TEST(HttpApi, DeeplyNestedBodiesAreRefusedNotFollowed) {
  TestController c;
  const std::string deep = std::string(50000, '[') + std::string(50000, ']');
  const std::string in_job = R"({"id": "j", "hosts": ["n"], "x": )" + deep + "}";
  for (const auto& [method, path, body] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"POST", "/api/v1/events", R"({"node": "n", "agent": "a", "events": [)" + deep + "]}"},
           {"POST", "/api/v1/jobs", in_job},
           {"POST", "/api/v1/jobs/j/end", R"({"state": "failed", "x": )" + deep + "}"},
           {"POST", "/api/v1/hosts/n/state", R"({"state": "repair", "x": )" + deep + "}"},
           {"PUT", "/api/v1/topology", R"({"nodes": )" + deep + "}"}}) {
    const HttpReply r = method == "PUT" ? c.Put(path, body) : c.Post(path, body);
    EXPECT_EQ(r.status, 400) << path << ": " << r.body;
    EXPECT_NE(r.body.find("nested deeper than 64 levels"), std::string::npos) << path << ": " << r.body;
  }
  // 64 levels are fine, and the controller is still there.
  const std::string fits = R"({"id": "j", "hosts": ["n"], "x": )" + std::string(63, '[') + std::string(63, ']') + "}";
  EXPECT_EQ(c.Post("/api/v1/jobs", fits).status, 201);
  EXPECT_EQ(c.Get("/api/v1/status").status, 200);
}

TEST(HttpApi, EveryBodyIsValidated) {
  TestController c;
  auto expect400 = [&](const HttpReply& r, const std::string& needle) {
    EXPECT_EQ(r.status, 400) << r.body;
    json j = r.Json();
    ASSERT_TRUE(j.is_object() && j["error"].is_string()) << r.body;
    EXPECT_NE(j["error"].get<std::string>().find(needle), std::string::npos) << r.body;
  };
  expect400(c.Post("/api/v1/events", "[1, 2]"), "must be a JSON object");
  expect400(c.Post("/api/v1/events", R"({"node": "n", "agent": "a", "events": "none"})"), "batch.events must be an array");
  expect400(c.Post("/api/v1/jobs", R"({"id": "j", "hosts": [1]})"), "job.hosts[0] must be a string");
  expect400(c.Post("/api/v1/jobs", R"({"id": "j", "hosts": ["n"], "state": "sideways"})"), "\"sideways\" is not one of");
  expect400(c.Put("/api/v1/topology", R"({"nodes": [{"host": 5}]})"), "topology.nodes[0].host must be a string");
  expect400(c.Post("/api/v1/jobs/j/end", R"({"state": "exploded"})"), "is not one of failed, hung, slow, done");
  expect400(c.Post("/api/v1/hosts/n/state", R"({"state": "fixed"})"), "is not one of in_service");
  expect400(c.Post("/api/v1/hosts/n/state", "{"), "not valid JSON");
  EXPECT_EQ(c.Get("/api/v1/incidents?limit=zero").status, 400);
  EXPECT_EQ(c.Get("/api/v1/nothing-here").status, 404);
}

TEST(HttpApi, IngestIsIdempotentByEventId) {
  TestController c;
  json batch = {{"node", "node-1"}, {"agent", "a"}, {"events", json::array()}};
  for (int i = 0; i < 50; ++i)
    batch["events"].push_back({{"id", "hb-" + std::to_string(i)}, {"type", "heartbeat"}, {"at", 1764497523.0 + i}});
  batch["events"].push_back({{"id", "broken"}, {"type", "heartbeat"}});
  HttpReply first = c.Post("/api/v1/events", batch.dump());
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.Json()["accepted"], 50);
  EXPECT_EQ(first.Json()["duplicates"], 0);
  ASSERT_EQ(first.Json()["rejected"].size(), 1u);
  EXPECT_EQ(first.Json()["rejected"][0]["id"], "broken");
  EXPECT_EQ(first.Json()["rejected"][0]["index"], 50);
  HttpReply again = c.Post("/api/v1/events", batch.dump());  // an agent that lost the answer sends it again
  EXPECT_EQ(again.Json()["accepted"], 0);
  EXPECT_EQ(again.Json()["duplicates"], 50);
  std::vector<store::Event> stored;
  ASSERT_TRUE(c.controller().store().EventsAfter(0, 1000, &stored).ok());
  EXPECT_EQ(stored.size(), 50u);
  const std::string metrics = c.Get("/metrics").body;
  EXPECT_NE(metrics.find("aegis_events_ingested_total 50\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("aegis_events_duplicate_total 50\n"), std::string::npos);
  EXPECT_NE(metrics.find("aegis_verdict_latency_seconds_bucket{le=\"+Inf\"}"), std::string::npos);
}

TEST(HttpApi, BackpressureAnswers503WithRetryAfter) {
  ControllerOptions o = TestController::Defaults();
  o.max_ingest_in_flight = 0;  // every post finds the controller busy
  TestController c(o);
  HttpReply r = c.Post("/api/v1/events", Heartbeat("node-1", "h1").dump());
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.retry_after, "1");
  EXPECT_NE(c.Get("/metrics").body.find("aegis_backpressure_total 1\n"), std::string::npos);
}

TEST(HttpApi, JobsLifecycle) {
  TestController c;
  ASSERT_EQ(c.Put("/api/v1/topology", kTopology).status, 200);
  EXPECT_EQ(c.Post("/api/v1/jobs/job-1/end", R"({"state": "done"})").status, 404);
  HttpReply started = c.Post("/api/v1/jobs", kJob);
  ASSERT_EQ(started.status, 201) << started.body;
  EXPECT_EQ(started.Json()["created"], true);
  HttpReply again = c.Post("/api/v1/jobs", kJob);
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.Json()["created"], false);
  json running = c.Get("/api/v1/jobs?state=running").Json();
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0]["id"], "job-1");
  HttpReply done = c.Post("/api/v1/jobs/job-1/end", R"({"state": "done"})");
  ASSERT_EQ(done.status, 200) << done.body;
  EXPECT_TRUE(done.Json()["incident"].is_null());
  EXPECT_EQ(c.Post("/api/v1/jobs/job-1/end", R"({"state": "done"})").status, 200);  // repeated: same answer
  EXPECT_EQ(c.Post("/api/v1/jobs/job-1/end", R"({"state": "failed"})").status, 409);
  EXPECT_EQ(c.Post("/api/v1/jobs", kJob).status, 409);  // ended jobs do not start again
  json job = c.Get("/api/v1/jobs/job-1").Json();
  EXPECT_EQ(job["state"], "done");
  EXPECT_TRUE(job["ended_at"].is_string());
  EXPECT_TRUE(c.Get("/api/v1/incidents").Json().empty());
}

TEST(HttpApi, StatusListsSilentAgents) {
  TestController c;
  ASSERT_EQ(c.Put("/api/v1/topology", kTopology).status, 200);
  json beat = Heartbeat("node-1", "h1");
  beat["events"][0]["agent"] = {{"lag_s", 1.5}, {"queue_events", 12}};
  beat["events"][0]["at"] = c.controller().Now();  // covered up to now
  ASSERT_EQ(c.Post("/api/v1/events", beat.dump()).status, 200);
  json agents = c.Get("/api/v1/agents").Json();
  ASSERT_EQ(agents.size(), 3u) << agents.dump();
  EXPECT_EQ(agents[0]["node"], "node-1");
  EXPECT_FALSE(agents[0]["silent"]);
  EXPECT_EQ(agents[0]["lag_s"], 1.5);
  EXPECT_EQ(agents[0]["queue_events"], 12);
  EXPECT_TRUE(agents[1]["silent"]);  // node-2 never posted
  EXPECT_TRUE(agents[1]["heard_at"].is_null());
}

TEST(HttpApi, StatusDocumentShape) {
  TestController c;
  ASSERT_EQ(c.Put("/api/v1/topology", kTopology).status, 200);
  ASSERT_EQ(c.Post("/api/v1/jobs", kJob).status, 201);
  ASSERT_EQ(c.Post("/api/v1/hosts/node-2/state", R"({"state": "held", "reason": "new PSU"})").status, 200);
  HttpReply end = c.Post("/api/v1/jobs/job-1/end", R"({"state": "failed"})");
  ASSERT_EQ(end.status, 200);
  const std::string inc = end.Json()["incident"];
  ASSERT_FALSE(WaitDecided(c, inc).is_null());
  nlohmann::ordered_json doc = c.Get("/api/v1/status").OrderedJson();
  ASSERT_TRUE(doc.is_object());
  std::vector<std::string> keys;
  for (auto it = doc.begin(); it != doc.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"hosts", "incidents"}));
  ASSERT_EQ(doc["hosts"].size(), 3u);
  for (const auto& h : doc["hosts"]) {
    std::vector<std::string> hk;
    for (auto it = h.begin(); it != h.end(); ++it) hk.push_back(it.key());
    EXPECT_EQ(hk, (std::vector<std::string>{"host", "state", "since", "incident", "reason"}));
    EXPECT_TRUE(h["since"].is_string());
    EXPECT_EQ(h["since"].get<std::string>().size(), 20u);  // 2026-11-30T10:12:09Z
  }
  EXPECT_EQ(doc["hosts"][1]["state"], "held");
  EXPECT_EQ(doc["hosts"][1]["reason"], "new PSU");
  ASSERT_EQ(doc["incidents"].size(), 1u);
  const nlohmann::ordered_json& i = doc["incidents"][0];
  std::vector<std::string> ik;
  for (auto it = i.begin(); it != i.end(); ++it) ik.push_back(it.key());
  EXPECT_EQ(ik, (std::vector<std::string>{"id", "job", "opened_at", "decided_at", "verdict", "actions"}));
  EXPECT_EQ(i["id"], inc);
  EXPECT_EQ(i["job"], "job-1");
  EXPECT_TRUE(i["verdict"].is_object());
  EXPECT_TRUE(i["verdict"]["confidence"].is_object());
  // No event at all: offline diagnosis of the job's hosts, one recorded drain each.
  EXPECT_EQ(i["verdict"]["action"], "offline");
  EXPECT_EQ(doc["hosts"][0]["state"], "offline");
  EXPECT_EQ(doc["hosts"][0]["incident"], inc);
  EXPECT_TRUE(doc["hosts"][2]["incident"].is_null());
  ASSERT_EQ(i["actions"].size(), 1u);  // node-2 is held by a person: the decision leaves it alone
  std::vector<std::string> ak;
  for (auto it = i["actions"][0].begin(); it != i["actions"][0].end(); ++it) ak.push_back(it.key());
  EXPECT_EQ(ak, (std::vector<std::string>{"host", "do", "backend", "dry_run", "at", "result"}));
  EXPECT_EQ(i["actions"][0]["do"], "drain");
  EXPECT_EQ(i["actions"][0]["backend"], "none");
  EXPECT_EQ(i["actions"][0]["result"], "recorded");
}

TEST(HttpApi, PersonChangesHostState) {
  TestController c;
  ASSERT_EQ(c.Put("/api/v1/topology", kTopology).status, 200);
  EXPECT_EQ(c.Post("/api/v1/hosts/node-9/state", R"({"state": "isolated"})").status, 404);
  HttpReply r = c.Post("/api/v1/hosts/node-1/state", R"({"state": "isolated", "reason": "burn-in failed"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json()["state"], "isolated");
  EXPECT_EQ(r.Json()["changed"], true);
  r = c.Post("/api/v1/hosts/node-1/state", R"({"state": "in_service", "reason": "replaced GPU"})");
  EXPECT_EQ(r.Json()["state"], "in_service");
  json host = c.Get("/api/v1/hosts/node-1").Json();
  ASSERT_EQ(host["history"].size(), 2u);
  EXPECT_EQ(host["history"][1]["reason"], "replaced GPU");
  std::vector<store::ActionRecord> actions;
  ASSERT_TRUE(c.controller().store().ActionsWithResult(store::ActionResult::kRecorded, 10, &actions).ok());
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[0].op, store::ActionOp::kDrain);
  EXPECT_EQ(actions[1].op, store::ActionOp::kResume);
}

}  // namespace
}  // namespace aegis::controller::test
