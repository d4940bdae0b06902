#include "controller/api_bodies.h"

#include <gtest/gtest.h>

namespace aegis::controller {
namespace {

using nlohmann::json;

json XidLogEvent(const std::string& id) {
  return {{"id", id},
          {"type", "log"},
          {"node", "node-0001"},
          {"source", "kernel"},
          {"file", "nodes/node-0001/kernel.log"},
          {"line", 12},
          {"ts", 1764497523.1},
          {"ts_exact", true},
          {"rule", "xid-79"},
          {"class", "critical"},
          {"component", "gpu"},
          {"xid", 79},
          {"fields", {{"pci", "0000:18:00"}}},
          {"text", "NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus."}};
}

TEST(EventBatch, EveryTypeIsRead) {
  json ccl_record = {{"comm", "0x1"}, {"rank", 3}, {"ts", 1764497523.0}, {"coll", {{"AllReduce", {{"launched", 10}, {"completed", 9}}}}}};
  json batch = {{"node", "node-0001"},
                {"agent", "agent-1"},
                {"unknown_field", 1},
                {"events",
                 {XidLogEvent("e1"),
                  {{"id", "e2"}, {"type", "ccl"}, {"file", "node-0001-41000.jsonl"}, {"record", ccl_record}},
                  {{"id", "e3"}, {"type", "facts"}, {"facts", {{"gpu", {{"count", 8}}}}}},
                  {{"id", "e4"}, {"type", "metric"}, {"metric", "DCGM_FI_DEV_GPU_TEMP"}, {"device", "3"}, {"t", {1.0, 2.0}}, {"v", {50, nullptr}}},
                  {{"id", "e5"}, {"type", "heartbeat"}, {"at", "2026-11-30T10:12:04Z"}, {"agent", {{"version", "1"}}}},
                  {{"id", "e6"}, {"type", "probe"}, {"src", "node-0001"}, {"dst", "node-0002"}, {"size", 4096}, {"sent", 100}, {"lost", 1}}}}};
  EventBatch b;
  ASSERT_TRUE(ParseEventBatch(batch.dump(), {}, &b).ok());
  EXPECT_TRUE(b.rejected.empty()) << b.rejected[0].reason;
  ASSERT_EQ(b.events.size(), 6u);
  EXPECT_EQ(b.events[0].type, wire::EventType::kLog);
  EXPECT_DOUBLE_EQ(b.events[0].at, 1764497523.1);
  EXPECT_EQ(b.events[1].type, wire::EventType::kCcl);
  EXPECT_EQ(b.events[2].type, wire::EventType::kFacts);
  EXPECT_TRUE(std::isnan(b.events[2].at));
  EXPECT_EQ(b.events[3].type, wire::EventType::kMetric);
  EXPECT_EQ(b.events[4].type, wire::EventType::kHeartbeat);
  EXPECT_DOUBLE_EQ(b.events[4].at, 1796033524.0);
  EXPECT_EQ(b.events[5].type, wire::EventType::kProbe);
  for (const auto& e : b.events) EXPECT_EQ(e.node, "node-0001");
  // The stored body names the node even when the agent left it to the batch.
  EXPECT_EQ(json::parse(b.events[2].body)["node"], "node-0001");
}

TEST(EventBatch, BadEventsAreRejectedOneByOne) {
  json bad_class = XidLogEvent("e2");
  bad_class["class"] = "catastrophic";
  json bad_type = XidLogEvent("e3");
  bad_type["line"] = "twelve";
  json batch = {{"node", "node-0001"},
                {"agent", "a"},
                {"events",
                 {XidLogEvent("e1"), bad_class, bad_type, {{"type", "log"}}, {{"id", "e5"}, {"type", "telemetry"}},
                  {{"id", "e6"}, {"type", "metric"}, {"metric", "m"}, {"t", {1.0}}, {"v", {1.0, 2.0}}},
                  {{"id", "e7"}, {"type", "ccl"}, {"record", {{"comm", "x"}}}},
                  {{"id", "bad id/../"}, {"type", "heartbeat"}, {"at", 1}},
                  42}}};
  EventBatch b;
  ASSERT_TRUE(ParseEventBatch(batch.dump(), {}, &b).ok());
  ASSERT_EQ(b.events.size(), 1u);
  ASSERT_EQ(b.rejected.size(), 8u);
  EXPECT_EQ(b.rejected[0].id, "e2");
  EXPECT_NE(b.rejected[0].reason.find("unknown class \"catastrophic\""), std::string::npos) << b.rejected[0].reason;
  EXPECT_NE(b.rejected[1].reason.find("\"line\" has the wrong type"), std::string::npos) << b.rejected[1].reason;
  EXPECT_EQ(b.rejected[2].id, "");
  EXPECT_NE(b.rejected[2].reason.find("event.id is required"), std::string::npos);
  EXPECT_NE(b.rejected[3].reason.find("unknown type \"telemetry\""), std::string::npos);
  EXPECT_NE(b.rejected[4].reason.find("differ in length"), std::string::npos);
  EXPECT_NE(b.rejected[5].reason.find("not a CCL snapshot"), std::string::npos);
  EXPECT_EQ(b.rejected[7].index, 8u);
}

TEST(EventBatch, ShapeErrorsFailTheWholeBody) {
  EventBatch b;
  for (const char* body : {"", "[]", "not json", "{\"agent\": \"a\", \"events\": []}", "{\"node\": 3, \"agent\": \"a\", \"events\": []}",
                           "{\"node\": \"n\", \"agent\": \"a\", \"events\": {}}", "{\"node\": \"n\", \"events\": []}",
                           "{\"node\": \"a/b\", \"agent\": \"a\", \"events\": []}"}) {
    Status s = ParseEventBatch(body, {}, &b);
    EXPECT_TRUE(s.IsInvalidArgument()) << body;
    EXPECT_FALSE(s.message().empty());
  }
  EXPECT_EQ(ParseEventBatch("{\"node\": 3, \"agent\": \"a\", \"events\": []}", {}, &b).message(), "batch.node must be a string");
}

TEST(JobStart, ValidatesAndFillsIn) {
  JobStart s;
  ASSERT_TRUE(ParseJobStart(R"({"id": "job-1", "hosts": ["n1", "n2"], "extra": {"x": 1}})", 1796033523.0, &s).ok());
  EXPECT_EQ(s.job.id, "job-1");
  EXPECT_EQ(s.job.hosts.size(), 2u);
  EXPECT_DOUBLE_EQ(s.job.started_at, 1796033523.0);
  json body = json::parse(s.body);
  EXPECT_EQ(body["state"], "running");
  EXPECT_EQ(body["started_at"], "2026-11-30T10:12:03Z");
  EXPECT_EQ(body["extra"]["x"], 1);

  auto message = [](const char* text) {
    JobStart out;
    return ParseJobStart(text, 0, &out).message();
  };
  EXPECT_EQ(message(R"({"hosts": ["n1"]})"), "job.id is required");
  EXPECT_EQ(message(R"({"id": 7, "hosts": ["n1"]})"), "job.id must be a string");
  EXPECT_EQ(message(R"({"id": "j", "hosts": "n1"})"), "job.hosts must be an array of strings");
  EXPECT_EQ(message(R"({"id": "j", "hosts": ["n1", 2]})"), "job.hosts[1] must be a string");
  EXPECT_EQ(message(R"({"id": "j", "hosts": []})"), "job.hosts must list at least one host");
  EXPECT_EQ(message(R"({"id": "j", "hosts": ["n1"], "state": "exploded"})"),
            "job.state \"exploded\" is not one of running, failed, hung, slow, done");
  EXPECT_NE(message(R"({"id": "j", "hosts": ["n1"], "state": "failed"})").find("must be \"running\""), std::string::npos);
  EXPECT_NE(message(R"({"id": "j", "hosts": ["n1"], "started_at": "soon"})").find("is not a time"), std::string::npos);
  EXPECT_EQ(message(R"({"id": "j", "hosts": ["n1"], "ranks": [{"rank": "0"}]})"), "job.ranks[0].rank must be a whole number");
  EXPECT_EQ(message(R"({"id": "j", "hosts": ["n1", "n1"]})"), "job.hosts: n1 is listed twice");
}

TEST(JobEnd, States) {
  JobEnd e;
  ASSERT_TRUE(ParseJobEnd(R"({"state": "hung"})", &e).ok());
  EXPECT_EQ(e.state, JobState::kHung);
  EXPECT_TRUE(std::isnan(e.ended_at));
  ASSERT_TRUE(ParseJobEnd(R"({"state": "done", "ended_at": 1764497523})", &e).ok());
  EXPECT_EQ(e.state, JobState::kDone);
  EXPECT_EQ(ParseJobEnd(R"({"state": "running"})", &e).message(), "end.state \"running\" is not one of failed, hung, slow, done");
  EXPECT_EQ(ParseJobEnd(R"({"state": 2})", &e).message(), "end.state must be a string");
  EXPECT_EQ(ParseJobEnd(R"({})", &e).message(), "end.state is required");
}

TEST(HostState, Request) {
  HostStateRequest r;
  ASSERT_TRUE(ParseHostStateRequest(R"({"state": "in_service", "reason": "repaired"})", &r).ok());
  EXPECT_EQ(r.state, store::HostState::kInService);
  EXPECT_EQ(r.reason, "repaired");
  EXPECT_NE(ParseHostStateRequest(R"({"state": "broken"})", &r).message().find("is not one of in_service"), std::string::npos);
  EXPECT_EQ(ParseHostStateRequest(R"({"state": "held", "reason": 5})", &r).message(), "host.reason must be a string");
}

TEST(Topology, StrictFields) {
  Topology t;
  ASSERT_TRUE(ParseTopologyBody(R"({"nodes": [{"host": "n1", "gpus": [{"index": 0, "pci": "0000:18:00.0"}],
      "nics": [{"name": "mlx5_0", "rail": 0, "switch": ["tor-a", "tor-b"], "port": "Ethernet1"}]}],
      "switches": [{"name": "tor-a", "tier": 1}]})", &t).ok());
  EXPECT_EQ(t.nodes.size(), 1u);
  EXPECT_EQ(t.nodes[0].nics[0].switches.size(), 2u);
  EXPECT_EQ(ParseTopologyBody(R"({"nodes": {}})", &t).message(), "topology.nodes must be an array");
  EXPECT_EQ(ParseTopologyBody(R"({"nodes": [{"gpus": []}]})", &t).message(), "topology.nodes[0].host is required");
  EXPECT_EQ(ParseTopologyBody(R"({"nodes": [{"host": "n1", "gpus": [{"index": "0"}]}]})", &t).message(),
            "topology.nodes[0].gpus[0].index must be a whole number");
  EXPECT_EQ(ParseTopologyBody(R"({"nodes": [{"host": "n1"}, {"host": "n1"}]})", &t).message(),
            "topology: host n1 is listed twice");
}

TEST(EventBatch, TheAgentsStampIsReadAndChecked) {
  json stamped = XidLogEvent("e1");
  stamped["read_at"] = 1764497524.25;
  stamped["job"] = "job-20261130-0042";
  json bad_time = XidLogEvent("e2");
  bad_time["read_at"] = "soon";
  json bad_job = XidLogEvent("e3");
  bad_job["job"] = "a job/with slashes";
  json batch = {{"node", "node-0001"}, {"agent", "a"}, {"events", {stamped, bad_time, bad_job}}};
  EventBatch b;
  ASSERT_TRUE(ParseEventBatch(batch.dump(), {}, &b).ok());
  ASSERT_EQ(b.events.size(), 1u);
  ASSERT_EQ(b.rejected.size(), 2u);
  EXPECT_NE(b.rejected[0].reason.find("read_at"), std::string::npos) << b.rejected[0].reason;
  EXPECT_NE(b.rejected[1].reason.find("event.job"), std::string::npos) << b.rejected[1].reason;
  wire::DecodedEvent d;
  ASSERT_TRUE(wire::DecodeEvent(json::parse(b.events[0].body), "node-0001", &d).ok());
  EXPECT_EQ(d.read_at, 1764497524.25);
  EXPECT_EQ(d.job, "job-20261130-0042");
  // An empty batch is an agent's report: valid, nothing to store.
  ASSERT_TRUE(ParseEventBatch(R"({"node": "node-0001", "agent": "a", "events": []})", {}, &b).ok());
  EXPECT_TRUE(b.events.empty());
}

}  // namespace
}  // namespace aegis::controller

namespace aegis::controller {
namespace {

TEST(EventBatch, APolicyKeepsANodeToItselfAndTheCatalogueToItsClasses) {
  static const Catalog catalog = Catalog::Load({});
  EventPolicy policy{"node-0001", &catalog};
  json claimed = XidLogEvent("e1");
  claimed["class"] = "hint";
  json spoof = XidLogEvent("e2");
  spoof["node"] = "node-0002";
  json batch = {{"node", "node-0001"}, {"agent", "a"}, {"events", {claimed, spoof}}};
  EventBatch b;
  ASSERT_TRUE(ParseEventBatch(batch.dump(), policy, &b).ok());
  ASSERT_EQ(b.events.size(), 1u);
  ASSERT_EQ(b.rejected.size(), 1u);
  EXPECT_EQ(b.rejected[0].id, "e2");
  EXPECT_EQ(b.foreign, 1u);
  EXPECT_EQ(b.corrected, 1u);
  json stored = json::parse(b.events[0].body);
  EXPECT_EQ(stored["class"], "critical");
  EXPECT_EQ(stored["agent_class"], "hint");  // what the agent said is kept beside it
  batch["node"] = "node-0002";
  EXPECT_EQ(ParseEventBatch(batch.dump(), policy, &b).code(), Status::Code::kPermissionDenied);
  // Without a node the same batch is taken from anyone (a shared token, no tokens at all).
  batch["node"] = "node-0001";
  ASSERT_TRUE(ParseEventBatch(batch.dump(), {"", &catalog}, &b).ok());
  EXPECT_EQ(b.events.size(), 2u);
}

}  // namespace
}  // namespace aegis::controller
