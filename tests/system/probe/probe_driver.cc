// A training process in miniature for the probe's process-level tests: loads the plugin
// (environment as given), runs a ring all-reduce on one communicator of 4 ranks, and
// optionally sends itself the snapshot signal.
//   probe_driver PLUGIN ITERS SLEEP_MS SIGNAL [FINALIZE=1] [API=5] [PROXY_THREADS=1] [CLOSE=0]
// CLOSE: after finalize, dlclose the plugin as NCCL does after its last communicator and
// live on for 3 snapshot periods. Exit 0, or 3 when a handler installed before the plugin
// was not chained.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "probe/fake_nccl.h"

namespace {
std::atomic<bool> g_own_handler_ran{false};
void OwnHandler(int) { g_own_handler_ran = true; }
int Arg(int argc, char** argv, int i, int fallback) { return argc > i ? std::atoi(argv[i]) : fallback; }
}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) return 2;
  const int iters = std::atoi(argv[2]), sleep_ms = std::atoi(argv[3]);
  const bool signal_self = std::atoi(argv[4]) != 0, finalize = Arg(argc, argv, 5, 1) != 0;
  const int api = Arg(argc, argv, 6, 5), proxies = Arg(argc, argv, 7, 1);
  const bool close = Arg(argc, argv, 8, 0) != 0;
  if (signal_self) ::signal(SIGUSR1, OwnHandler);  // the application's own handler
  {
    aegis::test::FakeNccl nccl(argv[1], api, proxies);
    auto comm = nccl.InitComm(0xd71e4ull, "dp", 4, 2);
    for (int it = 0; it < iters; ++it) {
      for (const auto& r : comm) {
        aegis::test::FakeNccl::Plan p;
        p.send_peer = (r.rank + 1) % 4;
        p.recv_peer = (r.rank + 3) % 4;
        nccl.Collective(r, static_cast<uint64_t>(it), p);
      }
      nccl.Drain();
      if (sleep_ms) std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));  // a training step's pause (real process)
    }
    if (signal_self) {
      ::raise(SIGUSR1);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the plugin's signal-driven dump runs on its own thread
      if (!g_own_handler_ran) return 3;
    }
    if (finalize)
      for (const auto& r : comm) nccl.Finalize(r);
    if (close) nccl.Close();
  }
  if (close) {
    const char* interval = std::getenv("AEGIS_CCL_INTERVAL_MS");
    // Real time: the plugin's writer thread writes every interval on the wall clock.
    std::this_thread::sleep_for(std::chrono::milliseconds(3 * (interval ? std::atoi(interval) : 1000)));
  }
  return 0;
}
