#include "wire/event.h"

#include "common/json_check.h"
#include "common/text.h"
#include "wire/facts_event.h"
#include "wire/heartbeat_event.h"
#include "wire/probe_event.h"

namespace aegis::wire {

using nlohmann::json;

namespace {

Status DecodeLog(const json& j, DecodedEvent* e) {
  if (Status s = LogEventFromWire(j, &e->log); !s.ok()) return s;
  if (e->log.node != e->node) return Status::InvalidArgument("log event: node differs from the event's node");
  if (!IsSafeRelativePath(e->log.file))
    return Status::InvalidArgument("log event: file must be a relative path of plain names (nodes/HOST/kernel.log)");
  e->at = e->log.event.ts;
  return Status::Ok();
}

// The type's own fields, by its codec.
Status DecodeBody(const json& j, DecodedEvent* e) {
  switch (e->type) {
    case EventType::kLog:
      if (!j.contains("node")) {  // the batch's node stands in
        json copy = j;
        copy["node"] = e->node;
        return DecodeLog(copy, e);
      }
      return DecodeLog(j, e);
    case EventType::kCcl:
      if (Status s = DecodeCclEvent(j, e->node, &e->ccl); !s.ok()) return s;
      e->at = e->ccl.ts;
      return Status::Ok();
    case EventType::kFacts: return DecodeFactsEvent(j, &e->facts);
    case EventType::kMetric:
      if (Status s = DecodeMetricEvent(j, e->node, &e->series); !s.ok()) return s;
      if (!e->series.t.empty()) e->at = e->series.t.back();
      return Status::Ok();
    case EventType::kHeartbeat: return DecodeHeartbeatEvent(j, &e->at);
    case EventType::kProbe: return DecodeProbeEvent(j, &e->probe, &e->at);
  }
  return Status::InvalidArgument("event: unknown type");
}

}  // namespace

Status DecodeEvent(const json& j, std::string_view default_node, DecodedEvent* out) {
  if (!j.is_object()) return Status::InvalidArgument("event: not a JSON object");
  Status s = CheckString(j, "id", "event", true);
  if (s.ok()) s = CheckString(j, "type", "event", true);
  if (s.ok()) s = CheckString(j, "node", "event");
  if (s.ok()) s = CheckNumber(j, "read_at", "event");
  if (s.ok()) s = CheckString(j, "job", "event");
  if (!s.ok()) return s;
  DecodedEvent e;
  if (auto r = j.find("read_at"); r != j.end() && r->is_number()) {
    e.read_at = r->get<double>();
    if (!std::isfinite(e.read_at)) return Status::InvalidArgument("event.read_at must be a finite number");
  }
  if (auto g = j.find("job"); g != j.end() && g->is_string()) {
    e.job = g->get<std::string>();
    if (!e.job.empty() && !IsSafeName(e.job)) return Status::InvalidArgument("event.job must be a job id");
  }
  e.id = j["id"].get<std::string>();
  if (!IsSafeName(e.id))
    return Status::InvalidArgument("event: id must be 1 to 200 letters, digits or . _ - : @ + =");
  const std::string type = j["type"].get<std::string>();
  auto t = ParseEventType(type);
  if (!t) return Status::InvalidArgument("event: unknown type \"" + SanitizeForOutput(type, 64) + "\"");
  e.type = *t;
  e.node = j.contains("node") && j["node"].is_string() ? j["node"].get<std::string>() : std::string(default_node);
  if (!IsSafeName(e.node)) return Status::InvalidArgument("event: node must be a host name");
  if (s = DecodeBody(j, &e); !s.ok()) return s;
  *out = std::move(e);
  return Status::Ok();
}

}  // namespace aegis::wire
