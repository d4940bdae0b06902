// A CCL record in the probe's own output form (src/probe/comm_state.cc), for the tests of
// the ccl source.
#pragma once
#include <cstdio>
#include <string>

namespace aegis::agent::testing {

inline std::string ProbeRecord(const std::string& comm, int rank, double ts, int launched) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "{\"v\": 1, \"ts\": %.3f, \"host\": \"node-0007\", \"pid\": 4242, \"gpu\": %d, \"comm\": \"%s\", "
                "\"comm_name\": \"tp\", \"nranks\": 8, \"nnodes\": 1, \"rank\": %d, \"coll\": {\"AllReduce\": "
                "{\"launched\": %d, \"completed\": %d}}, \"net\": [], \"recent\": []}",
                ts, rank, comm.c_str(), rank, launched, launched);
  return buf;
}

}  // namespace aegis::agent::testing
