// The wire form of a log event: one that stands for repeats is written with its count only
// above 1, read back to the same event, and refused with a reason when it does not add up;
// a fallback rule's record carries "fallback" only when set.
#include "wire/log_event.h"

#include <gtest/gtest.h>

#include <functional>

#include "logs/event_aggregate.h"

namespace aegis {
namespace {

wire::WireLogEvent Storm() {
  wire::WireLogEvent w;
  w.node = "node-0007";
  w.source = SourceKind::kKernel;
  w.file = "nodes/node-0007/kernel.log";
  LogEvent& e = w.event;
  e.rule_id = "xid-95";
  e.line_class = LineClass::kCritical;
  e.component = Component::kGpu;
  e.xid = 95;
  e.line = e.first_line = e.last_line = 10;
  e.ts = 1796032800.5;
  e.ts_exact = e.ts_zoned = true;
  e.fields = {{"pci", "0000:18:00"}, {"xid", "95"}};
  e.text = "NVRM: Xid (PCI:0000:18:00): 95, pid=1";
  for (uint64_t line : {11, 12, 13, 14, 15, 9000}) AddRecord(e, line, e.ts + static_cast<double>(line), "NVRM: Xid ...");
  return w;
}

TEST(EventWire, RepeatsRoundTrip) {
  const wire::WireLogEvent w = Storm();
  const nlohmann::json j = wire::LogEventToWire(w);
  EXPECT_EQ(j["count"], 7);
  EXPECT_EQ(j["latest_line"], 9000);
  EXPECT_EQ(j["samples"].size(), kMaxEventSamples);
  wire::WireLogEvent back;
  ASSERT_TRUE(wire::LogEventFromWire(j, &back).ok());
  EXPECT_EQ(back.event.count, 7u);
  EXPECT_EQ(back.event.LatestLine(), 9000u);
  EXPECT_EQ(back.event.LatestTs(), w.event.LatestTs());
  EXPECT_EQ(back.event.samples, w.event.samples);
  EXPECT_EQ(back.event.line, 10u);
}

TEST(EventWire, ASingleRecordHasNoRepeatFields) {
  wire::WireLogEvent w = Storm();
  w.event.count = 1;
  w.event.samples.clear();
  const nlohmann::json j = wire::LogEventToWire(w);
  EXPECT_FALSE(j.contains("count"));
  EXPECT_FALSE(j.contains("samples"));
  wire::WireLogEvent back;
  ASSERT_TRUE(wire::LogEventFromWire(j, &back).ok());
  EXPECT_EQ(back.event.count, 1u);
  EXPECT_EQ(back.event.LatestLine(), 10u);
}

TEST(EventWire, RepeatsThatDoNotAddUpAreRefused) {
  const nlohmann::json good = wire::LogEventToWire(Storm());
  auto refused = [&](const std::function<void(nlohmann::json&)>& change) {
    nlohmann::json j = good;
    change(j);
    wire::WireLogEvent w;
    const Status s = wire::LogEventFromWire(j, &w);
    return !s.ok() && s.message().find("log event") != std::string::npos;
  };
  EXPECT_TRUE(refused([](auto& j) { j["count"] = 0; }));
  EXPECT_TRUE(refused([](auto& j) { j["count"] = -3; }));
  EXPECT_TRUE(refused([](auto& j) { j["count"] = "many"; }));
  EXPECT_TRUE(refused([](auto& j) { j["latest_line"] = 9; }));  // before line
  EXPECT_TRUE(refused([](auto& j) { j["samples"] = "x"; }));
  EXPECT_TRUE(refused([](auto& j) { j["samples"][1]["line"] = 11; }));  // not increasing
  EXPECT_TRUE(refused([](auto& j) { j["samples"][0]["line"] = 9001; }));  // beyond latest_line
  EXPECT_TRUE(refused([](auto& j) { j["samples"][0].erase("text"); }));
  EXPECT_TRUE(refused([](auto& j) { j["samples"].push_back({{"line", 8000}, {"text", ""}}); }));  // too many
  EXPECT_TRUE(refused([](auto& j) { j["count"] = 3; }));  // fewer records than samples + 1
  EXPECT_TRUE(refused([](auto& j) {
    j["count"] = 1;  // one record with repeats
  }));
  nlohmann::json no_latest = good;
  no_latest.erase("latest_line");
  no_latest.erase("samples");
  wire::WireLogEvent w;
  ASSERT_TRUE(wire::LogEventFromWire(no_latest, &w).ok());
  EXPECT_EQ(w.event.LatestLine(), 10u) << "without latest_line the last record is taken as the first";
}

wire::WireLogEvent Event(bool fallback) {
  wire::WireLogEvent w;
  w.node = "node-0007";
  w.source = SourceKind::kTrain;
  w.file = "nodes/node-0007/train.log";
  w.event.line = w.event.first_line = w.event.last_line = 12;
  w.event.rule_id = "nccl-warn-fallback";
  w.event.line_class = LineClass::kDist;
  w.event.component = Component::kHost;
  w.event.cascade = true;
  w.event.fallback = fallback;
  w.event.text = "NCCL WARN something new";
  return w;
}

TEST(EventWire, FallbackTravelsOnlyWhenSet) {
  nlohmann::json set = wire::LogEventToWire(Event(true));
  EXPECT_EQ(set.value("fallback", false), true);
  wire::WireLogEvent back;
  ASSERT_TRUE(wire::LogEventFromWire(set, &back).ok());
  EXPECT_TRUE(back.event.fallback);
  EXPECT_TRUE(back.event.cascade);

  nlohmann::json unset = wire::LogEventToWire(Event(false));
  EXPECT_FALSE(unset.contains("fallback")) << "additive: absent unless set";
  ASSERT_TRUE(wire::LogEventFromWire(unset, &back).ok());
  EXPECT_FALSE(back.event.fallback);
}

TEST(EventWire, FallbackOfTheWrongKindIsRefused) {
  nlohmann::json j = wire::LogEventToWire(Event(true));
  j["fallback"] = "yes";
  wire::WireLogEvent back;
  EXPECT_FALSE(wire::LogEventFromWire(j, &back).ok());
}

}  // namespace
}  // namespace aegis
