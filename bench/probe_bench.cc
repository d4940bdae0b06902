// Cost of the CCL probe on NCCL's hot path: one proxy-step start / state / stop sequence
// (what NCCL calls per network work request), with two threads driving events on the
// same communicator at once, through the plugin as NCCL loads it (dlopen).
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>

#include "probe/nccl_profiler_abi.h"

namespace {
namespace abi = aegis::probe::abi;

const abi::Profiler_v5* Plugin() {
  static const abi::Profiler_v5* p = [] {
    ::setenv("AEGIS_CCL_DIR", "/tmp/aegis-ccl-bench", 1);
    ::setenv("AEGIS_CCL_SOCKET", "", 1);
    void* lib = ::dlopen(AEGIS_PROBE_SO, RTLD_NOW);
    return lib ? static_cast<const abi::Profiler_v5*>(::dlsym(lib, "ncclProfiler_v5")) : nullptr;
  }();
  return p;
}

void* Comm() {
  static void* ctx = [] {
    void* c = nullptr;
    int mask = 0;
    Plugin()->init(&c, 0xbe7cull, &mask, "bench", 2, 16, 0, nullptr);
    return c;
  }();
  return ctx;
}

// One proxy op per thread (as NCCL's proxy does per channel and peer), then per request:
// step start, SendWait (posted), stop (completed).
void BM_ProxyStepSequence(benchmark::State& state) {
  const auto* p = Plugin();
  if (!p) {
    state.SkipWithError("plugin not loadable");
    return;
  }
  void* ctx = Comm();
  abi::EventDescr_v5 o{};
  o.type = abi::kProxyOp;
  o.proxyOp.pid = ::getpid();
  o.proxyOp.peer = 1 + state.thread_index();
  o.proxyOp.isSend = 1;
  void* op = nullptr;
  p->startEvent(ctx, &op, &o);
  abi::EventDescr_v5 s{};
  s.type = abi::kProxyStep;
  s.parentObj = op;
  abi::EventStateArgs a{};
  a.proxyStep.transSize = 1 << 20;
  for (auto _ : state) {
    void* step = nullptr;
    p->startEvent(ctx, &step, &s);
    p->recordEventState(step, abi::kProxyStepSendWait, &a);
    p->stopEvent(step);
  }
  p->stopEvent(op);
}
BENCHMARK(BM_ProxyStepSequence)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
