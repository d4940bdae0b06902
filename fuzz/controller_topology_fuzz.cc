// Fuzzes the body of PUT /api/v1/topology (a topology.json): any bytes give a Status, never a crash or an exception.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "controller/api_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  aegis::Topology topology;
  (void)aegis::controller::ParseTopologyBody(text, &topology);
  return 0;
}
