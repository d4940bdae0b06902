// The wire form of a classified log event: how a node agent ships what its LogStreams
// found, and how the controller (and the store) read it back into the engine. One JSON
// object per event (docs/api.md, "Events"):
//   {"type": "log", "node": "node-0007", "source": "kernel", "file": "nodes/node-0007/kernel.log",
//    "line": 1873, "first_line": 1873, "last_line": 1873, "ts": 1764497523.1, "ts_exact": true,
//    "ts_zoned": false, "rule": "xid-79", "class": "critical", "component": "gpu", "xid": 79,
//    "rank": null, "nccl_device": null, "cascade": false, "yields_to_user": false, "key": "",
//    "traceback_line": 0, "fields": {"pci": "0000:18:00"}, "text": "NVRM: Xid ..."}
// plus "fallback": true for a record a lower-confidence catch-all rule classified (absent
// otherwise).
// An event that stands for repeats of the same evidence (logs/event_aggregate.h) adds
//   "count": 812345, "latest_line": 913402, "latest_ts": 1764501123.4,
//   "samples": [{"line": 1880, "text": "..."}]
// (the other fields are its first record's); without them it is one record.
// Reading validates every field: an unknown class, component or source is an
// InvalidArgument naming the field, never a new category. Pure functions.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"
#include "engine/incident.h"
#include "logs/event.h"

namespace aegis {

std::string_view ToString(SourceKind k);  // "kernel", "train", "switch"
std::optional<SourceKind> ParseSourceKind(std::string_view s);

}  // namespace aegis

namespace aegis::wire {

struct WireLogEvent {
  std::string node;
  SourceKind source = SourceKind::kKernel;
  std::string file;  // bundle-relative path of the log (nodes/HOST/kernel.log, switches/NAME.log)
  LogEvent event;
};

nlohmann::json LogEventToWire(const WireLogEvent& e);
Status LogEventFromWire(const nlohmann::json& j, WireLogEvent* out);
// The whole "log" event's text: LogEventToWire's fields and the event's id.
std::string EncodeLogEvent(std::string_view id, const WireLogEvent& e);

}  // namespace aegis::wire
