// The events node agents post (docs/api.md, "Events"), one JSON object each, read into
// what the engine's IncidentBuilder takes. Every event has a string "id" (unique across
// the cluster, the same when a batch is sent again) and a "type" (event_type.h); what
// else it holds is its type's codec's: log_event.h, ccl_event.h, facts_event.h,
// metric_event.h, heartbeat_event.h, probe_event.h. The agent writes each type with its
// codec's Encode, the controller reads any with DecodeEvent.
// Any event may carry the agent's stamp (docs/agent.md, "Stamps"): "read_at" (epoch
// seconds, the agent's clock: when it read the line or record) and "job" (the job the
// controller had told the agent runs on its node then).
// DecodeEvent validates an event completely (the same readers the bundle path uses), so
// that what the store accepted can always be fed to an incident. Pure, thread-safe.
#pragma once
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"
#include "engine/incident.h"
#include "wire/ccl_event.h"
#include "wire/event_type.h"
#include "wire/log_event.h"
#include "wire/metric_event.h"

namespace aegis::wire {

struct DecodedEvent {
  EventType type = EventType::kLog;
  std::string id;
  std::string node;
  double at = NAN;       // when it happened, by the agent's clock; NaN when it cannot say
  double read_at = NAN;  // when the agent read it (its clock); NaN: not stamped
  std::string job;       // the job the agent believed ran on its node then; "" for none
  WireLogEvent log;      // kLog
  CclRecord ccl;         // kCcl
  Facts facts;           // kFacts
  Series series;         // kMetric
  ProbeResult probe;     // kProbe
};

// Reads one event. `default_node` (the batch's node) stands in when the event names none.
// InvalidArgument with a message naming the field when it is not a valid event.
Status DecodeEvent(const nlohmann::json& j, std::string_view default_node, DecodedEvent* out);

}  // namespace aegis::wire
