// The events node agents post (docs/api.md, "Events"), one JSON object each, read into
// what the engine's IncidentBuilder takes. Every event has a string "id" (unique across
// the cluster, the same when a batch is sent again) and a "type":
//   log        a classified log line: the wire form of sources/event_wire.h
//   ccl        {"file", "record": {one CCL snapshot object}}     -> a CclRecord
//   facts      {"facts": {facts.json}}                             -> Facts of the node
//   metric     {"metric", "device", "t": [...], "v": [...]}        -> a Series
//   heartbeat  {"at", "agent": {...}}: the agent's clock; it says that every event the
//              agent read before `at` was sent in this batch or an earlier one
//   probe      {"src", "dst", "size", "sent", "lost", "rtt_us_p50", "rtt_us_p99"}
// Any event may carry the agent's stamp (job_scope.h): "read_at" (epoch seconds, the
// agent's clock: when it read the line or record) and "job" (the job the controller had
// told the agent runs on its node then).
// DecodeEvent validates an event completely (the same readers the bundle path uses), so
// that what the store accepted can always be fed to an incident. Pure, thread-safe.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "engine/incident.h"
#include "sources/event_wire.h"

namespace aegis::controller {

enum class EventType { kLog, kCcl, kFacts, kMetric, kHeartbeat, kProbe };
std::string_view ToString(EventType t);
std::optional<EventType> ParseEventType(std::string_view s);

struct DecodedEvent {
  EventType type = EventType::kLog;
  std::string id;
  std::string node;
  double at = NAN;  // when it happened, by the agent's clock; NaN when it cannot say
  double read_at = NAN;  // when the agent read it (its clock); NaN: not stamped
  std::string job;       // the job the agent believed ran on its node then; "" for none
  WireLogEvent log;   // kLog
  CclRecord ccl;      // kCcl
  Facts facts;        // kFacts
  Series series;      // kMetric
  ProbeResult probe;  // kProbe
};

// Limits of one event: a metric's samples, the bytes of its JSON text.
constexpr size_t kMaxSeriesSamples = 100000;

// Reads one event. `default_node` (the batch's node) stands in when the event names none.
// InvalidArgument with a message naming the field when it is not a valid event.
Status DecodeEvent(const nlohmann::json& j, std::string_view default_node, DecodedEvent* out);

// The bundle-relative file a CCL record of `node` is kept under: nodes/NODE/ccl/BASENAME
// (with ".jsonl" added when the name has none).
std::string CclFileOf(std::string_view node, std::string_view file);
// The bundle file of a metric's series: metrics/NAME.json.
std::string MetricFileOf(std::string_view metric);

}  // namespace aegis::controller
