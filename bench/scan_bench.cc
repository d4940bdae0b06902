// Log scanning throughput on one core: realistic generated logs (mostly INFO noise with
// the occasional hint), through the same Scanner the engine uses. Target: 300 MB/s.
#include <benchmark/benchmark.h>

#include "logs/event_aggregate.h"
#include "logs/line_prefix.h"
#include "logs/scanner.h"
#include "noise_logs.h"

namespace {

const aegis::Matcher& SharedMatcher() {
  static const aegis::Catalog* c = new aegis::Catalog(aegis::Catalog::Load({}));
  static const aegis::Matcher* m = new aegis::Matcher(*c);
  return *m;
}

void Scan(benchmark::State& state, bool kernel) {
  const std::string text = aegis::bench::NoiseLog(kernel, 64u << 20);
  aegis::ScanOptions o;
  o.year = 2026;
  aegis::Scanner scanner(SharedMatcher(), o);
  size_t events = 0;
  for (auto _ : state) {
    scanner.ScanText(text, [&](aegis::LogEvent&&) { ++events; });
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["events_per_scan"] = static_cast<double>(events) / static_cast<double>(state.iterations());
}

void BM_ScanTrainLog(benchmark::State& state) { Scan(state, false); }
void BM_ScanKernelLog(benchmark::State& state) { Scan(state, true); }
BENCHMARK(BM_ScanTrainLog)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_ScanKernelLog)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

// A log storm, scanned into events aggregated as `aegis diagnose` does (the scanner folds
// repeats, logs/event_aggregate.h aggregates the rest): repeated records should cost about
// what scanning their bytes does.
void ScanStorm(benchmark::State& state, bool kernel) {
  const std::string text = aegis::bench::StormLog(kernel, 64u << 20);
  aegis::ScanOptions o;
  o.year = 2026;
  o.fold_repeats = true;
  aegis::Scanner scanner(SharedMatcher(), o);
  size_t events = 0, records = 0;
  for (auto _ : state) {
    aegis::LogAggregator aggregate;
    scanner.ScanText(text, [&](aegis::LogEvent&& ev) { aggregate.Add(std::move(ev)); });
    events += aggregate.entries().size();
    records += aggregate.records();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["events_per_scan"] = static_cast<double>(events) / static_cast<double>(state.iterations());
  state.counters["records_per_scan"] = static_cast<double>(records) / static_cast<double>(state.iterations());
}

void BM_ScanStormTrainLog(benchmark::State& state) { ScanStorm(state, false); }
void BM_ScanStormKernelLog(benchmark::State& state) { ScanStorm(state, true); }
BENCHMARK(BM_ScanStormTrainLog)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
BENCHMARK(BM_ScanStormKernelLog)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

// The prefix parser alone, per line (it runs only on candidate lines in the scanner).
void BM_ParseLinePrefix(benchmark::State& state) {
  const std::string line =
      "2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1313 [0] transport/net_ib.cc:2451 NCCL WARN x";
  for (auto _ : state) benchmark::DoNotOptimize(aegis::ParseLinePrefix(line, 2026));
}
BENCHMARK(BM_ParseLinePrefix);

}  // namespace

BENCHMARK_MAIN();
