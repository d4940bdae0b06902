// The agent ships a log storm as counts: repeats of one evidence held between flushes
// become one event with a count, decoded by the controller into the same aggregated
// entry the bundle path builds; nothing held is lost and the hold is bounded.
#include "agent/log_consumer.h"

#include <gtest/gtest.h>

#include <map>

#include "agent/event_output.h"
#include "engine/incident_builder.h"
#include "logs/scanner.h"
#include "test_support.h"

namespace aegis::agent {
namespace {

using testing::ScratchDir;
using testing::WriteFile;

const std::string kXid = "NVRM: Xid (PCI:0000:18:00): 95, pid=41003, name=python, Uncontained: FBHUB. RST: Yes";
const std::string kPeer = "NCCL WARN socketProgress: Connection closed by remote peer node2<42830>";

// A train-log follower whose events are coalesced, driven with a fake clock.
struct Harness {
  explicit Harness(const ScratchDir& d) : lines(d / "lines-train"), out(&counters, /*coalesce_logs=*/true) {
    EXPECT_TRUE(lines.Load().ok());
    LogTarget t{"node-0007", SourceKind::kTrain, "nodes/node-0007/train.log", &lines};
    FollowOptions o;
    o.idle_s = 1;
    files = std::make_unique<FollowedFiles>(std::vector<std::string>{d / "logs/*.log"}, &states,
                                            MakeLogConsumerFactory(t, testing::BuiltinRules(), &out, &counters), o);
  }
  void Run(double seconds) {
    files->Expand(now);
    for (double t = 0; t <= seconds; t += 1) {
      while (files->Poll(now)) {
      }
      now += 1;
    }
  }
  std::vector<nlohmann::json> Take() {
    std::vector<nlohmann::json> evs;
    for (const auto& s : out.events()) evs.push_back(nlohmann::json::parse(s));
    out.Queued();
    return evs;
  }
  AgentCounters counters;
  VirtualLines lines;
  EventOutput out;
  FileStates states;
  std::unique_ptr<FollowedFiles> files;
  double now = 1000;
};

// The file as the bundle path sees it: scanned and aggregated into an IncidentBuilder.
const LocatedEvent* BundleEntry(IncidentBuilder& b, const std::string& text, const std::string& rule) {
  ScanOptions o;
  o.year = 2026;
  Scanner s(testing::BuiltinRules()->Current()->matcher, o);
  s.ScanText(text, [&](LogEvent&& ev) {
    b.AddLogEvent("node-0007", SourceKind::kTrain, "nodes/node-0007/train.log", std::move(ev));
  });
  for (const auto& e : b.View().events)
    if (e.ev.rule_id == rule) return &e;
  return nullptr;
}

TEST(LogCoalescing, AStormShipsAsOneEventWithItsCount) {
  ScratchDir d;
  std::string text = "start\n";
  for (int i = 0; i < 5000; ++i) text += kXid + "\n";
  text += kPeer + "\n";
  WriteFile(d / "logs/rank0.log", text);
  Harness h(d);
  h.Run(3);
  EXPECT_TRUE(h.Take().empty()) << "held until the flush";
  EXPECT_EQ(h.out.held_logs(), 2u);
  h.out.FlushLogs();
  EXPECT_EQ(h.out.held_logs(), 0u);
  auto evs = h.Take();
  ASSERT_EQ(evs.size(), 2u);
  std::map<std::string, nlohmann::json> by_rule;
  for (auto& e : evs) by_rule[e["rule"].get<std::string>()] = e;
  const auto& storm = by_rule["xid-95"];
  EXPECT_EQ(storm["count"], 5000);
  EXPECT_EQ(storm["line"], 2);
  EXPECT_EQ(storm["latest_line"], 5001);
  ASSERT_EQ(storm["samples"].size(), kMaxEventSamples);
  EXPECT_EQ(storm["samples"][0]["line"], 3);
  const std::string id = storm["id"];
  EXPECT_EQ(id.substr(id.rfind(':')), ":2") << "the id of its first record";
  for (auto& [rule, e] : by_rule) {
    if (rule != "xid-95") {
      EXPECT_FALSE(e.contains("count")) << "a single record stays as it was";
    }
  }

  // Decoded as the controller does, into the same entry the bundle path builds.
  wire::WireLogEvent w;
  ASSERT_TRUE(wire::LogEventFromWire(storm, &w).ok());
  IncidentBuilder live, bundle;
  live.AddLogEvent(w.node, w.source, w.file, std::move(w.event));
  const LocatedEvent& got = live.View().events.at(0);
  const LocatedEvent* want = BundleEntry(bundle, text, "xid-95");
  ASSERT_NE(want, nullptr);
  EXPECT_EQ(got.ev.count, want->ev.count);
  EXPECT_EQ(got.ev.line, want->ev.line);
  EXPECT_EQ(got.ev.LatestLine(), want->ev.LatestLine());
  EXPECT_EQ(got.ev.text, want->ev.text);
  EXPECT_EQ(got.ev.samples, want->ev.samples);
  EXPECT_EQ(got.ev.fields, want->ev.fields);
}

TEST(LogCoalescing, RepeatsAcrossFlushesAddUpAtTheController) {
  ScratchDir d;
  Harness h(d);
  WriteFile(d / "logs/rank0.log", "");
  h.Run(1);
  IncidentBuilder live;
  uint64_t shipped = 0;
  for (int round = 0; round < 4; ++round) {
    std::string more;
    for (int i = 0; i < 250; ++i) more += kXid + "\n";
    testing::AppendFile(d / "logs/rank0.log", more);
    h.Run(2);
    h.out.FlushLogs();
    for (auto& e : h.Take()) {
      wire::WireLogEvent w;
      ASSERT_TRUE(wire::LogEventFromWire(e, &w).ok()) << e.dump();
      shipped += 1;
      live.AddLogEvent(w.node, w.source, w.file, std::move(w.event));
    }
  }
  EXPECT_EQ(shipped, 4u) << "one event per flush";
  ASSERT_EQ(live.View().events.size(), 1u);
  EXPECT_EQ(live.View().events[0].ev.count, 1000u);
  EXPECT_EQ(live.View().events[0].ev.line, 1u);
  EXPECT_EQ(live.View().events[0].ev.LatestLine(), 1000u);
}

TEST(LogCoalescing, HoldsABoundedNumberOfEventsAndLosesNone) {
  AgentCounters counters;
  EventOutput out(&counters, /*coalesce_logs=*/true);
  ScanOptions o;
  o.year = 2026;
  Scanner s(testing::BuiltinRules()->Current()->matcher, o);
  // Distinct evidence (one peer per line), each line twice.
  std::string text;
  const size_t distinct = EventOutput::kMaxHeldLogEvents + 100;
  for (size_t i = 0; i < distinct; ++i) {
    const std::string line = "NCCL WARN socketProgress: Connection closed by remote peer 10.9." +
                             std::to_string(i / 250) + "." + std::to_string(i % 250) + "<42830>\n";
    text += line + line;
  }
  uint64_t line = 0;
  s.ScanText(text, [&](LogEvent&& ev) {
    out.AddLog("node-0007:train:x:" + std::to_string(++line), "node-0007", SourceKind::kTrain,
               "nodes/node-0007/train.log", std::move(ev));
    EXPECT_LT(out.held_logs(), EventOutput::kMaxHeldLogEvents);
  });
  EXPECT_GT(out.pending(), 0u) << "the bound flushed the held events";
  out.FlushLogs();
  uint64_t records = 0;
  for (const auto& j : out.events()) {
    wire::WireLogEvent w;
    ASSERT_TRUE(wire::LogEventFromWire(nlohmann::json::parse(j), &w).ok());
    records += w.event.count;
  }
  EXPECT_EQ(records, 2 * distinct);
}

}  // namespace
}  // namespace aegis::agent
