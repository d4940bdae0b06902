// CCL probe datagrams as the agent receives them: any bytes. A record the coalescer takes
// must come out as an event that is valid JSON holding the record unchanged.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "agent/sources/ccl/ccl_intake.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static aegis::agent::AgentCounters counters;
  aegis::agent::CclCoalescer c("node-0007", &counters);
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const bool taken = c.Add(text);
  aegis::agent::EventOutput out(&counters);
  c.Flush(&out);
  if (taken != (out.pending() == 1)) __builtin_trap();
  for (const auto& ev : out.events()) {
    nlohmann::json j = nlohmann::json::parse(ev, nullptr, false);
    if (!j.is_object() || !j["record"].is_object() || !j["id"].is_string()) __builtin_trap();
  }
  return 0;
}
