// Metric analysis at cluster scale: 1,250 hosts x 25 metrics, one series per GPU or NIC
// (8 per host), 10 minutes at 15 s. Parse (Prometheus query_range bodies) + outlier
// analysis, on both cores as the engine runs them. Target: under 1 s.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <atomic>
#include <thread>

#include "metrics/outliers.h"
#include "metrics/prom_reader.h"

namespace {

const aegis::Catalog& SharedCatalog() {
  static const aegis::Catalog* c = new aegis::Catalog(aegis::Catalog::Load({}));
  return *c;
}

std::vector<std::pair<std::string, std::string>> Bodies() {
  std::vector<std::pair<std::string, std::string>> out;
  const auto& metrics = SharedCatalog().metrics();
  for (size_t m = 0; m < 25 && m < metrics.size(); ++m) {
    std::string body = "{\"status\": \"success\", \"data\": {\"resultType\": \"matrix\", \"result\": [";
    for (int h = 0; h < 1250; ++h)
      for (int d = 0; d < 8; ++d) {
        body += fmt::format("{}{{\"metric\": {{\"__name__\": \"{}\", \"Hostname\": \"node-{:04d}\", \"gpu\": \"{}\"}}, "
                            "\"values\": [",
                            h || d ? ", " : "", metrics[m].name, h + 1, d);
        double acc = 0;
        for (int i = 0; i < 40; ++i) {
          acc += 1 + (h * 31 + d * 7 + i) % 5;
          body += fmt::format("{}[{}, \"{:.6g}\"]", i ? ", " : "", 1796000000 + i * 15, metrics[m].counter ? acc : acc / (i + 1));
        }
        body += "]}";
      }
    body += "]}}";
    out.emplace_back(metrics[m].name, std::move(body));
  }
  return out;
}

void BM_MetricAnalysis1250Hosts(benchmark::State& state) {
  static const auto bodies = Bodies();
  size_t bytes = 0;
  for (const auto& [n, b] : bodies) bytes += b.size();
  for (auto _ : state) {
    std::vector<aegis::PromParseResult> parsed(bodies.size());
    std::atomic<size_t> next{0};
    auto parse = [&] {
      for (size_t i = next++; i < bodies.size(); i = next++)
        parsed[i] = aegis::ParseQueryRange(bodies[i].second, bodies[i].first, "metrics/" + bodies[i].first + ".json");
    };
    std::thread other(parse);
    parse();
    other.join();
    std::vector<aegis::Series> all;
    for (auto& r : parsed)
      for (auto& s : r.series) all.push_back(std::move(s));
    auto a = aegis::AnalyzeMetrics(all, SharedCatalog(), {});
    benchmark::DoNotOptimize(a);
    state.counters["series"] = static_cast<double>(a.series);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_MetricAnalysis1250Hosts)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
