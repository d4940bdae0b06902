// The "ccl" event: one CCL probe record (docs/formats.md, "CCL snapshots"), newest per
// (communicator, rank), as the agent ships it:
//   {"id", "type": "ccl", "node", "file": "nodes/NODE/ccl/NAME.jsonl", "record": {...}}
// The record goes on the wire exactly as the probe wrote it. Pure functions.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"
#include "engine/incident.h"

namespace aegis::wire {

// `record_json`: one validated JSON object, written into the event as it is.
std::string EncodeCclEvent(std::string_view id, std::string_view node, std::string_view file, std::string_view record_json);
// The record of a "ccl" event of `node`; InvalidArgument naming what is wrong.
Status DecodeCclEvent(const nlohmann::json& j, std::string_view node, CclRecord* out);

// The bundle-relative file a CCL record of `node` is kept under: nodes/NODE/ccl/BASENAME
// (with ".jsonl" added when the name has none).
std::string CclFileOf(std::string_view node, std::string_view file);

}  // namespace aegis::wire
