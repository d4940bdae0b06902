// The kinds of event a node agent posts to the controller (docs/api.md, "Events"), spelt
// in one table: the agent counts what it queues by them, the controller decodes by them.
// Pure functions.
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace aegis::wire {

enum class EventType { kLog, kCcl, kFacts, kMetric, kHeartbeat, kProbe };
inline constexpr std::array<EventType, 6> kEventTypes{EventType::kLog,    EventType::kCcl,       EventType::kFacts,
                                                      EventType::kMetric, EventType::kHeartbeat, EventType::kProbe};

// "log", "ccl", "facts", "metric", "heartbeat", "probe".
std::string_view ToString(EventType t);
std::optional<EventType> ParseEventType(std::string_view s);

}  // namespace aegis::wire
