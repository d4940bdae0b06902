// Fuzzes the body of POST /api/v1/events (an agent's batch): any bytes give a Status, never
// a crash or an exception; every event accepted decodes again from its stored body, also
// when a node's token posted it and the catalogue re-classified it (which rewrites the body).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "controller/api_bodies.h"

namespace {

void CheckAccepted(const aegis::controller::EventBatch& batch) {
  for (const auto& e : batch.events) {
    // What was accepted must decode again from its stored body (the decision loop does).
    auto j = nlohmann::json::parse(e.body, nullptr, false);
    aegis::wire::DecodedEvent d;
    if (j.is_discarded() || !aegis::wire::DecodeEvent(j, e.node, &d).ok()) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const aegis::Catalog catalog = aegis::Catalog::Load({});
  const std::string text(reinterpret_cast<const char*>(data), size);
  aegis::controller::EventBatch batch;
  if (aegis::controller::ParseEventBatch(text, {}, &batch).ok()) CheckAccepted(batch);
  aegis::controller::EventPolicy node_bound;
  node_bound.node = "n";
  node_bound.catalog = &catalog;
  if (aegis::controller::ParseEventBatch(text, node_bound, &batch).ok()) {
    CheckAccepted(batch);
    for (const auto& e : batch.events)
      if (e.node != "n") __builtin_trap();  // a node's token spoke for another
  }
  return 0;
}
