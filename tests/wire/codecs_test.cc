// Each event type's codec: what the agent encodes, the controller decodes back to the
// same values; what a codec refuses is named.
#include <gtest/gtest.h>

#include "wire/ccl_event.h"
#include "wire/event.h"
#include "wire/facts_event.h"
#include "wire/heartbeat_event.h"
#include "wire/metric_event.h"
#include "wire/probe_event.h"

namespace aegis::wire {
namespace {

using nlohmann::json;

DecodedEvent Decoded(const std::string& text, const std::string& batch_node = "node-7") {
  DecodedEvent d;
  Status s = DecodeEvent(json::parse(text), batch_node, &d);
  EXPECT_TRUE(s.ok()) << s.ToString() << "\n" << text;
  return d;
}

TEST(WireCodecs, EveryTypeHasOneName) {
  for (EventType t : kEventTypes) EXPECT_EQ(ParseEventType(ToString(t)), t);
  EXPECT_FALSE(ParseEventType("switch").has_value());
}

TEST(WireCodecs, MetricRoundTripKeepsSamplesAndLeavesGapsOut) {
  const std::string text = EncodeMetricEvent("node-7:metric:rx:mlx5_0:1", "node-7", "rx_bytes", "mlx5_0",
                                             {100, 115, 130}, {1.5, NAN, 3});
  EXPECT_NE(text.find("\"v\":[1.5,null,3"), std::string::npos) << text;
  DecodedEvent d = Decoded(text);
  EXPECT_EQ(d.type, EventType::kMetric);
  EXPECT_EQ(d.id, "node-7:metric:rx:mlx5_0:1");
  EXPECT_EQ(d.series.metric, "rx_bytes");
  EXPECT_EQ(d.series.device, "mlx5_0");
  EXPECT_EQ(d.series.host, "node-7");
  EXPECT_EQ(d.series.file, "metrics/rx_bytes.json");
  EXPECT_EQ(d.series.t, (std::vector<double>{100, 130}));
  EXPECT_EQ(d.series.v, (std::vector<double>{1.5, 3}));
  EXPECT_EQ(d.at, 130);
}

TEST(WireCodecs, MetricRefusalsNameTheField) {
  Series s;
  auto why = [&](const json& j) { return DecodeMetricEvent(j, "node-7", &s).message(); };
  EXPECT_NE(why({{"metric", "x"}, {"t", {1, 2}}, {"v", {1}}}).find("differ in length"), std::string::npos);
  EXPECT_NE(why({{"metric", "x"}, {"t", {2, 1}}, {"v", {1, 1}}}).find("t must increase"), std::string::npos);
  EXPECT_NE(why({{"metric", "a/b"}, {"t", {1}}, {"v", {1}}}).find("plain name"), std::string::npos);
  EXPECT_NE(why({{"metric", "x"}, {"t", json::array()}, {"v", json::array()}}).find("no samples"), std::string::npos);
}

TEST(WireCodecs, FactsRoundTrip) {
  json facts = {{"host", "node-7"}, {"driver", "550.54.15"}, {"env", {{"NCCL_IB_GID_INDEX", "3"}}}};
  DecodedEvent d = Decoded(EncodeFactsEvent("node-7:facts:ab12", "node-7", facts));
  EXPECT_EQ(d.type, EventType::kFacts);
  EXPECT_EQ(d.node, "node-7");
  Facts direct;
  ASSERT_TRUE(DecodeFactsEvent(json{{"facts", facts}}, &direct).ok());
  EXPECT_EQ(d.facts, direct);
  EXPECT_FALSE(d.facts.empty());
  EXPECT_FALSE(DecodeFactsEvent(json{{"facts", "x"}}, &direct).ok());
}

TEST(WireCodecs, HeartbeatRoundTrip) {
  DecodedEvent d = Decoded(EncodeHeartbeatEvent("node-7:heartbeat:a:1", "node-7", 1764500000.25, {{"queued", 3}}));
  EXPECT_EQ(d.type, EventType::kHeartbeat);
  EXPECT_DOUBLE_EQ(d.at, 1764500000.25);
  double at = 0;
  EXPECT_FALSE(DecodeHeartbeatEvent(json{{"at", 1}, {"agent", "up"}}, &at).ok()) << "agent must be an object";
}

TEST(WireCodecs, ProbeRoundTripAndBounds) {
  ProbeResult p;
  p.src = "node-7";
  p.dst = "node-8";
  p.size = 4096;
  p.sent = 100;
  p.lost = 3;
  p.rtt_p50 = 12.5;
  DecodedEvent d = Decoded(EncodeProbeEvent("node-7:probe:1", "node-7", p, 1764500000));
  EXPECT_EQ(d.type, EventType::kProbe);
  EXPECT_EQ(d.probe.src, "node-7");
  EXPECT_EQ(d.probe.dst, "node-8");
  EXPECT_EQ(d.probe.size, 4096);
  EXPECT_EQ(d.probe.sent, 100);
  EXPECT_EQ(d.probe.lost, 3);
  EXPECT_DOUBLE_EQ(d.probe.rtt_p50, 12.5);
  EXPECT_TRUE(std::isnan(d.probe.rtt_p99));
  EXPECT_EQ(d.at, 1764500000);
  p.lost = 101;
  double at = 0;
  ProbeResult out;
  EXPECT_FALSE(DecodeProbeEvent(json::parse(EncodeProbeEvent("x", "node-7", p, 1)), &out, &at).ok());
}

TEST(WireCodecs, CclRoundTripKeepsTheRecordAsWritten) {
  const std::string record =
      R"({"comm":"0x7f01","rank":3,"nranks":16,"ts":1764500000.5,"coll":{"AllReduce":{"count":42}}})";
  const std::string text = EncodeCclEvent("node-7:ccl:0x7f01:3:1", "node-7", "nodes/node-7/ccl/probe.jsonl", record);
  EXPECT_NE(text.find(record), std::string::npos) << "the probe's record goes on the wire unchanged";
  DecodedEvent d = Decoded(text);
  EXPECT_EQ(d.type, EventType::kCcl);
  EXPECT_EQ(d.ccl.rank, 3);
  EXPECT_DOUBLE_EQ(d.ccl.ts, 1764500000.5);
  EXPECT_DOUBLE_EQ(d.at, 1764500000.5);
  EXPECT_EQ(CclFileOf("node-7", "x/y/probe"), "nodes/node-7/ccl/probe.jsonl");
  CclRecord r;
  EXPECT_FALSE(DecodeCclEvent(json{{"record", {{"rank", 1}}}}, "node-7", &r).ok()) << "no comm, no ts";
}

TEST(WireCodecs, LogRoundTripWithItsId) {
  WireLogEvent w;
  w.node = "node-7";
  w.source = SourceKind::kKernel;
  w.file = "nodes/node-7/kernel.log";
  w.event.line = 12;
  w.event.first_line = 12;
  w.event.last_line = 12;
  w.event.ts = 1764500000;
  w.event.rule_id = "xid-79";
  w.event.line_class = LineClass::kCritical;
  w.event.component = Component::kGpu;
  w.event.xid = 79;
  w.event.text = "NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus.";
  DecodedEvent d = Decoded(EncodeLogEvent("node-7:kernel:12", w));
  EXPECT_EQ(d.type, EventType::kLog);
  EXPECT_EQ(d.id, "node-7:kernel:12");
  EXPECT_EQ(d.log.event.xid, 79);
  EXPECT_EQ(d.log.event.text, w.event.text);
  EXPECT_EQ(d.log.file, w.file);
}

TEST(WireCodecs, TheEnvelopeIsCheckedBeforeTheBody) {
  DecodedEvent d;
  auto why = [&](const json& j) { return DecodeEvent(j, "node-7", &d).message(); };
  EXPECT_NE(why({{"id", "a"}, {"type", "switch"}}).find("unknown type"), std::string::npos);
  EXPECT_NE(why({{"id", "a b"}, {"type", "heartbeat"}, {"at", 1}}).find("id must be"), std::string::npos);
  EXPECT_NE(why({{"id", "a"}, {"type", "heartbeat"}, {"at", 1}, {"job", "x/y"}}).find("job must be"), std::string::npos);
  EXPECT_NE(why({{"id", "a"}, {"type", "heartbeat"}, {"at", 1}, {"node", "../x"}}).find("host name"), std::string::npos);
  ASSERT_TRUE(DecodeEvent({{"id", "a"}, {"type", "heartbeat"}, {"at", 1}, {"read_at", 2}, {"job", "j1"}}, "node-7", &d).ok());
  EXPECT_EQ(d.node, "node-7") << "the batch's node stands in";
  EXPECT_EQ(d.read_at, 2);
  EXPECT_EQ(d.job, "j1");
}

}  // namespace
}  // namespace aegis::wire
