// Cost of the CCL probe on NCCL's hot path, through the plugin as NCCL loads it (dlopen).
//
// Google Benchmark part: one proxy-step start / state / stop sequence (what NCCL calls per
// network request), with 1, 2 and 4 threads reporting on the same communicator at once
// (v5), and alone through each older API version's entry points (v1 to v4); beside it, a
// send and a receive with every state NCCL 2.28 reports (BM_ProxyStepNcclSend / Recv).
// Real and CPU time are reported; with AEGIS_PROBE_BENCH_SEQUENCES=N, fixed-count
// variants (BM_ProxyStepSequenceFixed, ...NcclSendFixed, ...NcclRecvFixed,
// BM_ProxyStepSequenceFixed_v1) run exactly N sequences, for perf stat and callgrind.
// AEGIS_PROBE_BENCH_SO loads another build of the plugin (a before / after comparison).
//
// --line-rate SECONDS [--peers N]: the hot path at NCCL's real event rate instead. One
// proxy thread of a 10,240-rank communicator drives 400 Gb/s of 512 KiB steps in each
// direction (2 x 95,367 requests per second) in ops of 8 steps, under collectives that an
// application thread launches, while the plugin's snapshot writer runs at
// AEGIS_CCL_INTERVAL_MS. The proxy thread polls between requests, as NCCL's does. Prints
// one JSON object: the per-sequence cost (mean, p50, p99 over 8-sequence batches), the
// share of the proxy thread's time spent in the probe, and the writer thread's CPU share
// and CPU time per snapshot.
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "probe/nccl_profiler_abi.h"

namespace {
namespace abi = aegis::probe::abi;

void* Library() {
  static void* lib = [] {
    if (!std::getenv("AEGIS_CCL_DIR")) ::setenv("AEGIS_CCL_DIR", "/tmp/aegis-ccl-bench", 1);
    ::setenv("AEGIS_CCL_SOCKET", "", 1);
    const char* so = std::getenv("AEGIS_PROBE_BENCH_SO");
    return ::dlopen(so && *so ? so : AEGIS_PROBE_SO, RTLD_NOW);
  }();
  return lib;
}

template <typename T>
const T* Symbol(const char* name) {
  void* lib = Library();
  return lib ? static_cast<const T*>(::dlsym(lib, name)) : nullptr;
}

const abi::Profiler_v5* V5() {
  static const auto* p = Symbol<abi::Profiler_v5>("ncclProfiler_v5");
  return p;
}

// ---- Google Benchmark: one sequence ----

void* Comm() {
  static void* ctx = [] {
    void* c = nullptr;
    int mask = 0;
    V5()->init(&c, 0xbe7cull, &mask, "bench", 2, 16, 0, nullptr);
    return c;
  }();
  return ctx;
}

// What NCCL calls per network request between a step's start and its stop.
enum class Request {
  kSend,      // the sequence of record: SendWait (posted), then the stop (completed)
  kNcclSend,  // a send as NCCL 2.28's proxy reports it: SendGPUWait, SendPeerWait, SendWait
  kNcclRecv,  // a receive: RecvWait (posted), RecvFlushWait, RecvGPUWait (done)
};

// One proxy op per thread (as NCCL's proxy does per channel and peer), then per request:
// step start, its states, stop.
template <Request kRequest>
void RunSequences(benchmark::State& state) {
  const auto* p = V5();
  if (!p) {
    state.SkipWithError("plugin not loadable");
    return;
  }
  void* ctx = Comm();
  abi::EventDescr_v5 o{};
  o.type = abi::kProxyOp;
  o.proxyOp.pid = ::getpid();
  o.proxyOp.peer = 1 + state.thread_index();
  o.proxyOp.isSend = kRequest != Request::kNcclRecv;
  void* op = nullptr;
  p->startEvent(ctx, &op, &o);
  abi::EventDescr_v5 s{};
  s.type = abi::kProxyStep;
  s.parentObj = op;
  abi::EventStateArgs a{};
  a.proxyStep.transSize = 512 << 10;
  int step = 0;
  for (auto _ : state) {
    void* h = nullptr;
    s.proxyStep.step = step++;
    p->startEvent(ctx, &h, &s);
    if constexpr (kRequest == Request::kSend) {
      p->recordEventState(h, abi::kProxyStepSendWait, &a);
    } else if constexpr (kRequest == Request::kNcclSend) {
      p->recordEventState(h, abi::kProxyStepSendGPUWait, &a);
      p->recordEventState(h, abi::kProxyStepSendPeerWait_v4, &a);
      p->recordEventState(h, abi::kProxyStepSendWait, &a);
    } else {
      p->recordEventState(h, abi::kProxyStepRecvWait, &a);
      p->recordEventState(h, abi::kProxyStepRecvFlushWait, &a);
      p->recordEventState(h, abi::kProxyStepRecvGPUWait, &a);
    }
    p->stopEvent(h);
  }
  p->stopEvent(op);
}

void BM_ProxyStepSequence(benchmark::State& state) { RunSequences<Request::kSend>(state); }
BENCHMARK(BM_ProxyStepSequence)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();
void BM_ProxyStepNcclSend(benchmark::State& state) { RunSequences<Request::kNcclSend>(state); }
void BM_ProxyStepNcclRecv(benchmark::State& state) { RunSequences<Request::kNcclRecv>(state); }
BENCHMARK(BM_ProxyStepNcclSend)->UseRealTime();
BENCHMARK(BM_ProxyStepNcclRecv)->UseRealTime();

// The same sequence through an older version's entry points (NCCL 2.23 to 2.27).
template <typename Profiler, typename Descr, typename Args>
void OldSequences(benchmark::State& state, const char* symbol, int api) {
  const auto* p = Symbol<Profiler>(symbol);
  if (!p) {
    state.SkipWithError("plugin not loadable");
    return;
  }
  void* ctx = nullptr;
  int mask = 0;
  if constexpr (std::is_same_v<Profiler, abi::Profiler_v4>) p->init(&ctx, &mask, "bench", 0xbe70ull + api, 2, 16, 0, nullptr);
  else p->init(&ctx, &mask);
  Descr o{};
  o.type = abi::kProxyOp;
  o.proxyOp.pid = ::getpid();
  o.proxyOp.peer = 1;
  o.proxyOp.isSend = 1;
  o.proxyOp.chunkSize = 512 << 10;
  void* op = nullptr;
  p->startEvent(ctx, &op, &o);
  Descr s{};
  s.type = abi::kProxyStep;
  s.parentObj = op;
  Args a{};
  Args* args = std::is_same_v<Args, abi::EventStateArgs> ? &a : nullptr;  // NCCL < 2.27 passes none
  int step = 0;
  for (auto _ : state) {
    void* h = nullptr;
    s.proxyStep.step = step++;
    p->startEvent(ctx, &h, &s);
    p->recordEventState(h, abi::kProxyStepSendWait, args);
    p->stopEvent(h);
  }
  p->stopEvent(op);
}
void BM_ProxyStepSequence_v4(benchmark::State& s) {
  OldSequences<abi::Profiler_v4, abi::EventDescr_v4, abi::EventStateArgs>(s, "ncclProfiler_v4", 4);
}
void BM_ProxyStepSequence_v3(benchmark::State& s) {
  OldSequences<abi::Profiler_v3, abi::EventDescr_v3, abi::EventStateArgs_v1>(s, "ncclProfiler_v3", 3);
}
void BM_ProxyStepSequence_v2(benchmark::State& s) {
  OldSequences<abi::Profiler_v2, abi::EventDescr_v2, abi::EventStateArgs_v1>(s, "ncclProfiler_v2", 2);
}
void BM_ProxyStepSequence_v1(benchmark::State& s) {
  OldSequences<abi::Profiler_v1, abi::EventDescr_v1, abi::EventStateArgs_v1>(s, "ncclProfiler_v1", 1);
}
BENCHMARK(BM_ProxyStepSequence_v4)->UseRealTime();
BENCHMARK(BM_ProxyStepSequence_v3)->UseRealTime();
BENCHMARK(BM_ProxyStepSequence_v2)->UseRealTime();
BENCHMARK(BM_ProxyStepSequence_v1)->UseRealTime();

// ---- line rate ----

uint64_t MonoNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

uint64_t ThreadCpuNs(clockid_t clock) {
  timespec t;
  if (clock_gettime(clock, &t) != 0) return 0;
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

// The CPU clock of one thread of this process, by its name (the writer names itself).
bool ThreadClockByName(const char* name, clockid_t* clock) {
  DIR* d = ::opendir("/proc/self/task");
  if (!d) return false;
  bool found = false;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string n;
    std::getline(comm, n);
    if (n == name) {
      const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
      *clock = static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6);  // per-thread CPU clock
      found = true;
      break;
    }
  }
  ::closedir(d);
  return found;
}

// NCCL's proxy thread polls its network requests rather than sleeping between them.
void PollUntil(uint64_t mono_ns) {
  while (MonoNs() < mono_ns) {
  }
}

int LineRate(double seconds, int peers) {
  const auto* p = V5();
  if (!p) {
    std::fprintf(stderr, "plugin not loadable: %s\n", ::dlerror());
    return 1;
  }
  constexpr int kRanks = 10240, kRank = 5, kStepsPerOp = 8, kChannels = 2;
  constexpr double kStepBytes = 512.0 * 1024, kLinkBps = 400e9;
  const double steps_per_s = 2 * kLinkBps / 8 / kStepBytes;  // send and receive
  void* ctx = nullptr;
  int mask = 0;
  p->init(&ctx, 0x10c0ull, &mask, "dp", kRanks / 8, kRanks, kRank, nullptr);

  // The application thread launches collectives ahead of the proxy, as NCCL's host does.
  constexpr int kQueue = 1024;
  std::vector<std::atomic<void*>> queue(kQueue);
  std::atomic<uint64_t> launched{0}, consumed{0};
  std::atomic<bool> done{false};
  std::thread app([&] {
    uint64_t seq = 0;
    while (!done.load(std::memory_order_relaxed)) {
      if (launched.load() - consumed.load() >= kQueue / 2) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        continue;
      }
      abi::EventDescr_v5 c{};
      c.type = abi::kColl;
      c.coll.base.func = "AllReduce";
      c.coll.base.seqNumber = seq++;
      c.coll.base.count = 64 << 20;
      c.coll.base.datatype = "ncclBfloat16";
      c.coll.base.nChannels = kChannels;
      void* h = nullptr;
      p->startEvent(ctx, &h, &c);
      p->stopEvent(h);  // enqueued
      queue[launched.load() % kQueue].store(h);
      launched.fetch_add(1);
    }
  });

  // What reading the clock around a batch costs by itself, taken off every batch.
  std::vector<uint64_t> empty(2001);
  for (auto& v : empty) {
    const uint64_t t = MonoNs();
    v = MonoNs() - t;
  }
  std::nth_element(empty.begin(), empty.begin() + 1000, empty.end());
  const double clock_ns = static_cast<double>(empty[1000]);

  std::vector<double> batch_ns;
  batch_ns.reserve(static_cast<size_t>(seconds * steps_per_s / kStepsPerOp) + 1024);
  uint64_t sequences = 0, wall = 0;
  std::thread proxy([&] {
    const uint64_t op_period = static_cast<uint64_t>(kStepsPerOp / steps_per_s * 1e9);
    const uint64_t t0 = MonoNs(), end = t0 + static_cast<uint64_t>(seconds * 1e9);
    uint64_t next = t0, op_index = 0;
    abi::EventStateArgs a{};
    a.proxyStep.transSize = static_cast<size_t>(kStepBytes);
    while (next < end) {
      while (consumed.load() >= launched.load()) std::this_thread::yield();
      void* coll = queue[consumed.load() % kQueue].load();
      void* ch[kChannels];
      for (int c = 0; c < kChannels; ++c) {
        abi::EventDescr_v5 k{};
        k.type = abi::kKernelCh;
        k.parentObj = coll;
        k.kernelCh.channelId = static_cast<uint8_t>(c);
        k.kernelCh.pTimer = MonoNs();
        p->startEvent(ctx, &ch[c], &k);
      }
      // Per channel, a send op and a receive op of 8 steps each.
      for (int c = 0; c < kChannels; ++c)
        for (int send = 1; send >= 0; --send) {
          PollUntil(next);
          next += op_period;
          const int hop = 1 + static_cast<int>(op_index++ % static_cast<uint64_t>(peers));
          abi::EventDescr_v5 o{};
          o.type = abi::kProxyOp;
          o.parentObj = coll;
          o.proxyOp.pid = ::getpid();
          o.proxyOp.channelId = static_cast<uint8_t>(c);
          o.proxyOp.peer = send ? (kRank + hop) % kRanks : (kRank - hop + kRanks) % kRanks;
          o.proxyOp.nSteps = kStepsPerOp;
          o.proxyOp.isSend = send;
          void* op = nullptr;
          p->startEvent(ctx, &op, &o);
          const uint64_t b0 = MonoNs();
          for (int s = 0; s < kStepsPerOp; ++s) {
            abi::EventDescr_v5 st{};
            st.type = abi::kProxyStep;
            st.parentObj = op;
            st.proxyStep.step = s;
            void* h = nullptr;
            p->startEvent(ctx, &h, &st);
            p->recordEventState(h, send ? abi::kProxyStepSendWait : abi::kProxyStepRecvWait, &a);
            if (!send) p->recordEventState(h, abi::kProxyStepRecvGPUWait, &a);
            p->stopEvent(h);
          }
          batch_ns.push_back(std::max(0.0, static_cast<double>(MonoNs() - b0) - clock_ns) / kStepsPerOp);
          sequences += kStepsPerOp;
          p->stopEvent(op);
        }
      for (int c = 0; c < kChannels; ++c) {
        abi::EventStateArgs e{};
        e.kernelCh.pTimer = MonoNs();
        p->recordEventState(ch[c], abi::kKernelChStop, &e);
        p->stopEvent(ch[c]);
      }
      consumed.fetch_add(1);
    }
    wall = MonoNs() - t0;
  });

  // The writer starts with the first init; measure its CPU over the same window.
  clockid_t writer_clock{};
  const bool have_writer = ThreadClockByName("aegis-ccl", &writer_clock);
  const uint64_t w0 = have_writer ? ThreadCpuNs(writer_clock) : 0;
  proxy.join();
  const uint64_t writer_cpu = have_writer ? ThreadCpuNs(writer_clock) - w0 : 0;
  done = true;
  app.join();

  std::sort(batch_ns.begin(), batch_ns.end());
  double sum = 0;
  for (double v : batch_ns) sum += v;
  auto pct = [&](double q) { return batch_ns.empty() ? 0.0 : batch_ns[static_cast<size_t>(q * (batch_ns.size() - 1))]; };
  const char* interval = std::getenv("AEGIS_CCL_INTERVAL_MS");
  const double interval_ms = interval ? std::atof(interval) : 1000;
  const double snapshots = static_cast<double>(wall) / 1e6 / interval_ms;
  std::printf(
      "{\"interval_ms\": %.0f, \"seconds\": %.2f, \"ranks\": %d, \"peers\": %d, \"target_steps_per_s\": %.0f, "
      "\"steps_per_s\": %.0f, \"seq_ns_mean\": %.2f, \"seq_ns_p50\": %.2f, \"seq_ns_p99\": %.2f, "
      "\"clock_ns_per_batch\": %.1f, \"probe_share_of_proxy_pct\": %.4f, \"writer_found\": %s, \"writer_cpu_pct\": %.4f, \"writer_us_per_snapshot\": %.1f}\n",
      interval_ms, static_cast<double>(wall) / 1e9, kRanks, peers, steps_per_s,
      static_cast<double>(sequences) / (static_cast<double>(wall) / 1e9), batch_ns.empty() ? 0.0 : sum / batch_ns.size(),
      pct(0.5), pct(0.99), clock_ns, 100.0 * sum * kStepsPerOp / static_cast<double>(wall),
      have_writer ? "true" : "false", 100.0 * static_cast<double>(writer_cpu) / static_cast<double>(wall),
      snapshots >= 1 ? static_cast<double>(writer_cpu) / 1e3 / snapshots : 0.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--line-rate")) {
      const double seconds = i + 1 < argc ? std::atof(argv[i + 1]) : 5;
      int peers = 2;
      for (int j = 1; j + 1 < argc; ++j)
        if (!std::strcmp(argv[j], "--peers")) peers = std::max(1, std::atoi(argv[j + 1]));
      return LineRate(seconds > 0 ? seconds : 5, peers);
    }
  if (const char* n = std::getenv("AEGIS_PROBE_BENCH_SEQUENCES")) {
    const long long count = std::atoll(n);
    benchmark::RegisterBenchmark("BM_ProxyStepSequenceFixed", BM_ProxyStepSequence)->Iterations(count)->UseRealTime();
    benchmark::RegisterBenchmark("BM_ProxyStepNcclSendFixed", BM_ProxyStepNcclSend)->Iterations(count)->UseRealTime();
    benchmark::RegisterBenchmark("BM_ProxyStepNcclRecvFixed", BM_ProxyStepNcclRecv)->Iterations(count)->UseRealTime();
    benchmark::RegisterBenchmark("BM_ProxyStepSequenceFixed_v1", BM_ProxyStepSequence_v1)->Iterations(count)->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
