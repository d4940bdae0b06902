// Fuzzes the body of POST /api/v1/events (an agent's batch): any bytes give a Status, never
// a crash or an exception; every event accepted decodes again from its stored body.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "controller/api_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  aegis::controller::EventBatch batch;
  if (aegis::controller::ParseEventBatch(text, &batch).ok())
    for (const auto& e : batch.events) {
      // What was accepted must decode again from its stored body (the decision loop does).
      auto j = nlohmann::json::parse(e.body, nullptr, false);
      aegis::wire::DecodedEvent d;
      if (j.is_discarded() || !aegis::wire::DecodeEvent(j, e.node, &d).ok()) __builtin_trap();
    }
  return 0;
}
