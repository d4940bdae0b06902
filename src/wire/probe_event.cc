#include "wire/probe_event.h"

#include <cmath>

#include "common/json_check.h"

namespace aegis::wire {

using nlohmann::json;

std::string EncodeProbeEvent(std::string_view id, std::string_view node, const ProbeResult& p, double at) {
  json ev;
  ev["id"] = id;
  ev["type"] = "probe";
  ev["node"] = node;
  ev["src"] = p.src;
  ev["dst"] = p.dst;
  ev["size"] = p.size;
  ev["sent"] = p.sent;
  ev["lost"] = p.lost;
  ev["rtt_us_p50"] = std::isfinite(p.rtt_p50) ? json(p.rtt_p50) : json(nullptr);
  ev["rtt_us_p99"] = std::isfinite(p.rtt_p99) ? json(p.rtt_p99) : json(nullptr);
  ev["at"] = std::isfinite(at) ? json(at) : json(nullptr);
  return ev.dump(-1, ' ', false, json::error_handler_t::replace);
}

Status DecodeProbeEvent(const json& j, ProbeResult* out, double* at) {
  Status s = CheckString(j, "src", "probe event", true);
  if (s.ok()) s = CheckString(j, "dst", "probe event", true);
  for (const char* k : {"size", "sent", "lost"})
    if (s.ok()) s = CheckInteger(j, k, "probe event", true);
  for (const char* k : {"rtt_us_p50", "rtt_us_p99"})
    if (s.ok()) s = CheckNumber(j, k, "probe event");
  if (s.ok()) s = CheckTime(j, "at", "probe event");
  if (!s.ok()) return s;
  ProbeResult p;
  p.src = j["src"].get<std::string>();
  p.dst = j["dst"].get<std::string>();
  p.size = static_cast<int>(j["size"].get<double>());
  p.sent = static_cast<long long>(j["sent"].get<double>());
  p.lost = static_cast<long long>(j["lost"].get<double>());
  p.rtt_p50 = j.contains("rtt_us_p50") && j["rtt_us_p50"].is_number() ? j["rtt_us_p50"].get<double>() : NAN;
  p.rtt_p99 = j.contains("rtt_us_p99") && j["rtt_us_p99"].is_number() ? j["rtt_us_p99"].get<double>() : NAN;
  if (p.sent <= 0 || p.lost < 0 || p.lost > p.sent || p.size < 0)
    return Status::InvalidArgument("probe event: needs sent > 0 and 0 <= lost <= sent");
  *out = std::move(p);
  *at = TimeValue(j, "at");
  return Status::Ok();
}

}  // namespace aegis::wire
