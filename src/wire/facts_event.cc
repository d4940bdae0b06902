#include "wire/facts_event.h"

#include "bundle/bundle_reader.h"
#include "common/json_check.h"

namespace aegis::wire {

using nlohmann::json;

std::string EncodeFactsEvent(std::string_view id, std::string_view node, const json& facts) {
  json ev;
  ev["id"] = id;
  ev["type"] = "facts";
  ev["node"] = node;
  ev["facts"] = facts;
  return ev.dump(-1, ' ', false, json::error_handler_t::replace);
}

Status DecodeFactsEvent(const json& j, Facts* out) {
  if (Status s = CheckObject(j, "facts", "facts event", true); !s.ok()) return s;
  if (Status s = ParseFacts(j["facts"].dump(), out); !s.ok()) return Status::InvalidArgument("facts event: " + s.message());
  return Status::Ok();
}

}  // namespace aegis::wire
