#include "wire/heartbeat_event.h"

#include "common/json_check.h"

namespace aegis::wire {

using nlohmann::json;

std::string EncodeHeartbeatEvent(std::string_view id, std::string_view node, double at, const json& agent) {
  json hb;
  hb["id"] = id;
  hb["type"] = "heartbeat";
  hb["node"] = node;
  hb["at"] = at;
  hb["agent"] = agent.is_object() ? agent : json::object();
  return hb.dump(-1, ' ', false, json::error_handler_t::replace);
}

Status DecodeHeartbeatEvent(const json& j, double* at) {
  Status s = CheckTime(j, "at", "heartbeat event", true);
  if (s.ok()) s = CheckObject(j, "agent", "heartbeat event");
  if (!s.ok()) return s;
  *at = TimeValue(j, "at");
  return Status::Ok();
}

}  // namespace aegis::wire
