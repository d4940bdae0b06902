// Fuzzes the body of POST /api/v1/jobs (a job.json): any bytes give a Status, never a crash or an exception.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "controller/api_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  aegis::controller::JobStart start;
  (void)aegis::controller::ParseJobStart(text, 1764497523.0, &start);
  return 0;
}
