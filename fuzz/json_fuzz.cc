// Fuzzes the bundle's JSON readers (topology.json, job.json, facts.json, CCL snapshots,
// Prometheus query_range bodies) and the address book built from what they return: a
// reader answers with a Status, never a crash or an exception.
#include <cstdint>
#include <string>

#include "bundle/address_book.h"
#include "bundle/bundle_reader.h"
#include "ccl/reader.h"
#include "metrics/prom_reader.h"

namespace {
class Ignore : public aegis::Reporter {
 public:
  void Report(std::string_view, const aegis::Status&) override {}
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  Ignore ignore;
  aegis::Facts facts;
  (void)aegis::ParseFacts(text, &facts);
  aegis::Topology topo;
  aegis::Job job;
  (void)aegis::ParseTopology(text, &topo, &ignore);
  (void)aegis::ParseJob(text, &job, &ignore);
  aegis::AddressBook book(topo, job);
  for (const auto& [k, v] : facts) {
    book.ResolvePeer(v);
    book.GpuByPci(topo.nodes.empty() ? -1 : 0, v);
  }
  for (int r = 0; r < 4; ++r) book.ResolveRank(r);
  std::map<std::pair<std::string, int>, aegis::CclRecord> newest;
  aegis::ReadCclText(text, "f", "h", &newest);
  aegis::ParseQueryRange(text, "m", "f");
  return 0;
}
