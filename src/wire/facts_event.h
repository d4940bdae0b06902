// The "facts" event: the node's facts.json (docs/formats.md, "facts.json"), shipped when
// they changed:  {"id", "type": "facts", "node", "facts": {...}}. Pure functions.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"
#include "engine/incident.h"

namespace aegis::wire {

std::string EncodeFactsEvent(std::string_view id, std::string_view node, const nlohmann::json& facts);
Status DecodeFactsEvent(const nlohmann::json& j, Facts* out);

}  // namespace aegis::wire
