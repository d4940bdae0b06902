// The "heartbeat" event: the agent's clock and health,
//   {"id", "type": "heartbeat", "node", "at": EPOCH, "agent": {...}}
// It says that every event the agent read before `at` was sent in this batch or an
// earlier one (the controller waits for one dated after a job's end). Pure functions.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"

namespace aegis::wire {

std::string EncodeHeartbeatEvent(std::string_view id, std::string_view node, double at, const nlohmann::json& agent);
// `at` of a "heartbeat" event (NaN when absent).
Status DecodeHeartbeatEvent(const nlohmann::json& j, double* at);

}  // namespace aegis::wire
