#include "sources/event_wire.h"

#include <gtest/gtest.h>

namespace aegis {
namespace {

WireLogEvent Event(bool fallback) {
  WireLogEvent w;
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
  nlohmann::json set = LogEventToWire(Event(true));
  EXPECT_EQ(set.value("fallback", false), true);
  WireLogEvent back;
  ASSERT_TRUE(LogEventFromWire(set, &back).ok());
  EXPECT_TRUE(back.event.fallback);
  EXPECT_TRUE(back.event.cascade);

  nlohmann::json unset = LogEventToWire(Event(false));
  EXPECT_FALSE(unset.contains("fallback")) << "additive: absent unless set";
  ASSERT_TRUE(LogEventFromWire(unset, &back).ok());
  EXPECT_FALSE(back.event.fallback);
}

TEST(EventWire, FallbackOfTheWrongKindIsRefused) {
  nlohmann::json j = LogEventToWire(Event(true));
  j["fallback"] = "yes";
  WireLogEvent back;
  EXPECT_FALSE(LogEventFromWire(j, &back).ok());
}

}  // namespace
}  // namespace aegis
