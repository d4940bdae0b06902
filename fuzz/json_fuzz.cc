// Fuzzes the bundle's JSON readers (topology.json, job.json, facts.json, CCL snapshots,
// Prometheus query_range bodies) and the address book built from what they return: only
// BundleError may escape, never a crash.
#include <cstdint>
#include <string>

#include "bundle/address_book.h"
#include "bundle/bundle_reader.h"
#include "ccl/reader.h"
#include "metrics/prom_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> problems;
  aegis::Facts facts = aegis::ParseFacts(text, &problems);
  aegis::Topology topo;
  aegis::Job job;
  try {
    topo = aegis::ParseTopology(text, &problems);
  } catch (const aegis::BundleError&) {
  }
  try {
    job = aegis::ParseJob(text, &problems);
  } catch (const aegis::BundleError&) {
  }
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
