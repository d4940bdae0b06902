// Fuzzes every controller body parser with deeply nested documents, the shape that once
// overflowed the stack of the thread parsing a body: the input's first two bytes choose
// the depth (0 to 131,070 levels), the third which levels are objects and which arrays,
// and the rest goes at the bottom. Any of them gives a Status, never a crash.
#include <cstdint>
#include <string>
#include <string_view>

#include "controller/api_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace aegis::controller;
  if (size < 3) return 0;
  const size_t depth = (static_cast<size_t>(data[0]) << 8 | data[1]) * 2;
  const uint8_t objects = data[2];  // bit (level % 8) set: that level is an object
  const std::string_view bottom(reinterpret_cast<const char*>(data + 3), size - 3);
  std::string inner;
  inner.reserve(depth * 6 + bottom.size());
  for (size_t i = 0; i < depth; ++i) inner += (objects >> (i % 8)) & 1 ? "{\"k\":" : "[";
  inner += bottom.empty() ? std::string_view("1") : bottom;
  for (size_t i = depth; i-- > 0;) inner += (objects >> (i % 8)) & 1 ? '}' : ']';

  EventBatch batch;
  (void)ParseEventBatch(R"({"node": "n", "agent": "a", "events": [)" + inner + "]}", {}, &batch);
  JobStart start;
  (void)ParseJobStart(R"({"id": "j", "hosts": ["n"], "x": )" + inner + "}", 1764497523.0, &start);
  JobEnd end;
  (void)ParseJobEnd(R"({"state": "failed", "x": )" + inner + "}", &end);
  HostStateRequest host;
  (void)ParseHostStateRequest(R"({"state": "repair", "x": )" + inner + "}", &host);
  aegis::Topology topology;
  (void)ParseTopologyBody(R"({"nodes": )" + inner + "}", &topology);
  return 0;
}
