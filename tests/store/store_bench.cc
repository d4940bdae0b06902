// store_bench: AppendEvents throughput, batches of 100 events of about 300 bytes, for
// SQLite (synchronous FULL, the default, and NORMAL) and PostgreSQL (a server of its own
// with the server's default durability: fsync on). Not run by ctest.
//   build/tests/store/store_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "pg_server.h"
#include "scratch_dir.h"
#include "store/store.h"

namespace {

using aegis::Status;
using aegis::store::AppendResult;
using aegis::store::Event;
using aegis::store::Store;
using aegis::store::StoreOptions;
using aegis::store::test::PgServer;
using aegis::store::test::ScratchDir;

std::unique_ptr<PgServer> pg_server;

std::vector<Event> MakeBatch(int64_t batch) {
  std::vector<Event> events(100);
  for (int i = 0; i < 100; ++i) {
    Event& e = events[i];
    e.id = "node-" + std::to_string(i % 16) + "/" + std::to_string(batch) + "/" + std::to_string(i);
    e.node = "node-" + std::to_string(i % 16);
    e.type = aegis::wire::EventType::kLog;
    e.at = 1764500000.0 + batch * 0.1 + i * 0.001;
    e.received_at = e.at + 0.05;
    // About 300 bytes: a kernel log line with its file and line number.
    e.body = R"({"file":"kernel.log","line":)" + std::to_string(batch * 100 + i) +
             R"(,"text":"NVRM: Xid (PCI:0000:3a:00): 79, pid=')" + std::to_string(1000 + i) +
             R"(', name=python3, GPU has fallen off the bus. )" + std::string(150, 'x') + R"("})";
  }
  return events;
}

void Append(benchmark::State& state, const std::string& url, const StoreOptions& options) {
  std::unique_ptr<Store> store;
  if (Status st = Store::Open(url, &store, options); !st.ok()) {
    state.SkipWithError(st.ToString().c_str());
    return;
  }
  int64_t batch = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const std::vector<Event> events = MakeBatch(batch++);
    for (const Event& e : events) bytes += e.body.size();
    state.ResumeTiming();
    AppendResult result;
    Status st = store->AppendEvents(events, &result);
    if (!st.ok() || result.added != events.size()) {
      state.SkipWithError(st.ok() ? "events were not added" : st.ToString().c_str());
      return;
    }
  }
  state.SetItemsProcessed(batch * 100);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void BM_AppendEvents_SQLite(benchmark::State& state) {
  ScratchDir dir;
  StoreOptions options;
  options.sqlite_sync_full = state.range(0) != 0;
  state.SetLabel(options.sqlite_sync_full ? "synchronous=FULL" : "synchronous=NORMAL");
  Append(state, "sqlite:" + dir.path() + "/bench.db", options);
}
BENCHMARK(BM_AppendEvents_SQLite)->Arg(1)->Arg(0)->UseRealTime();

void BM_AppendEvents_PostgreSQL(benchmark::State& state) {
  if (!pg_server) {
    Status st = PgServer::Start({.durable = true}, &pg_server);
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      return;
    }
  }
  std::string name, url;
  if (Status st = pg_server->CreateDatabase(&name, &url); !st.ok()) {
    state.SkipWithError(st.ToString().c_str());
    return;
  }
  state.SetLabel("fsync on");
  Append(state, url, {});
}
BENCHMARK(BM_AppendEvents_PostgreSQL)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (pg_server) (void)pg_server->Stop();
  return 0;
}
