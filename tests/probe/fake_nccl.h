// A stand-in for NCCL driving the profiler plugin as each release does, for any profiler
// API version (1: NCCL 2.23, 2: 2.24-2.25, 3: 2.26, 4: 2.27, 5: 2.28): dlopen the .so,
// resolve ncclProfiler_vN, init one context per (communicator, rank) with the mask
// pointer (v1-v3: no communicator information), then per collective, on the application
// thread: a Group event (NCCL < 2.28 starts collectives only under a non-null group
// handle), Coll start / stop, Group stop; on a proxy thread: kernel channels (v3: no
// timer; v4, v5: GPU timers and the KernelChStop state), ProxyOp events with their
// states (v1-v3: bytes so far as arguments), ProxyStep events with their wait states
// (v1-v3: no arguments; v4, v5: the step's size).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "probe/nccl_profiler_abi.h"

namespace aegis::test {

class FakeNccl {
 public:
  // proxy_threads: collectives of rank r are played by proxy thread r % proxy_threads.
  explicit FakeNccl(const std::string& plugin_path, int api = 5, int proxy_threads = 1);
  ~FakeNccl();
  int api() const { return api_; }
  const probe::abi::Profiler_v5* v5() const { return v5_; }
  const probe::abi::Profiler_v4* v4() const { return v4_; }
  const probe::abi::Profiler_v3* v3() const { return v3_; }
  const probe::abi::Profiler_v2* v2() const { return v2_; }
  const probe::abi::Profiler_v1* v1() const { return v1_; }

  struct Rank {
    void* ctx = nullptr;
    int rank = 0, nranks = 0;
    uint64_t hash = 0;
    std::string name;
  };
  // One communicator of nranks contexts.
  std::vector<Rank> InitComm(uint64_t hash, const char* name, int nranks, int nnodes);

  // How one collective goes on one rank.
  struct Step {
    bool complete = true;     // false: posted, never completed (a stuck request)
    // Runs while the step is in flight, between its wait and its completion (a system test's
    // slow peer spends its time there; the plugin times the step on the real clock).
    std::function<void()> in_flight;
  };
  struct Plan {
    int send_peer = -1, recv_peer = -1;
    int steps = 4;
    size_t step_bytes = 1 << 20;
    bool kernel_finishes = true;  // false: the collective never completes on the GPU
    std::function<Step(int step, bool send)> step;  // default: complete at once
  };
  // Launches a collective on the application thread; a proxy thread plays it out.
  void Collective(const Rank& r, uint64_t seq, const Plan& plan);
  // Waits until the proxy threads have played out everything queued.
  void Drain();
  void Finalize(const Rank& r);
  // What NCCL does after its last communicator: dlclose the plugin.
  void Close();

  // The version's calls, for tests that build their own sequences. `ev` is described in
  // v5 terms and translated to the version's descriptor.
  void* Start(void* ctx, const probe::abi::EventDescr_v5& ev, const Rank* comm = nullptr);
  void Record(void* handle, int state, size_t size_or_timer, bool with_args = true);
  void Stop(void* handle);

 private:
  struct Proxy {
    std::deque<std::function<void()>> work;
    bool busy = false;
    std::thread thread;
  };
  void ProxyLoop(Proxy* p);
  void PlayProxy(const Rank& r, void* coll, const Plan& plan);

  int api_;
  void* lib_ = nullptr;
  const probe::abi::Profiler_v5* v5_ = nullptr;
  const probe::abi::Profiler_v4* v4_ = nullptr;
  const probe::abi::Profiler_v3* v3_ = nullptr;
  const probe::abi::Profiler_v2* v2_ = nullptr;
  const probe::abi::Profiler_v1* v1_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  bool stop_ = false;
  std::vector<std::unique_ptr<Proxy>> proxies_;
};

}  // namespace aegis::test
