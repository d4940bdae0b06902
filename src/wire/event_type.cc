#include "wire/event_type.h"

#include <utility>

namespace aegis::wire {

namespace {

constexpr std::array<std::pair<EventType, std::string_view>, kEventTypes.size()> kNames{
    {{EventType::kLog, "log"},
     {EventType::kCcl, "ccl"},
     {EventType::kFacts, "facts"},
     {EventType::kMetric, "metric"},
     {EventType::kHeartbeat, "heartbeat"},
     {EventType::kProbe, "probe"}}};

}  // namespace

std::string_view ToString(EventType t) {
  for (const auto& [k, name] : kNames)
    if (k == t) return name;
  return "log";
}

std::optional<EventType> ParseEventType(std::string_view s) {
  for (const auto& [k, name] : kNames)
    if (name == s) return k;
  return std::nullopt;
}

}  // namespace aegis::wire
