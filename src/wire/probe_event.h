// The "probe" event: one network probe between two hosts,
//   {"id", "type": "probe", "node", "src", "dst", "size", "sent", "lost",
//    "rtt_us_p50", "rtt_us_p99", "at"}
// Pure functions.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"
#include "engine/incident.h"

namespace aegis::wire {

std::string EncodeProbeEvent(std::string_view id, std::string_view node, const ProbeResult& p, double at);
// The result and time (NaN when absent) of a "probe" event; InvalidArgument naming what is
// wrong (sent must be positive, lost between 0 and sent).
Status DecodeProbeEvent(const nlohmann::json& j, ProbeResult* out, double* at);

}  // namespace aegis::wire
